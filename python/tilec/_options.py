"""The options one compilation of a kernel is made with: what a launch's keywords
(`num_warps=8`, `debug=True`, ...) choose, `JITFunction._options` checks, and the compilers
(compiler/host.py, compiler/gpu.py) read. A leaf module: every path that compiles imports it.

It is a tuple (a NamedTuple) on purpose: it is part of the in-memory cache keys (`jit.cache`
by `(keys, options)`, `_gpu_kernels` by `(keys, options, arch)`), so it hashes and compares
by value, and equal to the plain tuple with the same fields in this order."""

from __future__ import annotations

from typing import NamedTuple, Optional


class CompileOptions(NamedTuple):
    """The launch options that change the compiled code. `maxnreg` None: no register limit
    (the C++ compilers take 0 for that: `maxnreg or 0`)."""

    num_warps: int = 4
    num_stages: int = 3
    debug: bool = False
    enable_fp_fusion: bool = True
    maxnreg: Optional[int] = None
    enable_reflect_ftz: bool = True  # tl.math.exp2 (f32) flushes subnormal results to 0

    def disk_cache_text(self) -> str:
        """The options as the GPU kernels' disk cache key spells them. The exact text is
        part of every key written so far: changing it orphans the kernels on disk."""
        return (f"num_warps={self.num_warps};num_stages={self.num_stages};"
                f"debug={int(bool(self.debug))};fp_fusion={int(self.enable_fp_fusion)};"
                f"maxnreg={self.maxnreg or 0}"
                + ("" if self.enable_reflect_ftz else ";reflect_ftz=0"))


__all__ = ["CompileOptions"]
