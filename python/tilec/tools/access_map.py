"""Access maps: which program loaded or stored each element of each array argument.

    maps = tilec.tools.access_map.access_map(kernel, grid, *args, path="map.png", **kwargs)

runs the kernel once on the CPU tile interpreter (host arrays), recording every load,
store and atomic lane, masked-off lanes apart, and returns one `AccessMap` per array
argument; with `path`, also writes a PNG picture: per argument, a "loaded by" and a
"stored by" panel where each element is a square coloured by the program that touched it
last (black: untouched; grey: only masked-off lanes pointed there; a white dot: several
programs touched it). A wrong index or mask shows at a glance."""

from __future__ import annotations

import colorsys
import struct
import zlib
from dataclasses import dataclass

import numpy as np

from ..compiler import host

_EVENT = np.dtype([("offset", "<u8"), ("buffer", "<u4"), ("program", "<u4"), ("kind", "<u4"),
                   ("pad", "<u4")])
LOAD, STORE, ATOMIC, MASKED_OFF = 0, 1, 2, 4


@dataclass
class AccessMap:
    """One array argument's accesses in one launch. Arrays have the argument's shape (a
    strided view: its elements' flat positions in memory, 1-D); program ids are flat (x
    fastest), -1 where no program did it."""
    name: str
    loaded_by: np.ndarray     # the last program that loaded the element
    stored_by: np.ndarray     # the last program that stored it (atomics count as stores)
    load_count: np.ndarray    # how many programs' lanes loaded it
    store_count: np.ndarray
    masked: np.ndarray        # bool: a masked-off lane pointed at it (and no lane touched it)


def access_map(kernel, grid, *args, path=None, **kwargs):
    """Runs `kernel[grid](*args, **kwargs)` on the interpreter recording every access, and
    returns {argument name: AccessMap} for the array arguments (see the module's doc)."""
    names = list(getattr(kernel, "arg_names", None) or [])
    arrays = {}
    for i, a in enumerate(args):
        arr = _as_array(a)
        if arr is not None:
            arrays[names[i] if i < len(names) else f"arg{i}"] = arr
    for k, a in kwargs.items():
        arr = _as_array(a)
        if arr is not None:
            arrays[k] = arr
    if host.ACCESS_LOG is not None:
        raise RuntimeError("access_map: already recording (nested access_map calls)")
    host.ACCESS_LOG = log = []
    try:
        kernel[grid](*args, **kwargs)
    finally:
        host.ACCESS_LOG = None
    if not log:
        raise RuntimeError("access_map: the kernel did not run on the CPU interpreter (pass "
                           "host arrays: numpy or CPU torch tensors)")
    buffers, _, raw = log[-1]
    events = np.frombuffer(raw, dtype=_EVENT)
    maps = {}
    for b, (bname, base, nbytes) in enumerate(buffers):
        arr = arrays.get(bname)
        if arr is None:
            continue
        maps[bname] = _one_map(bname, arr, base, events[events["buffer"] == b])
    if path is not None:
        write_png(maps, path)
    return maps


def _as_array(a):
    if isinstance(a, np.ndarray):
        return a
    if hasattr(a, "numpy") and hasattr(a, "data_ptr"):  # a CPU torch tensor
        return a.detach().numpy() if str(getattr(a, "device", "cpu")) == "cpu" else None
    return None


def _one_map(name, arr, base, ev):
    item = arr.itemsize
    shape = arr.shape if arr.flags.c_contiguous else (arr.size,)
    n = int(np.prod(shape)) if shape else 1
    ptr = arr.__array_interface__["data"][0]
    idx = (ev["offset"].astype(np.int64) + (base - ptr)) // item
    ok = (idx >= 0) & (idx < n)
    ev, idx = ev[ok], idx[ok]
    kind, prog = ev["kind"], ev["program"].astype(np.int64)
    masked = (kind & MASKED_OFF) != 0
    stores = ~masked & ((kind & 3) != LOAD)
    loads = ~masked & ((kind & 3) == LOAD)
    loaded_by = np.full(n, -1, np.int64)
    stored_by = np.full(n, -1, np.int64)
    loaded_by[idx[loads]] = prog[loads]  # events are in program order: the last one stays
    stored_by[idx[stores]] = prog[stores]
    load_count = _programs_per_element(idx[loads], prog[loads], n)
    store_count = _programs_per_element(idx[stores], prog[stores], n)
    touched = (loaded_by >= 0) | (stored_by >= 0)
    m = np.zeros(n, bool)
    m[idx[masked]] = True
    m &= ~touched
    r = lambda a: a.reshape(shape)  # noqa: E731
    return AccessMap(name, r(loaded_by), r(stored_by), r(load_count), r(store_count), r(m))


def _programs_per_element(idx, prog, n):
    if len(idx) == 0:
        return np.zeros(n, np.int64)
    pairs = np.unique(np.stack([idx, prog]), axis=1)
    return np.bincount(pairs[0], minlength=n)


# ---- the picture --------------------------------------------------------------------------

def _palette(programs):
    """An RGB colour per program id, hues spread by the golden ratio."""
    out = np.zeros((programs, 3), np.uint8)
    for p in range(programs):
        h = (p * 0.618033988749895) % 1.0
        out[p] = [int(255 * c) for c in colorsys.hsv_to_rgb(h, 0.75, 0.95)]
    return out


def _panel(by, count, masked, cell, palette):
    grid2 = by.reshape(1, -1) if by.ndim != 2 else by
    if by.ndim != 2 and by.size > 64:  # wrap long vectors into rows of 64
        rows = -(-by.size // 64)
        pad = rows * 64 - by.size
        grid2 = np.concatenate([by.ravel(), np.full(pad, -2)]).reshape(rows, 64)
        count = np.concatenate([count.ravel(), np.zeros(pad, np.int64)]).reshape(rows, 64)
        masked = np.concatenate([masked.ravel(), np.zeros(pad, bool)]).reshape(rows, 64)
    count = count.reshape(grid2.shape)
    masked = masked.reshape(grid2.shape)
    h, w = grid2.shape
    img = np.zeros((h * cell, w * cell, 3), np.uint8)
    colours = np.zeros((h, w, 3), np.uint8)
    hit = grid2 >= 0
    colours[hit] = palette[grid2[hit] % len(palette)]
    colours[masked & ~hit] = (110, 110, 110)
    colours[grid2 == -2] = (255, 255, 255)  # padding after the last element
    img[:] = np.repeat(np.repeat(colours, cell, 0), cell, 1)
    img[cell - 1::cell, :, :] //= 2  # grid lines
    img[:, cell - 1::cell, :] //= 2
    c = cell // 2
    ys, xs = np.nonzero(count > 1)
    img[ys * cell + c, xs * cell + c] = (255, 255, 255)
    return img


def render(maps, cell=8):
    """The picture as an (H, W, 3) uint8 array: a row of two panels per argument."""
    programs = 1 + max([int(max(m.loaded_by.max(initial=-1), m.stored_by.max(initial=-1)))
                        for m in maps.values()] + [0])
    palette = _palette(programs)
    rows = []
    for m in maps.values():
        a = _panel(m.loaded_by, m.load_count, m.masked, cell, palette)
        b = _panel(m.stored_by, m.store_count, m.masked, cell, palette)
        gap = np.full((a.shape[0], cell, 3), 255, np.uint8)
        rows.append(np.concatenate([a, gap, b], axis=1))
    width = max(r.shape[1] for r in rows)
    out = []
    for r in rows:
        pad = np.full((r.shape[0], width - r.shape[1], 3), 255, np.uint8)
        out.append(np.concatenate([r, pad], axis=1))
        out.append(np.full((cell, width, 3), 255, np.uint8))
    return np.concatenate(out[:-1], axis=0)


def write_png(maps, path, cell=8):
    """Writes render(maps) as a PNG (8-bit RGB, zlib from the standard library)."""
    img = render(maps, cell)
    h, w, _ = img.shape
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))

    def chunk(tag, data):
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        f.write(chunk(b"IEND", b""))
