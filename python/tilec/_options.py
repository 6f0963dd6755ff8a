"""The options one compilation of a kernel is made with: what a launch's keywords
(`num_warps=8`, `debug=True`, ...) choose, `JITFunction._options` checks, and the compilers
(compiler/host.py, compiler/gpu.py) read. A leaf module: every path that compiles imports it.

It is a tuple (a NamedTuple) on purpose: it is part of the in-memory cache keys (`jit.cache`
by `(keys, options)`, `_gpu_kernels` by `(keys, options, arch)`), so it hashes and compares
by value, and equal to the plain tuple with the same fields in this order."""

from __future__ import annotations

import re
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


def capability_of(arch) -> int:
    """90 for "sm90" or "sm90a" (Triton's spelling of its `arch` option and of
    TRITON_OVERRIDE_ARCH), "sm_90a" (tilec's) or 90."""
    if isinstance(arch, int) and not isinstance(arch, bool) and arch > 0:
        return arch
    m = re.fullmatch(r"sm_?(\d+)a?", arch) if isinstance(arch, str) else None
    if not m:
        raise ValueError(f"arch must look like 'sm90', got {arch!r}")
    return int(m.group(1))


def check_num_ctas(num_ctas, cc: int) -> None:
    """Triton's check (its words): a cluster of CTAs needs Hopper."""
    if num_ctas is not None and num_ctas > 1 and cc < 90:
        raise ValueError(f"num_ctas > 1 requires NVIDIA SM90+ (Hopper). Current target is "
                         f"sm_{cc}. This configuration will fail. Please set num_ctas=1 or "
                         f"target an SM90+ GPU.")


__all__ = ["CompileOptions", "capability_of", "check_num_ctas"]
