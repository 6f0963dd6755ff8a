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
