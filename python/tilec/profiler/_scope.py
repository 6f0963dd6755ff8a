"""Named scopes (Proton's `scope`, `enter_scope` / `exit_scope`): the launches inside one
are its children in the tree; its metrics (`{"flops16": ..., "bytes": ...}`) are added to
its frame each time it is entered, so the viewer derives its TFLOP/s and GB/s from them.

Work that is not a tilec launch (cuBLAS through torch, torch's own kernels) is timed by the
scope itself: when torch has CUDA up, CUDA events on the current stream bracket the scope,
and a scope that launched no tilec kernel gets their elapsed time as its own. (A scope
mixing both gets only its tilec kernels' times: the events would count them twice.)"""

from __future__ import annotations

import functools
import sys
import time

from . import _profile

_ids: list = []  # the ids enter_scope returned, innermost last
_timers: list = []  # per open scope: (events timer or None, _profile.launches at entry)
_counter = 0


def _device_timer():
    """CUDA events on torch's current stream, when torch has CUDA up and a session runs."""
    torch = sys.modules.get("torch")
    if torch is None or not _profile.active_sessions():
        return None
    try:
        if not torch.cuda.is_initialized():
            return None
    except Exception:  # noqa: BLE001 - a torch without CUDA
        return None
    return _profile._GpuTimer(None)


def enter_scope(name: str, *, triton_op: bool = False, metrics: dict | None = None) -> int:
    global _counter
    if not isinstance(name, str) or not name:
        raise ValueError(f"a scope needs a non-empty name, got {name!r}")
    _profile.scopes.append(name)
    for s in _profile.active_sessions():
        frame = s.frame_at(_profile.scopes)
        if metrics:
            frame.add(dict(metrics))
    _profile.sync()
    _counter += 1
    _ids.append(_counter)
    _timers.append((_device_timer(), _profile.launch_count()))
    return _counter


def exit_scope(name: str | None = None, *, triton_op: bool = False,
               metrics: dict | None = None) -> int:
    if not _profile.scopes:
        raise RuntimeError("exit_scope() without an open scope")
    if name is not None and name != _profile.scopes[-1]:
        raise RuntimeError(f"exit_scope({name!r}) but the innermost open scope is "
                           f"{_profile.scopes[-1]!r}")
    if metrics:
        for s in _profile.active_sessions():
            s.frame_at(_profile.scopes).add(dict(metrics))
    timer, launches = _timers.pop()
    if timer is not None and launches == _profile.launch_count():
        timer.stop()
        path = list(_profile.scopes)
        for s in _profile.active_sessions():
            _profile._pending.append((s, s.frame_at(path), path, timer.t0, timer, {}))
    _profile.scopes.pop()
    _profile.sync()
    return _ids.pop()


class scope:
    """`with proton.scope("matmul", {"flops16": 2 * M * N * K}):` or `@proton.scope("f")`."""

    def __init__(self, name: str, metrics: dict | None = None) -> None:
        self.name = name
        self.metrics = metrics

    def _enter(self):
        enter_scope(self.name, metrics=self.metrics)

    def _exit(self):
        exit_scope(self.name)

    def __enter__(self):
        self._enter()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self._exit()

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return wrapper


class cpu_timed_scope(scope):
    """A scope that also records the host time spent in it (metric "cpu_time (ns)")."""

    def _enter(self):
        super()._enter()
        self._t0 = time.perf_counter_ns()

    def _exit(self):
        ns = time.perf_counter_ns() - self._t0
        exit_scope(self.name, metrics={"cpu_time (ns)": ns})
