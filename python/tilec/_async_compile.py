"""`triton.AsyncCompileMode` / `triton.FutureKernel` (Triton 3.6): inside

    with triton.AsyncCompileMode(executor):
        k.warmup(...)          # a FutureKernel; the compile runs on `executor`

each compile a launch or warm-up would do is handed to the executor instead, once per
specialisation (the same one asked again gets the same FutureKernel). A launch waits for
its own kernel; leaving the block waits for all of them, which then sit in the JIT's
caches as if compiled in place (a compile error is raised there, unless ignore_errors).
The compiles themselves are tilec's usual ones (_jit_cache.compile)."""

from __future__ import annotations

from concurrent.futures import Executor, Future, as_completed
from contextvars import ContextVar
from typing import Callable, Optional

active_mode: ContextVar[Optional["AsyncCompileMode"]] = ContextVar(
    "async_compile_active_mode", default=None)


class FutureKernel:
    """A compile in flight: `result()` waits for it and files the kernel (once)."""

    def __init__(self, finalize_compile: Callable, future: Future):
        self.finalize_compile = finalize_compile
        self.future = future
        self.kernel = None

    def result(self, ignore_errors: bool = False):
        if self.kernel is None:
            try:
                kernel = self.future.result()
            except Exception:
                if ignore_errors:
                    return None
                raise
            self.finalize_compile(kernel)
            self.kernel = kernel
        return self.kernel


class AsyncCompileMode:
    """The context manager (one active at a time)."""

    def __init__(self, executor: Executor, *, ignore_errors=False):
        self.executor = executor
        self.ignore_errors = ignore_errors
        self.raw_futures = []
        self.future_kernels = {}

    def submit(self, key, compile_fn, finalize_fn) -> FutureKernel:
        pending = self.future_kernels.get(key)
        if pending is not None:
            return pending
        future = self.executor.submit(compile_fn)
        future._tilec_key = key
        self.raw_futures.append(future)
        pending = self.future_kernels[key] = FutureKernel(finalize_fn, future)
        return pending

    def __enter__(self):
        if active_mode.get() is not None:
            raise RuntimeError("Another AsyncCompileMode is already active")
        active_mode.set(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        try:
            for future in as_completed(self.raw_futures):
                self.future_kernels[future._tilec_key].result(self.ignore_errors)
        finally:
            active_mode.set(None)


__all__ = ["AsyncCompileMode", "FutureKernel", "active_mode"]
