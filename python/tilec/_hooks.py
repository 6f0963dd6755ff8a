"""What runs around a launch when someone watches: Triton's launch hooks
(`knobs.runtime.launch_enter_hook` / `launch_exit_hook`, given the launch metadata) and
tilec's profiler. While either is set, launches take the Python path: the GPU launch fast
path (`_gpu._dispatcher`, C++) is taken off every @jit function and not put back until
nothing watches any more."""

from __future__ import annotations

import weakref

from . import knobs

_observers: list = []  # the profiler's launch observers (enter/exit, see profiler)
_fast_paths: "weakref.WeakSet" = weakref.WeakSet()  # @jit functions with a fast path


def _hook_set(h) -> bool:
    return bool(h.calls) if isinstance(h, knobs.HookChain) else h is not None


def watching() -> bool:
    """Whether a launch must call hooks or observers (then it takes the Python path)."""
    return bool(_observers) or _hook_set(knobs.runtime.launch_enter_hook) or \
        _hook_set(knobs.runtime.launch_exit_hook)


def drop_fast_paths() -> None:
    """Takes the C++ launch fast path off every @jit function (a hook was just added)."""
    for fn in list(_fast_paths):
        fn.__dict__.pop("_gpu_dispatch", None)
    _fast_paths.clear()


def add_observer(obs) -> None:
    if obs not in _observers:
        _observers.append(obs)
    drop_fast_paths()


def remove_observer(obs) -> None:
    if obs in _observers:
        _observers.remove(obs)


def launch(kernel, grid, stream, values, go):
    """Runs `go()` (the launch) between the hooks and observers. `values` are the @jit
    function's bound arguments (what a `launch_metadata` callback receives by name)."""
    md = kernel.launch_metadata(grid, stream, *values)
    enter, leave = knobs.runtime.launch_enter_hook, knobs.runtime.launch_exit_hook
    if _hook_set(enter):
        enter(md)
    tokens = [(obs, obs.enter(kernel, md, stream)) for obs in list(_observers)]
    try:
        return go()
    finally:
        for obs, token in reversed(tokens):
            obs.exit(token)
        if _hook_set(leave):
            leave(md)
