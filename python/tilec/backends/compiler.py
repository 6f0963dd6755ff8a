"""`triton.backends.compiler.GPUTarget`: what `driver.active.get_current_target()` returns."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class GPUTarget:
    backend: str  # "cuda", or "cpu" for the tile interpreter
    arch: int | str  # compute capability as an int (90 for sm_90); 0 on the CPU
    warp_size: int


__all__ = ["GPUTarget"]
