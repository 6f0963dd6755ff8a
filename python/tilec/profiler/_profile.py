"""Sessions and the launch observer. Every launch while a session is active becomes a
sample of a kernel frame under the open scopes (with `hook="triton"`, under a frame named
by the launch metadata's "name", which carries its flops*/bytes metrics): its count and
time. GPU launches are timed by CUDA events recorded on the launch's stream (torch) and read
when the session is finalized; CPU launches (tile interpreter, SIMT simulator) by the wall
time of the launch, which returns when the kernel is done."""

from __future__ import annotations

import functools
import time

from .. import _gpu, _hooks
from ._data import TIME, SessionData

DEFAULT_PROFILE_NAME = "proton"
# launch metadata entries that are metrics (Proton's LaunchHook.metrics)
FLOPS_WIDTHS = (8, 16, 32, 64)
LAUNCH_METRICS = tuple(f"flops{w}" for w in FLOPS_WIDTHS) + ("bytes", "flops")

_sessions: dict = {}  # id -> SessionData
_next_id = 0
scopes: list = []  # names of the open scopes, outermost first (shared by all sessions)
_pending: list = []  # GPU samples whose events are not read yet
launches = 0  # launches observed while a session was active (scopes compare counts)


def _select(session):
    if session is None:
        return list(_sessions.values())
    if session not in _sessions:
        raise ValueError(f"no profiling session {session} (sessions: {sorted(_sessions)})")
    return [_sessions[session]]


def active_sessions() -> list:
    return [s for s in _sessions.values() if s.active]


def start(name: str | None = None, *, context: str = "shadow", data: str = "tree",
          backend: str | None = None, mode=None, hook: str | None = None) -> int:
    """Starts (and activates) a session writing to NAME.hatchet (default ./proton): its id.
    `hook="triton"` adds what each kernel's `launch_metadata` returns (a frame named by its
    "name", with its flops8/16/32/64 and bytes). `context`, `backend` and `mode` are
    accepted for Proton's signature: tilec has one way to time launches."""
    global _next_id
    if data not in ("tree", "trace"):
        raise ValueError(f"data must be 'tree' or 'trace', got {data!r}")
    if hook not in (None, "triton", "launch"):
        raise ValueError(f"hook must be None or 'triton', got {hook!r}")
    sid = _next_id
    _next_id += 1
    _sessions[sid] = SessionData(DEFAULT_PROFILE_NAME if name is None else name, data,
                                 "triton" if hook == "launch" else hook)
    _hooks.add_observer(OBSERVER)
    return sid


def activate(session: int | None = None) -> None:
    for s in _select(session):
        s.active = True
    if active_sessions():
        _hooks.add_observer(OBSERVER)


def deactivate(session: int | None = None) -> None:
    """Stops recording (the data stays until finalize)."""
    for s in _select(session):
        s.active = False
    if not active_sessions():
        _hooks.remove_observer(OBSERVER)


def finalize(session: int | None = None, output_format: str = "") -> None:
    """Writes the session(s) (hatchet, or `output_format="chrome_trace"`) and ends them."""
    _read_pending()
    ids = list(_sessions) if session is None else [session]
    for sid in ids:
        s = _select(sid)[0]
        s.write(output_format)
        del _sessions[sid]
    if not active_sessions():
        _hooks.remove_observer(OBSERVER)


def profile(func=None, *, name: str | None = None, context: str = "shadow",
            data: str = "tree", backend: str | None = None, mode=None, hook=None):
    """Decorator: the function runs inside its own session, finalized when it returns."""

    def decorator(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            sid = start(name or f.__name__, context=context, data=data, backend=backend,
                        mode=mode, hook=hook)
            try:
                return f(*args, **kwargs)
            finally:
                finalize(sid)

        return wrapper

    return decorator(func) if func is not None else decorator


# ---------------------------------------------------------------------------------------
# timing a launch


class _CpuTimer:
    def __init__(self):
        self.t0 = time.perf_counter_ns()
        self.ns = None

    def stop(self):
        self.ns = time.perf_counter_ns() - self.t0


class _GpuTimer:
    """CUDA events around the launch on its stream; without torch, the wall time between
    two device synchronisations."""

    def __init__(self, stream):
        self.ns = None
        self.t0 = time.perf_counter_ns()
        try:
            import torch
        except ImportError:
            torch = None
        if torch is None or not torch.cuda.is_available():
            _gpu.synchronize()
            self.start = None
            self.t0 = time.perf_counter_ns()
            return
        if stream is None:
            s = torch.cuda.current_stream()
        elif isinstance(stream, int):
            s = torch.cuda.ExternalStream(stream)
        else:
            s = stream
        self.stream = s
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)
        self.start.record(s)

    def stop(self):
        if self.start is None:
            _gpu.synchronize()
            self.ns = time.perf_counter_ns() - self.t0
        else:
            self.end.record(self.stream)

    def read(self) -> int:
        if self.ns is None:
            self.end.synchronize()
            self.ns = int(round(self.start.elapsed_time(self.end) * 1e6))
        return self.ns


def _device_of(kernel):
    if isinstance(kernel, _gpu.GpuCompiledKernel):
        return "CUDA", str(getattr(kernel._native, "device", 0) or 0)
    return "CPU", "0"


def _describe_device(s: SessionData, kind: str, index: str) -> None:
    if index in s.devices.get(kind, {}):
        return
    props = {}
    if kind == "CUDA":
        try:
            from ..runtime.driver import driver

            p = driver.active.utils.get_device_properties(int(index))
            major, minor = driver.active.get_device_capability()
            props = {"arch": f"{major}{minor}", "num_sms": p["multiprocessor_count"],
                     "clock_rate": p["sm_clock_rate"],
                     "memory_clock_rate": p["mem_clock_rate"], "bus_width": p["mem_bus_width"]}
        except Exception:  # noqa: BLE001 - the properties only label the file
            props = {}
    s.devices.setdefault(kind, {})[index] = props


class _Observer:
    def enter(self, kernel, md, stream):
        global launches
        active = active_sessions()
        if not active:
            return None
        launches += 1
        kind, index = _device_of(kernel)
        op, user = None, {}
        if any(s.hook == "triton" for s in active):
            data = md.get()  # runs the @jit function's launch_metadata callback
            op = str(data.get("name", kernel.name))
            user = {k: data[k] for k in LAUNCH_METRICS if k in data}
        timer = _GpuTimer(stream) if kind == "CUDA" else _CpuTimer()
        return active, kernel.name, op, user, timer, kind, index, list(scopes)

    def exit(self, token):
        if token is None:
            return
        active, kname, op, user, timer, kind, index, path = token
        timer.stop()
        start = timer.t0
        for s in active:
            p = list(path)
            if s.hook == "triton":
                s.frame_at(p + [op]).add(user)
                p.append(op)
            p.append(kname)
            frame = s.frame_at(p)
            frame.add({"count": 1, "device_type": kind, "device_id": index})
            _describe_device(s, kind, index)
            sample = (s, frame, p, start, timer, user)
            if timer.ns is None:
                _pending.append(sample)
            else:
                _record(sample)


def _record(sample) -> None:
    s, frame, path, start, timer, user = sample
    ns = timer.ns if timer.ns is not None else timer.read()
    frame.add({TIME: ns})
    if s.data == "trace":
        s.events.append((path, start, ns, user))


def _read_pending() -> None:
    while _pending:
        _record(_pending.pop(0))


OBSERVER = _Observer()
