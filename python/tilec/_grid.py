"""What every launch path normalises the same way: the grid (`kernel[grid]`: 1 to 3 ints,
or a callable of the launch's arguments) and the launch attributes Triton accepts beside
the kernel's own arguments. A leaf module: jit.py (the CPU path) and _gpu.py (the GPU
path) both import it."""

from __future__ import annotations

from .language import core

# The launch options the GPU launch passes to the driver as launch attributes (the CPU
# interpreter runs programs one after another, so they change nothing there).
LAUNCH_ATTRIBUTES = ("launch_cooperative_grid", "launch_pdl")


def normalize_grid(grid, meta):
    if callable(grid):
        grid = grid(meta)
    if isinstance(grid, (list, tuple)):
        dims = list(grid)
    else:
        dims = [grid]
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"the grid must have 1 to 3 dimensions, got {tuple(dims)!r}")
    out = []
    for d in dims:
        if isinstance(d, core.constexpr):
            d = d.value
        try:
            if isinstance(d, bool) or d != int(d):
                raise TypeError
            d = int(d)
        except (TypeError, ValueError):
            raise TypeError(f"grid dimensions must be ints, got {tuple(dims)!r}") from None
        if d < 0 or d >= 1 << 31:
            raise ValueError(f"grid dimensions must be in [0, 2**31), got {tuple(dims)!r}")
        out.append(d)
    while len(out) < 3:
        out.append(1)
    return tuple(out)
