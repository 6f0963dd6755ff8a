"""`triton.set_allocator(fn)` (`triton.runtime._allocation`): global scratch memory for the
TMA tensor maps a kernel builds (a `tl.make_tensor_descriptor` whose blocks a K loop copies
by TMA on an sm_90 GPU: 128 bytes a map, per program). Each launch of such a kernel asks
the allocator set in this context (a ContextVar, as in Triton) for `fn(size, 128, stream)`
and passes the buffer's `data_ptr()` to the kernel, as Triton does. Unlike Triton, a launch
with no allocator set does not fail: tilec then takes stream-ordered memory from the driver
for it (runtime/LaunchScratch.h). Kernels without such maps never call it."""

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
    """The allocator in place until one is set (tilec's launches then allocate themselves;
    called directly, it fails as Triton's does)."""

    def __call__(self, size: int, alignment: int, stream: Optional[int]) -> Buffer:
        raise RuntimeError("this kernel needs a run-time memory allocation but no allocator "
                           "was set: call triton.set_allocator")


_NULL_ALLOCATOR = NullAllocator()
_allocator: contextvars.ContextVar = contextvars.ContextVar("_allocator",
                                                            default=_NULL_ALLOCATOR)
# Proton's profiling scratch memory (Triton's second allocator); never called here
_profile_allocator: contextvars.ContextVar = contextvars.ContextVar("_profile_allocator",
                                                                    default=_NULL_ALLOCATOR)


def set_allocator(allocator: Optional[Allocator]) -> None:
    """Remembers `allocator` (a callable `(size, alignment, stream) -> buffer`; None puts
    the NullAllocator back) for the launches of this context."""
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
