"""Benchmarking and comparison helpers (`triton.testing`), wall-clock based on the CPU."""

from __future__ import annotations

import statistics
import time

import numpy as np


def _to_numpy(x):
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch tensor
        x = x.detach().cpu()
        if str(x.dtype) == "torch.bfloat16":
            x = x.float()
        return x.numpy()
    return np.asarray(x)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Runs `fn` repeatedly and returns its time in milliseconds (wall clock).

    The first call (which may compile) is not timed; then enough calls to fill about
    `warmup` ms are run untimed and about `rep` ms timed (at least one). With
    `quantiles`, returns those quantiles of the timings (a single value for one);
    otherwise the statistic named by return_mode (min, max, mean, median, all)."""
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError(f"return_mode must be min, max, mean, median or all, got {return_mode}")
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
    if quantiles is not None:
        qs = [float(np.quantile(times, q)) for q in quantiles]
        return qs[0] if len(qs) == 1 else qs
    if return_mode == "all":
        return times
    if return_mode == "median":
        return statistics.median(times)
    return {"min": min, "max": max, "mean": statistics.fmean}[return_mode](times)


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
    """Triton's CUDA-graph benchmark; on the CPU the same as do_bench."""
    return do_bench(fn, warmup=0, rep=rep, grad_to_none=grad_to_none, quantiles=quantiles,
                    return_mode=return_mode)


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

    def _run_one(self, bench: Benchmark, print_data: bool, save_path: str, **kwargs):
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
            print(text)
        if save_path:
            import os

            os.makedirs(save_path, exist_ok=True)
            with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w") as f:
                f.write(",".join(map(str, header)) + "\n")
                for row in rows:
                    f.write(",".join(map(str, row)) + "\n")
        return header, rows

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """Evaluates every benchmark; prints tables with print_data, writes CSV files to
        save_path. Plots are not drawn (no plotting dependency); return_df returns the
        (header, rows) tables."""
        benches = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        tables = [self._run_one(b, print_data, save_path, **kwargs) for b in benches]
        if return_df:
            return tables[0] if len(tables) == 1 else tables
        return None


def perf_report(benchmarks):
    """Decorator: `@perf_report(Benchmark(...))` turns a function of (x, provider) into a
    Mark whose .run() evaluates it over the grid of the benchmark."""

    def decorator(fn):
        return Mark(fn, benchmarks)

    return decorator
