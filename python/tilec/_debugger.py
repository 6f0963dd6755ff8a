"""pdb inside kernels: `breakpoint()` or `import pdb; pdb.set_trace()` in a @jit function
stops the tile interpreter (host arrays, or TILEC_INTERPRET=1) in pdb, with the kernel's
variables as numpy arrays (`p offsets`, `locals()`), the program id shown at each stop, and
pdb's stepping: `n` the next line, `s` into a called @jit function, `r` out of it, `c` on
to the next breakpoint() (the next program's, as each program stops at its own), `q`
ends the launch (bdb.BdbQuit). `u`/`d` and `w` walk the inlined calls. Programs run one at
a time, in order (x fastest); `if tl.program_id(0) == 3: breakpoint()` stops one only.

The interpreter stops at `breakpoint` ops (src/frontend/sema/SemaDebug.cpp) and calls
stop() below; pdb sees frames made for it, not Python's, since the kernel runs in C++."""

from __future__ import annotations

import ast
import linecache
import pdb
import re
import sys
import threading

import numpy as np

_NUMPY = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
          "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
          "fp16": np.float16, "fp32": np.float32, "fp64": np.float64, "ptr": np.uint64}

_state = threading.local()  # .kernel: the JITFunction launching (its globals), or None


class launching:
    """Context manager around a launch of `jitfn` that may stop: pdb's expressions then
    see the kernel's (and its callees') module globals."""

    def __init__(self, jitfn):
        self.jitfn = jitfn

    def __enter__(self):
        self.saved = getattr(_state, "kernel", None)
        _state.kernel = self.jitfn

    def __exit__(self, *exc):
        _state.kernel = self.saved


class _Repr:
    """A constexpr whose repr is not a Python literal (a dtype): shown as its repr."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


class _Code:
    def __init__(self, filename, name):
        self.co_filename = filename
        self.co_name = name
        self.co_flags = 0


class KernelFrame:
    """What pdb reads of a frame, for one (inlined) function of the kernel."""

    def __init__(self, name, filename, lineno, local_vars, global_vars, back):
        self.f_code = _Code(filename, name)
        self.f_lineno = lineno
        self.f_locals = local_vars
        self.f_globals = global_vars
        self.f_back = back
        self.f_trace = None

    def __repr__(self):
        return f"<kernel frame {self.f_code.co_name} line {self.f_lineno}>"


def _array(dtype, shape, data):
    a = np.frombuffer(data, dtype=_NUMPY[dtype]).reshape(shape).copy()
    return a[()] if a.ndim == 0 else a


def _constexpr(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return _Repr(text)


def _assign(out, name, value):
    """out[name] = value, where `name` may be a tuple leaf's path ("t.0.1")."""
    root, *path = name.split(".")
    if not path:
        out[root] = value
        return
    node = out.setdefault(root, {})
    for p in path[:-1]:
        node = node.setdefault(int(p), {})
    node[int(path[-1])] = value


def _tuples(v):
    if isinstance(v, dict):
        return tuple(_tuples(v[i]) for i in sorted(v))
    return v


def _globals_of(name):
    """The module globals of the @jit function `name` (the kernel or a callee)."""
    jitfn = getattr(_state, "kernel", None)
    if jitfn is None:
        return {}
    g = jitfn.fn.__globals__
    if name != jitfn.__name__:
        callee = g.get(name)
        inner = getattr(callee, "fn", None)
        if inner is not None and hasattr(inner, "__globals__"):
            return inner.__globals__
    return g


def frames_of(frames_text, values):
    """The KernelFrames of one stop, innermost last."""
    it = iter(values)
    back = None
    for line in frames_text.splitlines():
        fields = line.split("\t")
        name, filename, lineno, names = fields[:4]
        local_vars = {}
        for n in filter(None, names.split(",")):
            _assign(local_vars, n, _array(*next(it)))
        for c in fields[4:]:
            n, _, text = c.partition("=")
            _assign(local_vars, n, _constexpr(text))
        local_vars = {k: _tuples(v) for k, v in local_vars.items()}
        back = KernelFrame(name, filename, int(lineno), local_vars, _globals_of(name), back)
    return back


class KernelPdb(pdb.Pdb):
    """pdb over kernel frames: the stepping commands answer the interpreter."""

    def __init__(self, **kw):
        super().__init__(readrc=False, **kw)
        self.reset()  # bdb's per-session state (botframe, stop info), as set_trace would
        self.action = "continue"

    def _answer(self, action, arg=""):
        if arg:
            self.error(f"'{arg}': this command takes no argument in a kernel")
            return 0
        self.action = action
        return 1

    def do_next(self, arg):
        return self._answer("next", arg)

    def do_step(self, arg):
        return self._answer("step", arg)

    def do_return(self, arg):
        return self._answer("return", arg)

    def do_continue(self, arg):
        return self._answer("continue", arg)

    def do_quit(self, arg):
        self.action = "quit"
        return 1

    do_n = do_next
    do_s = do_step
    do_r = do_return
    do_c = do_cont = do_continue
    do_q = do_exit = do_EOF = do_quit

    def _unsupported(self, arg):
        self.error("not available in a kernel: use n, s, r, c or q to go on")

    do_until = do_unt = do_jump = do_j = do_break = do_b = do_tbreak = _unsupported
    do_debug = do_run = do_restart = _unsupported

    def do_longlist(self, arg):
        """ll: the whole (inlined) function of the current frame."""
        frame = self.curframe
        filename = frame.f_code.co_filename
        lines = linecache.getlines(filename, frame.f_globals)
        start = frame.f_lineno
        pattern = re.compile(r"\s*def\s+" + re.escape(frame.f_code.co_name) + r"\b")
        while start > 1 and not pattern.match(lines[start - 1] if start <= len(lines) else ""):
            start -= 1
        while start > 1 and lines[start - 2].lstrip().startswith("@"):
            start -= 1  # decorators
        end = frame.f_lineno
        indent = len(lines[start - 1]) - len(lines[start - 1].lstrip()) if lines else 0
        while end < len(lines) and (not lines[end].strip() or
                                    len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        while end > frame.f_lineno and not lines[end - 1].strip():
            end -= 1
        for n in range(start, end + 1):
            mark = "->" if n == frame.f_lineno else "  "
            self.message(f"{n:4d} {mark} {lines[n - 1].rstrip()}")

    do_ll = do_longlist


def stop(pid, grid, is_breakpoint, frames_text, values):
    """Called by the interpreter at each stop; returns how to go on."""
    frame = frames_of(frames_text, values)
    debugger = KernelPdb()
    where = "breakpoint()" if is_breakpoint else "stopped"
    debugger.message(f"[tilec] {where} in program {tuple(pid)} of grid {tuple(grid)}")
    sys.stdout.flush()
    debugger.interaction(frame, None)
    if debugger.action == "quit":
        import bdb

        raise bdb.BdbQuit
    return debugger.action
