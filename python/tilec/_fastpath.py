"""The @jit functions whose GPU launches bind in C++ (the launch fast path that
`_gpu._dispatcher` installs as `jitfn._gpu_dispatch`), and taking that path off them.

Whatever must see launches in Python takes it off: a launch hook set in `knobs`, the
interpreter switch of a driver, the profiler's observer (`_hooks`). A leaf module, so that
those can all reach it without importing the launch path (which imports them)."""

from __future__ import annotations

import weakref

_fast_paths: "weakref.WeakSet" = weakref.WeakSet()  # @jit functions with a fast path


def add(jitfn) -> None:
    """Records that `jitfn` has a fast path now (its `_gpu_dispatch` is set)."""
    _fast_paths.add(jitfn)


def drop(wanted=None) -> None:
    """Takes the fast path off every @jit function that has one, or off those for which
    `wanted(jitfn)` is true; their launches come through Python until a launch puts it back."""
    for fn in list(_fast_paths):
        if wanted is None or wanted(fn):
            fn.__dict__.pop("_gpu_dispatch", None)
            _fast_paths.discard(fn)


__all__ = ["add", "drop"]
