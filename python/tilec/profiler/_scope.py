"""Named scopes (Proton's `scope`, `enter_scope` / `exit_scope`): the launches inside one
are its children in the tree; its metrics (`{"flops16": ..., "bytes": ...}`) are added to
its frame each time it is entered, so the viewer derives its TFLOP/s and GB/s from them."""

from __future__ import annotations

import functools
import time

from . import _profile

_ids: list = []  # the ids enter_scope returned, innermost last
_counter = 0


def enter_scope(name: str, *, triton_op: bool = False, metrics: dict | None = None) -> int:
    global _counter
    if not isinstance(name, str) or not name:
        raise ValueError(f"a scope needs a non-empty name, got {name!r}")
    _profile.scopes.append(name)
    for s in _profile.active_sessions():
        frame = s.frame_at(_profile.scopes)
        if metrics:
            frame.add(dict(metrics))
    _counter += 1
    _ids.append(_counter)
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
    _profile.scopes.pop()
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
