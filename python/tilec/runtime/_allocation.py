"""`triton.set_allocator(fn)` (`triton.runtime._allocation`): Triton needs global scratch
memory for tensor descriptors made inside kernels on GPUs (TMA descriptors are written
there) and asks the user for an allocator `fn(size, alignment, stream) -> buffer`. tilec's
descriptors are plain address arithmetic and need no scratch memory: the allocator is
accepted and remembered per context (a ContextVar, as in Triton), so code written for
Triton runs unchanged, but tilec never calls it."""

from __future__ import annotations

import contextvars
from typing import Optional, Protocol


class Buffer(Protocol):
    def data_ptr(self) -> int:
        ...


class Allocator(Protocol):
    def __call__(self, size: int, alignment: int, stream: Optional[int]) -> Buffer:
        ...


class NullAllocator:
    """The allocator in place until one is set: a kernel that needs memory fails."""

    def __call__(self, size: int, alignment: int, stream: Optional[int]) -> Buffer:
        raise RuntimeError("this kernel needs a run-time memory allocation but no allocator "
                           "was set: call triton.set_allocator")


_NULL_ALLOCATOR = NullAllocator()
_allocator: contextvars.ContextVar = contextvars.ContextVar("_allocator",
                                                            default=_NULL_ALLOCATOR)
# Proton's profiling scratch memory (Triton's second allocator); also never called here
_profile_allocator: contextvars.ContextVar = contextvars.ContextVar("_profile_allocator",
                                                                    default=_NULL_ALLOCATOR)


def set_allocator(allocator: Optional[Allocator]) -> None:
    """Remembers `allocator` (a callable `(size, alignment, stream) -> buffer`; None puts
    the NullAllocator back); tilec never calls it."""
    if allocator is not None and not callable(allocator):
        raise TypeError(f"set_allocator expects a callable (size, alignment, stream) or None, "
                        f"got {type(allocator).__name__}")
    _allocator.set(_NULL_ALLOCATOR if allocator is None else allocator)


def get_allocator() -> Allocator:
    """The allocator last given to set_allocator in this context (NullAllocator when none
    was)."""
    return _allocator.get()


def set_profile_allocator(allocator: Optional[Allocator]) -> None:
    _profile_allocator.set(_NULL_ALLOCATOR if allocator is None else allocator)


__all__ = ["Buffer", "Allocator", "NullAllocator", "set_allocator", "get_allocator",
           "set_profile_allocator"]
