"""Sessions and the launch observer. Every launch while a session is active becomes a
sample of a kernel frame under the open scopes (with `hook="triton"`, under a frame named
by the launch metadata's "name", which carries its flops*/bytes metrics): its count and
time.

GPU launches are sampled in C++ (src/runtime/LaunchProfile.h): two CUDA events on the
launch's stream, tagged with a context id naming the open scopes and active sessions, read
when the session is finalized. So launches keep the C++ fast path while a session runs;
only a kernel with a `launch_metadata` callback under `hook="triton"` goes through Python
(the observer below), which calls it and tags its launch with its own context. CPU
launches (tile interpreter, SIMT simulator) are timed by the observer: the wall time of
the launch, which returns when the kernel is done."""

from __future__ import annotations

import functools
import time

from .. import _C, _gpu, _hooks
from ..runtime.driver import driver
from ._data import TIME, SessionData

DEFAULT_PROFILE_NAME = "proton"
# launch metadata entries that are metrics (Proton's LaunchHook.metrics)
FLOPS_WIDTHS = (8, 16, 32, 64)
LAUNCH_METRICS = tuple(f"flops{w}" for w in FLOPS_WIDTHS) + ("bytes", "flops")

_sessions: dict = {}  # id -> SessionData
_next_id = 0
scopes: list = []  # names of the open scopes, outermost first (shared by all sessions)
_pending: list = []  # samples whose CUDA events are not read yet (scopes' own timers)
launches = 0  # CPU launches observed while a session was active
# The context ids of GPU samples: id -> (scopes, op, session ids, op metrics); 0 is unused.
_contexts: list = [None]
_context_ids: dict = {}  # (scopes, session ids) -> id, for launches without an op of theirs
_context = 0  # the id the C++ launch path tags samples with now


def launch_count() -> int:
    """Launches sampled so far, CPU and GPU (a scope that saw none times itself)."""
    return launches + _C.gpu_profile_count()


def _set_context(cid: int) -> None:
    global _context
    _context = cid
    _C.gpu_profile_context(cid)


def _new_context(op=None, user=None) -> int:
    _contexts.append((tuple(scopes), op, tuple(i for i, s in _sessions.items() if s.active),
                      user or {}))
    return len(_contexts) - 1


def sync() -> None:
    """Tells the C++ launch path whether to sample and under which context: after a session
    starts, pauses, resumes or ends, and after a scope opens or closes."""
    on = bool(active_sessions())
    _C.gpu_profile_enable(on)
    if on:
        key = (tuple(scopes), tuple(i for i, s in _sessions.items() if s.active))
        cid = _context_ids.get(key)
        if cid is None:
            cid = _context_ids[key] = _new_context()
        _set_context(cid)


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
    sync()
    return sid


def activate(session: int | None = None) -> None:
    for s in _select(session):
        s.active = True
    if active_sessions():
        _hooks.add_observer(OBSERVER)
    sync()


def deactivate(session: int | None = None) -> None:
    """Stops recording (the data stays until finalize)."""
    for s in _select(session):
        s.active = False
    if not active_sessions():
        _hooks.remove_observer(OBSERVER)
    sync()


def finalize(session: int | None = None, output_format: str = "") -> None:
    """Writes the session(s) (hatchet, or `output_format="chrome_trace"`) and ends them."""
    ids = list(_sessions) if session is None else [session]
    _select(session)  # an unknown id raises before anything is written
    _read_pending()
    for sid in ids:
        _sessions[sid].write(output_format)
        del _sessions[sid]
    if not active_sessions():
        _hooks.remove_observer(OBSERVER)
    if not _sessions:  # no sample refers to the contexts any more
        del _contexts[1:]
        _context_ids.clear()
    sync()


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
    """A scope's own device time (work that is not a tilec launch, _scope.py): torch CUDA
    events on the stream; without torch, the wall time between two device
    synchronisations. (tilec's GPU launches are timed in C++, runtime/LaunchProfile.)"""

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
            p = driver.active.utils.get_device_properties(int(index))
            major, minor = driver.active.get_device_capability()
            props = {"arch": f"{major}{minor}", "num_sms": p["multiprocessor_count"],
                     "clock_rate": p["sm_clock_rate"],
                     "memory_clock_rate": p["mem_clock_rate"], "bus_width": p["mem_bus_width"]}
        except Exception:  # noqa: BLE001 - the properties only label the file
            props = {}
    s.devices.setdefault(kind, {})[index] = props


class _Observer:
    """The Python half of sampling: CPU launches (timed here), and GPU launches that take the
    Python path (their C++ samples get the context of their launch metadata's op)."""

    def wants(self, jitfn) -> bool:
        """Whether launches of `jitfn` must come through Python (off the C++ fast path): a
        `launch_metadata` callback to call under a hook="triton" session."""
        return getattr(jitfn, "launch_metadata", None) is not None and \
            any(s.hook == "triton" for s in active_sessions())

    def enter(self, kernel, md, stream):
        global launches
        active = active_sessions()
        if not active:
            return None
        kind, index = _device_of(kernel)
        op, user = None, {}
        if any(s.hook == "triton" for s in active):
            data = md.get()  # runs the @jit function's launch_metadata callback
            op = str(data.get("name", kernel.name))
            user = {k: data[k] for k in LAUNCH_METRICS if k in data}
            for s in active:
                if s.hook == "triton" and user:
                    s.frame_at(scopes + [op]).add(user)
        if kind == "CUDA":  # sampled in C++, under this launch's own context
            if op is None:
                return None
            prev = _context
            _set_context(_new_context(op, user))
            return prev
        launches += 1
        return active, kernel.name, op, user, _CpuTimer(), kind, index, list(scopes)

    def exit(self, token):
        if token is None:
            return
        if isinstance(token, int):
            _set_context(token)
            return
        active, kname, op, user, timer, kind, index, path = token
        timer.stop()
        for s in active:
            p = list(path)
            if s.hook == "triton":
                p.append(op)
            p.append(kname)
            _record(s, p, kind, index, timer.t0, timer.ns, user)


def _record(s: SessionData, path, kind, index, start, ns, user) -> None:
    frame = s.frame_at(path)
    frame.add({"count": 1, "device_type": kind, "device_id": index})
    _describe_device(s, kind, index)
    if ns is not None and ns >= 0:
        frame.add({TIME: ns})
    if s.data == "trace":
        s.events.append((path, start, max(ns or 0, 0), user))


def _read_pending() -> None:
    """Adds the samples not read yet to their sessions: the C++ launch path's, then the
    scopes' own timers."""
    for kname, device, cid, start, ns in _C.gpu_profile_drain():
        if not 0 < cid < len(_contexts):  # taken outside any session's context
            continue
        scope_path, op, sids, user = _contexts[cid]
        for sid in sids:
            s = _sessions.get(sid)
            if s is None:  # finalized since (its data was written then)
                continue
            p = list(scope_path)
            if s.hook == "triton":
                p.append(kname if op is None else op)
            p.append(kname)
            _record(s, p, "CUDA", str(device), start, ns, user)
    while _pending:
        s, frame, path, start, timer, user = _pending.pop(0)
        ns = timer.read()
        frame.add({TIME: ns})
        if s.data == "trace":
            s.events.append((path, start, ns, user))


OBSERVER = _Observer()
