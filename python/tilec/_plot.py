"""perf_report's plot: matplotlib when it is importable, else a small built-in line-plot
rasteriser that writes the PNG itself (zlib + a 5x7 bitmap font), so a benchmark always
leaves a picture behind, even on a machine without matplotlib."""

from __future__ import annotations

import math
import struct
import zlib

# Classic 5x7 font for ASCII 0x20..0x5F: 5 column bytes per glyph, bit 0 the top row.
_FONT = bytes.fromhex(
    "0000000000" "00005f0000" "0007000700" "147f147f14" "242a7f2a12" "2313086462"
    "3649552250" "0005030000" "001c224100" "0041221c00" "082a1c2a08" "08083e0808"
    "0050300000" "0808080808" "0060600000" "2010080402" "3e5149453e" "00427f4000"
    "4261514946" "2141454b31" "1814127f10" "2745454539" "3c4a494930" "0171090503"
    "3649494936" "064949291e" "0036360000" "0056360000" "0008142241" "1414141414"
    "4122140800" "0201510906" "324979413e" "7e1111117e" "7f49494936" "3e41414122"
    "7f4141221c" "7f49494941" "7f09090101" "3e41415132" "7f0808087f" "00417f4100"
    "2040413f01" "7f08142241" "7f40404040" "7f0204027f" "7f0408107f" "3e4141413e"
    "7f09090906" "3e4151215e" "7f09192946" "4649494931" "01017f0101" "3f4040403f"
    "1f2040201f" "7f2018207f" "6314081463" "0304780403" "6151494543" "00007f4141"
    "0204081020" "41417f0000" "0402010204" "4040404040")

_NAMED = {"blue": (31, 119, 180), "orange": (255, 127, 14), "green": (44, 160, 44),
          "red": (214, 39, 40), "purple": (148, 103, 189), "brown": (140, 86, 75),
          "pink": (227, 119, 194), "gray": (127, 127, 127), "grey": (127, 127, 127),
          "olive": (188, 189, 34), "cyan": (23, 190, 207), "black": (0, 0, 0),
          "yellow": (220, 200, 0), "magenta": (200, 0, 200)}
_PALETTE = ["blue", "orange", "green", "red", "purple", "brown", "pink", "gray", "olive",
            "cyan"]


def _color(spec, i):
    if isinstance(spec, (tuple, list)) and len(spec) >= 3:
        return tuple(int(c * 255 if isinstance(c, float) and c <= 1 else c) for c in spec[:3])
    if isinstance(spec, str):
        s = spec.lower().removeprefix("tab:")
        if s.startswith("#") and len(s) == 7:
            return tuple(int(s[k:k + 2], 16) for k in (1, 3, 5))
        if s in _NAMED:
            return _NAMED[s]
        short = {"b": "blue", "g": "green", "r": "red", "c": "cyan", "m": "magenta",
                 "y": "yellow", "k": "black"}
        if s in short:
            return _NAMED[short[s]]
    return _NAMED[_PALETTE[i % len(_PALETTE)]]


class _Canvas:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = bytearray(b"\xff" * (w * h * 3))

    def set(self, x, y, c):
        if 0 <= x < self.w and 0 <= y < self.h:
            i = (y * self.w + x) * 3
            self.px[i:i + 3] = bytes(c)

    def rect(self, x0, y0, x1, y1, c):
        for y in range(max(y0, 0), min(y1, self.h)):
            i = (y * self.w + max(x0, 0)) * 3
            n = max(min(x1, self.w) - max(x0, 0), 0)
            self.px[i:i + 3 * n] = bytes(c) * n

    def line(self, x0, y0, x1, y1, c, width=1, dashed=False):
        x0, y0, x1, y1 = (int(round(v)) for v in (x0, y0, x1, y1))
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err, step = dx + dy, 0
        while True:
            if not dashed or (step // 6) % 2 == 0:
                self.rect(x0 - width // 2, y0 - width // 2, x0 - width // 2 + width,
                          y0 - width // 2 + width, c)
            step += 1
            if x0 == x1 and y0 == y1:
                return
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def text(self, x, y, s, c=(0, 0, 0), scale=1):
        for ch in str(s):
            code = ord(ch.upper()) if ch.isascii() else ord("?")
            if not 0x20 <= code <= 0x5F:
                code = ord("?")
            cols = _FONT[(code - 0x20) * 5:(code - 0x20) * 5 + 5]
            for cx, bits in enumerate(cols):
                for cy in range(7):
                    if bits >> cy & 1:
                        self.rect(x + cx * scale, y + cy * scale, x + (cx + 1) * scale,
                                  y + (cy + 1) * scale, c)
            x += 6 * scale

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3])
                       for y in range(self.h))

        def chunk(tag, data):
            return (struct.pack(">I", len(data)) + tag + data +
                    struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

        ihdr = struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def _fmt(v):
    if v == 0:
        return "0"
    a = abs(v)
    if v == int(v) and a < 1e7:
        return str(int(v))
    if a >= 1e5 or a < 1e-3:
        return f"{v:.1e}".replace("e+0", "e").replace("e-0", "e-")
    return f"{v:.4g}"


def _ticks(lo, hi, log):
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        step = max(1, (b - a) // 6)
        return [10.0 ** e for e in range(a, b + 1, step)]
    span = hi - lo
    raw = span / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    n = int((hi - first) / step + 1e-9) + 1
    return [first + k * step for k in range(n)]


def render_builtin(bench, xs, lines, path):
    """lines: [(name, ys, style)] with ys aligned with xs (None or nan: no point)."""
    w, h = 800, 560
    left, right, top, bottom = 90, 30, 50, 70
    cv = _Canvas(w, h)
    pts = [(x, y) for _, ys, _ in lines for x, y in zip(xs, ys)
           if y is not None and math.isfinite(y) and (not bench.y_log or y > 0)]
    xv = [x for x in xs if not bench.x_log or x > 0]
    if not pts or not xv:
        cv.text(left, h // 2, "NO DATA")
        return _write(path, cv.png())
    xlo, xhi = min(xv), max(xv)
    ylo, yhi = min(p[1] for p in pts), max(p[1] for p in pts)
    if not bench.y_log:
        ylo = min(ylo, 0.0)
    if xhi == xlo:
        xlo, xhi = (xlo / 2, xhi * 2) if bench.x_log else (xlo - 1, xhi + 1)
    if yhi == ylo:
        ylo, yhi = (ylo / 2, yhi * 2) if bench.y_log else (ylo - 1, yhi + 1)
    if not bench.y_log:
        yhi += (yhi - ylo) * 0.05
    tx = (lambda v: math.log10(v)) if bench.x_log else (lambda v: v)
    ty = (lambda v: math.log10(v)) if bench.y_log else (lambda v: v)
    pw, ph = w - left - right, h - top - bottom

    def sx(v):
        return left + (tx(v) - tx(xlo)) / (tx(xhi) - tx(xlo)) * pw

    def sy(v):
        return top + ph - (ty(v) - ty(ylo)) / (ty(yhi) - ty(ylo)) * ph

    grid, axis = (225, 225, 225), (0, 0, 0)
    for t in _ticks(ylo, yhi, bench.y_log):
        if ylo <= t <= yhi:
            y = int(sy(t))
            cv.line(left, y, left + pw, y, grid)
            label = _fmt(t)
            cv.text(left - 8 - 6 * len(label), y - 3, label)
    for t in (_ticks(xlo, xhi, True) if bench.x_log and len(xs) > 8 else xs):
        if xlo <= t <= xhi:
            x = int(sx(t))
            cv.line(x, top, x, top + ph, grid)
            label = _fmt(t)
            cv.text(x - 3 * len(label), top + ph + 8, label)
    cv.line(left, top, left, top + ph, axis)
    cv.line(left, top + ph, left + pw, top + ph, axis)
    cv.text(left, 16, bench.plot_name, scale=2)
    xlabel = bench.xlabel or ", ".join(bench.x_names)
    cv.text(left + pw // 2 - 6 * len(xlabel), h - 30, xlabel, scale=2)
    if bench.ylabel:
        cv.text(left, top - 12, bench.ylabel)
    for i, (name, ys, style) in enumerate(lines):
        color = _color(style[0] if style else None, i)
        dashed = bool(style and len(style) > 1 and style[1] in ("--", ":", "-.", "dashed"))
        prev = None
        for x, y in zip(xs, ys):
            ok = y is not None and math.isfinite(y) and (not bench.y_log or y > 0) and \
                (not bench.x_log or x > 0)
            if not ok:
                prev = None
                continue
            p = (sx(x), sy(y))
            if prev is not None:
                cv.line(prev[0], prev[1], p[0], p[1], color, width=2, dashed=dashed)
            cv.rect(int(p[0]) - 3, int(p[1]) - 3, int(p[0]) + 4, int(p[1]) + 4, color)
            prev = p
        ly = top + 10 + 16 * i
        cv.rect(left + 12, ly, left + 36, ly + 4, color)
        cv.text(left + 44, ly - 1, name)
    return _write(path, cv.png())


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def render_matplotlib(bench, xs, lines, path, show):
    import matplotlib

    if not show:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    ax = plt.subplot()
    for i, (name, ys, style) in enumerate(lines):
        kw = {"label": name}
        if style:
            kw["color"] = style[0]
            if len(style) > 1:
                kw["ls"] = style[1]
        ax.plot(xs, ys, **kw)
    ax.legend()
    ax.set_xlabel(bench.xlabel or ", ".join(bench.x_names))
    ax.set_ylabel(bench.ylabel)
    ax.set_title(bench.plot_name)
    ax.set_xscale("log" if bench.x_log else "linear")
    ax.set_yscale("log" if bench.y_log else "linear")
    if show:
        plt.show()
    if path:
        fig.savefig(path)
    plt.close(fig)
    return path


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
        import matplotlib.pyplot  # noqa: F401
    except Exception:
        return False
    return True


def plot(bench, xs, lines, path, show=False, backend=None):
    """Draws `lines` over `xs` into the PNG `path` (None: only shown); backend None picks
    matplotlib when importable, else the built-in rasteriser. Returns the backend used."""
    if backend is None:
        backend = "matplotlib" if have_matplotlib() else "builtin"
    if backend == "matplotlib":
        render_matplotlib(bench, xs, lines, path, show)
    elif path:
        render_builtin(bench, xs, lines, path)
    return backend
