"""Benchmarking and comparison helpers (`triton.testing`): CUDA-event timings with CUDA
tensors, the wall clock otherwise; perf_report tables, CSV files and PNG plots."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

import numpy as np

from . import _C, _plot, _utils


def _to_numpy(x):
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch tensor
        x = x.detach().cpu()
        if str(x.dtype) == "torch.bfloat16":
            x = x.float()
        return x.numpy()
    return np.asarray(x)


def _torch_cuda():
    """torch, when the caller works with CUDA tensors (torch imported and CUDA initialised):
    then timings come from CUDA events, as in Triton. Otherwise the wall clock."""
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
            return torch
    except Exception:
        pass
    return None


def _summarise(times, quantiles, return_mode):
    if quantiles is not None:
        qs = [float(np.quantile(times, q)) for q in quantiles]
        return qs[0] if len(qs) == 1 else qs
    if return_mode == "all":
        return list(times)
    if return_mode == "median":
        return statistics.median(times)
    return {"min": min, "max": max, "mean": statistics.fmean}[return_mode](times)


def _check_mode(return_mode):
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError(f"return_mode must be min, max, mean, median or all, got {return_mode}")


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Runs `fn` repeatedly and returns its time in milliseconds.

    With CUDA tensors (torch) each run is timed with CUDA events after an L2 flush (a
    256 MB buffer is zeroed between runs), as Triton does; otherwise with the wall clock.
    The first call (which may compile) is not timed; then enough calls to fill about
    `warmup` ms are run untimed and about `rep` ms timed (at least one). With
    `quantiles`, returns those quantiles of the timings (a single value for one);
    otherwise the statistic named by return_mode (min, max, mean, median, all)."""
    _check_mode(return_mode)
    torch = _torch_cuda()
    if torch is not None:
        return _do_bench_cuda(torch, fn, warmup, rep, grad_to_none, quantiles, return_mode)
    fn()
    start = time.perf_counter()
    fn()
    estimate_ms = max((time.perf_counter() - start) * 1e3, 1e-6)
    n_warmup = min(max(int(warmup / estimate_ms), 0), 10000)
    n_rep = min(max(int(rep / estimate_ms), 1), 10000)
    for _ in range(n_warmup):
        fn()
    times = []
    for _ in range(n_rep):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return _summarise(times, quantiles, return_mode)


def _do_bench_cuda(torch, fn, warmup, rep, grad_to_none, quantiles, return_mode):
    fn()
    torch.cuda.synchronize()
    cache = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")  # > L2
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate_ms = max(start.elapsed_time(end) / 5, 1e-6)
    n_warmup = min(max(int(warmup / estimate_ms), 1), 100000)
    n_rep = min(max(int(rep / estimate_ms), 1), 100000)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_rep)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_rep)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_rep):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return _summarise(times, quantiles, return_mode)


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Asserts that x and y (arrays, tensors or scalars) are elementwise close."""
    a = _to_numpy(x)
    b = _to_numpy(y)
    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    atol = atol(a.dtype) if callable(atol) else atol
    rtol = rtol(a.dtype) if callable(rtol) else rtol
    if a.shape != b.shape and a.size != 1 and b.size != 1:
        raise AssertionError(f"{err_msg} shapes differ: {a.shape} vs {b.shape}".strip())
    np.testing.assert_allclose(a.astype(np.float64) if a.dtype.kind == "f" else a,
                               b.astype(np.float64) if b.dtype.kind == "f" else b,
                               atol=atol, rtol=rtol, err_msg=err_msg, equal_nan=True)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Times `fn` replayed from a CUDA graph (no launch overhead), as Triton does: the graph
    holds enough calls to fill about `rep` ms and is replayed 10 times; the time per call is
    reported. Needs torch with CUDA; otherwise the same as do_bench on the wall clock."""
    _check_mode(return_mode)
    torch = _torch_cuda()
    if torch is None:
        return do_bench(fn, warmup=0, rep=rep, grad_to_none=grad_to_none, quantiles=quantiles,
                        return_mode=return_mode)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        fn()  # compiles and loads outside the capture
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(5):
                fn()
        torch.cuda.synchronize()
        start.record()
        g.replay()
        end.record()
        torch.cuda.synchronize()
        estimate_ms = max(start.elapsed_time(end) / 5, 1e-6)
        n_calls = min(max(int(rep / estimate_ms), 1), 1000)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(n_calls):
                if grad_to_none is not None:
                    for x in grad_to_none:
                        x.grad = None
                fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            start.record()
            g.replay()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / n_calls)
    return _summarise(times, quantiles, return_mode)


class Benchmark:
    """One benchmark of `perf_report`: a function evaluated at every x in `x_vals` for
    every provider in `line_vals` (Triton's fields; plot styling fields are kept)."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args,
                 xlabel="", ylabel="", x_log=False, y_log=False, styles=None):
        self.x_names = list(x_names)
        self.x_vals = list(x_vals)
        self.line_arg = line_arg
        self.line_vals = list(line_vals)
        self.line_names = list(line_names)
        self.plot_name = plot_name
        self.args = dict(args)
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.x_log = x_log
        self.y_log = y_log
        self.styles = styles


class Mark:
    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _run_one(self, bench: Benchmark, show_plots: bool, print_data: bool, save_path: str,
                 **kwargs):
        header = list(bench.x_names) + list(bench.line_names)
        rows = []
        for x in bench.x_vals:
            xs = x if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            xargs = dict(zip(bench.x_names, xs))
            row = list(xs)
            for line in bench.line_vals:
                r = self.fn(**xargs, **{bench.line_arg: line}, **bench.args, **kwargs)
                row.append(r[0] if isinstance(r, (list, tuple)) else r)
            rows.append(row)
        text = "\n".join([bench.plot_name + ":", "  ".join(f"{h:>12}" for h in header)] +
                         ["  ".join(f"{v:>12.6g}" if isinstance(v, float) else f"{v!s:>12}"
                                    for v in row) for row in rows])
        if print_data:
            print(text, flush=True)
        self.files = getattr(self, "files", [])
        png = None
        if save_path:
            os.makedirs(save_path, exist_ok=True)
            csv = os.path.join(save_path, f"{bench.plot_name}.csv")
            with open(csv, "w") as f:
                f.write(",".join(map(str, header)) + "\n")
                for row in rows:
                    f.write(",".join(map(str, row)) + "\n")
            png = os.path.join(save_path, f"{bench.plot_name}.png")
            self.files += [csv, png]
        if png or show_plots:
            n_x = len(bench.x_names)
            xs = [row[0] for row in rows]
            styles = list(bench.styles or [])
            lines = [(name, [_as_float(row[n_x + i]) for row in rows],
                      styles[i] if i < len(styles) else None)
                     for i, name in enumerate(bench.line_names)]
            self.plot_backend = _plot.plot(bench, xs, lines, png, show=show_plots,
                                           backend=self.plot_backend_override)
        return header, rows

    plot_backend_override = None  # "matplotlib" or "builtin" forces one (tests)

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """Evaluates every benchmark; prints each table with print_data; with save_path
        writes `<plot_name>.csv` and a `<plot_name>.png` plot there (matplotlib when it is
        installed, else tilec's built-in rasteriser); show_plots shows the figure
        (matplotlib only). return_df: a pandas DataFrame per benchmark when pandas is
        installed, else its (header, rows)."""
        self.files = []
        benches = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        tables = [self._run_one(b, show_plots, print_data, save_path, **kwargs)
                  for b in benches]
        if return_df:
            try:
                import pandas as pd

                tables = [pd.DataFrame(rows, columns=header) for header, rows in tables]
            except ImportError:
                pass
            return tables[0] if len(tables) == 1 else tables
        return None


def _as_float(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def perf_report(benchmarks):
    """Decorator: `@perf_report(Benchmark(...))` turns a function of (x, provider) into a
    Mark whose .run() evaluates it over the grid of the benchmark."""

    def decorator(fn):
        return Mark(fn, benchmarks)

    return decorator


# -- the GPU's peak numbers (Triton's roofline helpers), from the CUDA driver ---------------

def nvsmi(attrs):
    """The integer values of nvidia-smi's query fields `attrs` (e.g. ["clocks.max.sm"]) for
    GPU 0."""
    cmd = ["nvidia-smi", "-i", "0", "--query-gpu=" + ",".join(attrs),
           "--format=csv,noheader,nounits"]
    try:
        out = subprocess.check_output(cmd)
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError(f"nvsmi: cannot run nvidia-smi ({e}); it needs an NVIDIA GPU and "
                           "its driver") from None
    return [int(x) for x in out.decode().split(",")]


def _gpu_props(device) -> dict:
    ok, why = _C.gpu_driver_available() if hasattr(_C, "gpu_driver_available") else \
        (False, "tilec was built without its GPU runtime")
    if not ok or _C.gpu_device_count() == 0:
        raise RuntimeError("this needs an NVIDIA GPU, and tilec finds none here"
                           + (f": {why}" if why else ""))
    if device is None:
        torch = sys.modules.get("torch")
        device = torch.cuda.current_device() if torch is not None else \
            _C.gpu_current_device()
    return _C.gpu_device_props(int(getattr(device, "index", device) or 0))


def get_dram_gbps(device=None) -> float:
    """The DRAM bandwidth of `device` (default: the current one) in GB/s."""
    p = _gpu_props(device)
    return p["mem_clock_rate"] * p["mem_bus_width"] * 2 / 1e6 / 8  # kHz * bits, double rate


def _ops_per_subcore(dtype, capability, table) -> int:
    name = _utils.canonicalize_dtype(dtype)
    for names, ops in table[capability[0] >= 8]:
        if name in names:
            return ops
    raise RuntimeError(f"dtype {dtype} not supported on compute capability {capability}")


_TENSORCORE_OPS = {  # per sub-core and clock: (Volta / Turing, Ampere and later)
    False: ((("fp16",), 256),),
    True: ((("fp32", "i32"), 256), (("fp16", "bf16", "i16"), 512),
           (("i8", "fp8e4nv", "fp8e4b15", "fp8e5"), 1024)),
}
_SIMD_OPS = {
    False: ((("fp32",), 32), (("fp16",), 64)),
    True: ((("fp32",), 32), (("fp16", "bf16"), 64)),
}


def _peak_tflops(dtype, clock_rate, device, table) -> float:
    p = _gpu_props(device)
    ops = _ops_per_subcore(dtype, tuple(p["capability"]), table)
    return p["multiprocessor_count"] * 4 * clock_rate * ops * 1e-9


def get_max_tensorcore_tflops(dtype, clock_rate, device=None) -> float:
    """Peak tensor-core TFLOPS for `dtype` (torch or tl) at `clock_rate` kHz."""
    return _peak_tflops(dtype, clock_rate, device, _TENSORCORE_OPS)


def get_max_simd_tflops(dtype, clock_rate, device=None) -> float:
    """Peak FMA-unit TFLOPS for `dtype` (torch or tl) at `clock_rate` kHz."""
    return _peak_tflops(dtype, clock_rate, device, _SIMD_OPS)
