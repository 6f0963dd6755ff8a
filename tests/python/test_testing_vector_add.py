"""The user's documents' vector-add benchmark, written with perf_report as they show it.

Run as a script (scripts/gpu_check.sh does, on the GPU): `python3 test_testing_vector_add.py
OUT_DIR` writes OUT_DIR/vector-add-performance.csv and .png and prints the table. With
CUDA torch it compares tilec against torch on the GPU (sizes 2^12..2^27); otherwise tilec
on the CPU interpreter against numpy (small sizes). As a test it runs the CPU variant."""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "data"))  # seed_kernels (as conftest.py)

import tilec as triton  # noqa: E402
import seed_kernels as sk  # noqa: E402


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def make_benchmark(gpu, sizes):
    other = "torch" if gpu else "numpy"

    @triton.testing.perf_report(
        triton.testing.Benchmark(
            x_names=["size"],
            x_vals=sizes,
            x_log=True,
            line_arg="provider",
            line_vals=["triton", other],
            line_names=["tilec", other.capitalize()],
            styles=[("blue", "-"), ("green", "-")],
            ylabel="GB/s",
            plot_name="vector-add-performance",
            args={},
        ))
    def benchmark(size, provider):
        quantiles = [0.5, 0.2, 0.8]
        if gpu:
            torch = _torch_cuda()
            x = torch.rand(size, device="cuda", dtype=torch.float32)
            y = torch.rand(size, device="cuda", dtype=torch.float32)
            if provider == "torch":
                f = lambda: x + y  # noqa: E731
            else:
                f = lambda: sk.add(x, y)  # noqa: E731
            out = sk.add(x, y)
            assert torch.equal(out, x + y), "tilec's vector add differs from torch"
            elem = x.element_size()
        else:
            rng = np.random.default_rng(size)
            x = rng.random(size, dtype=np.float32)
            y = rng.random(size, dtype=np.float32)
            out = np.empty_like(x)
            grid = lambda meta: (triton.cdiv(size, meta["BLOCK_SIZE"]),)  # noqa: E731
            if provider == "numpy":
                f = lambda: np.add(x, y, out=out)  # noqa: E731
            else:
                f = lambda: sk.add_kernel[grid](x, y, out, size, BLOCK_SIZE=1024)  # noqa: E731
            f()
            np.testing.assert_array_equal(out, x + y)
            elem = x.itemsize
        ms, min_ms, max_ms = triton.testing.do_bench(f, quantiles=quantiles, warmup=5 if not gpu
                                                     else 25, rep=20 if not gpu else 100)
        gbps = lambda ms: 3 * size * elem * 1e-9 / (ms * 1e-3)  # noqa: E731
        return gbps(ms), gbps(max_ms), gbps(min_ms)

    return benchmark


def run(out_dir, gpu=None):
    if gpu is None:
        gpu = _torch_cuda() is not None
    sizes = [2 ** i for i in range(12, 28)] if gpu else [2 ** i for i in range(10, 15)]
    bench = make_benchmark(gpu, sizes)
    bench.run(print_data=True, show_plots=False, save_path=out_dir)
    return bench


def test_vector_add_perf_report_on_cpu(tmp_path, capsys):
    bench = run(str(tmp_path), gpu=False)
    csv = (tmp_path / "vector-add-performance.csv").read_text().splitlines()
    assert csv[0] == "size,tilec,Numpy"
    assert len(csv) == 6
    assert all(float(v) > 0 for line in csv[1:] for v in line.split(",")[1:])
    png = (tmp_path / "vector-add-performance.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000
    assert bench.files == [str(tmp_path / "vector-add-performance.csv"),
                           str(tmp_path / "vector-add-performance.png")]
    out = capsys.readouterr().out
    assert "vector-add-performance:" in out and "tilec" in out


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    b = run(out)
    print(f"perf_report wrote: {', '.join(b.files)} (plot by {b.plot_backend})")
