"""`triton.set_allocator(fn)`: Triton needs global scratch memory for tensor descriptors
made inside kernels on GPUs (TMA descriptors are written there) and asks the user for an
allocator `fn(size, alignment, stream)`. tilec's descriptors are plain address arithmetic
and need no scratch memory: the allocator is accepted and remembered (so code written for
Triton runs unchanged), but never called."""

from __future__ import annotations

_allocator = None


def set_allocator(allocator):
    """Remembers `allocator` (a callable `(size, alignment, stream) -> buffer`, or None);
    tilec never calls it."""
    global _allocator
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator expects a callable (size, alignment, stream) or None, "
                        f"got {type(allocator).__name__}")
    _allocator = allocator


def get_allocator():
    """The allocator last given to set_allocator (None when none was)."""
    return _allocator


__all__ = ["set_allocator", "get_allocator"]
