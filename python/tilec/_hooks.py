"""What runs around a launch when someone watches: Triton's launch hooks
(`knobs.runtime.launch_enter_hook` / `launch_exit_hook`, given the launch metadata) and
tilec's profiler. While a launch hook is set, launches take the Python path: the GPU launch
fast path (`_gpu._dispatcher`, C++) is taken off every @jit function and not put back until
nothing watches any more. The profiler samples GPU launches in C++ and takes the fast path
off only the functions it must see in Python (observer.wants). Which functions have a fast
path is kept in _fastpath.py, where knobs (which this module reads) can reach it too."""

from __future__ import annotations

from . import _fastpath, knobs

_observers: list = []  # the profiler's launch observers (enter/exit, see profiler)


def _hook_set(h) -> bool:
    return bool(h.calls) if isinstance(h, knobs.HookChain) else h is not None


def watching() -> bool:
    """Whether a CPU launch must call hooks or observers (then it takes the Python path)."""
    return bool(_observers) or _hook_set(knobs.runtime.launch_enter_hook) or \
        _hook_set(knobs.runtime.launch_exit_hook)


def watching_gpu(jitfn) -> bool:
    """Whether a GPU launch of `jitfn` must take the Python path: a launch hook is set, or
    an observer wants to see it there."""
    return _hook_set(knobs.runtime.launch_enter_hook) or \
        _hook_set(knobs.runtime.launch_exit_hook) or any(o.wants(jitfn) for o in _observers)


def add_observer(obs) -> None:
    """Adds `obs` (enter/exit around each launch it sees, wants(jitfn): whether GPU launches
    of jitfn must come through Python) and takes the fast path off what it wants."""
    if obs not in _observers:
        _observers.append(obs)
    _fastpath.drop(obs.wants)


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
