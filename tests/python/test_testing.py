"""tilec.testing: do_bench's statistics, perf_report's table, CSV and PNG (both the
matplotlib path, through a stand-in module, and the built-in rasteriser)."""

import struct
import sys
import types
import zlib

import numpy as np
import pytest

import tilec.testing as tt
from tilec import _plot


def _bench(plot_name="demo", styles=None, x_log=False, y_log=False):
    return tt.Benchmark(x_names=["size"], x_vals=[16, 32, 64, 128], line_arg="provider",
                        line_vals=["a", "b"], line_names=["A", "B"], plot_name=plot_name,
                        args={"scale": 2}, styles=styles, x_log=x_log, y_log=y_log,
                        xlabel="size", ylabel="GB/s")


def _mark(bench):
    @tt.perf_report(bench)
    def f(size, provider, scale):
        return float(size * scale + (100 if provider == "b" else 0)), 0.0, 0.0

    return f


def decode_png(data):
    """(width, height, rows of RGB tuples) of an 8-bit RGB PNG with filter 0 rows."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    w = h = None
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        tag, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        crc = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]
        assert crc == zlib.crc32(tag + body) & 0xFFFFFFFF
        if tag == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert (depth, ctype) == (8, 2)
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    assert len(raw) == h * (1 + 3 * w)
    rows = []
    for y in range(h):
        line = raw[y * (1 + 3 * w):(y + 1) * (1 + 3 * w)]
        assert line[0] == 0
        rows.append([tuple(line[1 + 3 * x:4 + 3 * x]) for x in range(w)])
    return w, h, rows


def _count(rows, color):
    return sum(px == color for row in rows for px in row)


def test_builtin_plot_draws_each_line_in_its_color(tmp_path, monkeypatch):
    monkeypatch.setattr(tt.Mark, "plot_backend_override", "builtin")
    m = _mark(_bench(styles=[("blue", "-"), ("red", "--")]))
    m.run(save_path=str(tmp_path))
    assert m.plot_backend == "builtin"
    w, h, rows = decode_png((tmp_path / "demo.png").read_bytes())
    assert (w, h) == (800, 560)
    assert _count(rows, _plot._NAMED["blue"]) > 200
    assert _count(rows, _plot._NAMED["red"]) > 100
    assert _count(rows, (0, 0, 0)) > 500  # axes and text
    # the line rises left to right: the blue pixels' rightmost column is higher up
    blue = [(x, y) for y, row in enumerate(rows) for x, px in enumerate(row)
            if px == _plot._NAMED["blue"] and x > 150]
    left = min(blue)
    right = max(blue)
    assert right[1] < left[1]


def test_builtin_plot_log_axes_and_missing_points(tmp_path):
    b = _bench(x_log=True, y_log=True)
    path = tmp_path / "p.png"
    _plot.render_builtin(b, [1, 10, 100, 1000], [("A", [1.0, None, 100.0, float("nan")], None),
                                                  ("B", [0.0, 2.0, 3.0, 4.0], None)], str(path))
    w, h, rows = decode_png(path.read_bytes())
    assert _count(rows, _plot._NAMED["blue"]) > 20


def test_builtin_plot_without_data(tmp_path):
    path = tmp_path / "p.png"
    _plot.render_builtin(_bench(), [1, 2], [("A", [None, None], None)], str(path))
    decode_png(path.read_bytes())


def test_matplotlib_path_through_a_stand_in(tmp_path, monkeypatch):
    calls = []

    class Ax:
        def __getattr__(self, name):
            return lambda *a, **k: calls.append((name, a, k))

    class Fig:
        def savefig(self, path):
            calls.append(("savefig", (path,), {}))
            open(path, "wb").write(b"\x89PNG fake")

    pyplot = types.ModuleType("matplotlib.pyplot")
    pyplot.figure = lambda: Fig()
    pyplot.subplot = lambda: Ax()
    pyplot.show = lambda: calls.append(("show", (), {}))
    pyplot.close = lambda fig: None
    mpl = types.ModuleType("matplotlib")
    mpl.use = lambda backend: calls.append(("use", (backend,), {}))
    mpl.pyplot = pyplot
    monkeypatch.setitem(sys.modules, "matplotlib", mpl)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", pyplot)
    assert _plot.have_matplotlib()
    m = _mark(_bench(styles=[("blue", "-"), ("green", "--")]))
    m.run(save_path=str(tmp_path))
    assert m.plot_backend == "matplotlib"
    plots = [c for c in calls if c[0] == "plot"]
    assert plots[0][1] == ([16, 32, 64, 128], [32.0, 64.0, 128.0, 256.0])
    assert plots[0][2] == {"label": "A", "color": "blue", "ls": "-"}
    assert plots[1][1][1] == [132.0, 164.0, 228.0, 356.0]
    assert ("savefig", (str(tmp_path / "demo.png"),), {}) in calls
    assert ("use", ("Agg",), {}) in calls
    assert (tmp_path / "demo.png").exists()


def test_without_matplotlib_the_builtin_plot_is_used(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    assert not _plot.have_matplotlib()
    m = _mark(_bench())
    m.run(save_path=str(tmp_path), print_data=True)
    assert m.plot_backend == "builtin"
    decode_png((tmp_path / "demo.png").read_bytes())


def test_perf_report_table_and_csv(tmp_path, capsys):
    m = _mark(_bench())
    m.run(print_data=True, save_path=str(tmp_path))
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "demo:"
    assert "A" in out.splitlines()[1] and "356" in out
    assert (tmp_path / "demo.csv").read_text().splitlines() == [
        "size,A,B", "16,32.0,132.0", "32,64.0,164.0", "64,128.0,228.0", "128,256.0,356.0"]


def test_perf_report_return_df_without_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    header, rows = _mark(_bench()).run(return_df=True)
    assert header == ["size", "A", "B"] and rows[0] == [16, 32.0, 132.0]


def test_do_bench_quantiles_and_modes():
    n = []
    f = lambda: n.append(1)  # noqa: E731
    q = tt.do_bench(f, warmup=1, rep=2, quantiles=[0.5, 0.2, 0.8])
    assert len(q) == 3 and q[1] <= q[0] <= q[2]
    assert len(tt.do_bench(f, warmup=0, rep=1, return_mode="all")) >= 1
    assert tt.do_bench(f, warmup=0, rep=1, return_mode="min") >= 0
    with pytest.raises(ValueError, match="return_mode"):
        tt.do_bench(f, return_mode="best")
    assert n


def test_do_bench_grad_to_none():
    class T:
        grad = 1

    t = T()
    tt.do_bench(lambda: None, warmup=0, rep=1, grad_to_none=[t])
    assert t.grad is None


def test_do_bench_cudagraph_falls_back_on_the_cpu():
    ms = tt.do_bench_cudagraph(lambda: sum(range(50)), rep=2)
    assert ms > 0


def test_assert_close():
    tt.assert_close(np.ones(3), np.ones(3) + 1e-4)
    with pytest.raises(AssertionError):
        tt.assert_close(np.ones(3), np.zeros(3))
