"""Exceptions tilec raises. The C++ bindings construct these (see python/src/Errors.cpp)."""

from __future__ import annotations

import re
import textwrap

_LOCATION = re.compile(r"^(.+?):(\d+):(\d+): error: ")


class TritonError(Exception):
    """Base of the errors Triton code catches (`triton.TritonError`); tilec's errors
    derive from it through TilecError."""


class TilecError(TritonError):
    """Base of tilec's own exceptions."""


class CompilationError(TilecError):
    """A user error in a kernel, found while compiling it.

    str(e) has Triton's layout: `at L:C:` (the line from the function's `def`, which is
    line 1, and the 0-based column) with the absolute `file:line:col` beside it, the
    function's source up to that line, a caret, and the message last. `message` is the
    bare message; `file`, `line` (absolute, in the user's file) and `col` (1-based) locate
    the error itself (None when it has no location); `rendered` is the one-line form
    `file:line:col: error: message` with the source line and a caret. An error inside a
    called @jit function is raised at the kernel's call, its `__cause__` the error at the
    next call down, and so on to the error itself (as Triton chains them); `frames` lists
    (file, line, col, function source, its first line), the error's first."""

    def __init__(self, rendered: str, message: str | None = None, file: str | None = None,
                 line: int | None = None, col: int | None = None, frames=None):
        super().__init__(rendered)
        self.rendered = rendered
        self.message = message if message is not None else rendered
        self.file = file
        self.line = line
        self.col = col
        self.frames = list(frames or ())
        # Triton's CompilationError has `src`, `node` (an AST node) and `error_message`
        self.error_message = self.message
        self.src = None
        self.node = None

    def __str__(self):
        if not self.frames:
            return self.rendered.rstrip("\n")
        return _triton_layout(self.frames[-1], self.message)


_EXCERPT_LINES = 12  # Triton's source_line_count_max_in_message


def _triton_layout(frame, message: str) -> str:
    """`at L:C: file:line:col`, the function's lines from its def to L, a caret under C,
    then the message."""
    file, line, col, text, first_line = frame
    raw = text.split("\n")
    lines = textwrap.dedent(text).split("\n")
    at = line - first_line  # index of the error's line in the function's text
    if not 0 <= at < len(lines):
        return f"{file}:{line}:{col}: {message}"
    start = next((i for i, t in enumerate(lines) if t.lstrip().startswith("def ")), 0)
    start = min(start, at)
    indent = len(raw[at]) - len(lines[at])
    rel_col = max(col - 1 - indent, 0)
    excerpt = lines[start:at + 1][-_EXCERPT_LINES:]
    return "\n".join([f"at {at - start + 1}:{rel_col}: {file}:{line}:{col}", *excerpt,
                      " " * rel_col + "^", message])


class CompileTimeAssertionFailure(CompilationError):
    """A `tl.static_assert` that failed while compiling."""


class UnsupportedLanguageConstruct(CompilationError):
    """Python syntax the kernel language does not have (Triton's class; tilec reports
    these as CompilationError)."""


class CompileErrorCause(Exception):
    """The bare message of a CompilationError, as its `__cause__`: Triton chains the error a
    builtin raised (`str(e.__cause__)` is what its tests read)."""


_INTERPRETED = {}  # CompilationError subclass -> its twin that is also an InterpreterError


def _interpreted(cls):
    twin = _INTERPRETED.get(cls)
    if twin is None:
        twin = _INTERPRETED[cls] = type(cls.__name__, (cls, InterpreterError),
                                        {"__module__": cls.__module__,
                                         "__qualname__": cls.__qualname__,
                                         "__doc__": cls.__doc__})
    return twin


def as_triton_error(e: CompilationError, interpreting: bool = False) -> CompilationError:
    """`e` as Triton raises it (the C++ bindings raise every compile error as
    CompilationError): a failed static_assert is a CompileTimeAssertionFailure with no
    cause; any other error carries its bare message as `__cause__` (raise it `from
    e.__cause__`); an error inside called @jit functions is raised at the kernel's call,
    caused by the error at the next call down (see CompilationError). In interpreter mode
    (TRITON_INTERPRET), where Triton's errors are InterpreterErrors, the error is an
    InterpreterError too."""
    cls = type(e)
    cause = None
    if cls is CompilationError and e.message.startswith("static_assert failed"):
        cls = CompileTimeAssertionFailure
    elif not isinstance(e, CompileTimeAssertionFailure):
        cause = CompileErrorCause(e.message)
    if interpreting:
        cls = _interpreted(cls)
    frames = e.frames
    for depth in range(1, len(frames) + 1):  # the error itself, then each call up
        e = cls(e.rendered, e.message, e.file, e.line, e.col, frames[:depth])
        e.__cause__ = cause
        cause = e
    if not frames:
        if cls is not type(e):
            e = cls(e.rendered, e.message, e.file, e.line, e.col)
        e.__cause__ = cause
    return e


class KernelError(TilecError, RuntimeError):
    """An error while a kernel runs (an out-of-bounds access, a failed device_assert,
    ...). Located like CompilationError when the interpreter knows the kernel line."""

    def __init__(self, rendered: str, message: str | None = None, file: str | None = None,
                 line: int | None = None, col: int | None = None):
        super().__init__(rendered)
        self.rendered = rendered
        self.message = message if message is not None else rendered
        m = _LOCATION.match(rendered) if file is None else None
        if m:  # the interpreter renders its faults; recover the location from the text
            file, line, col = m.group(1), int(m.group(2)), int(m.group(3))
            self.message = rendered[m.end():].split("\n", 1)[0]
        self.file = file
        self.line = line
        self.col = col

    def __str__(self):
        return self.rendered.rstrip("\n")


class CudaError(TilecError, RuntimeError):
    """A CUDA driver call failed, or there is no usable CUDA driver. `call` names the driver
    function, `code` is its CUresult (-1 when the driver is missing) and `kernel` the
    kernel involved (None when there is none). A kernel that faults (an illegal address)
    is reported at the next synchronisation or launch, naming the last kernel tilec
    launched on the device."""

    def __init__(self, message: str, call: str | None = None, code: int | None = None,
                 kernel: str | None = None):
        super().__init__(message)
        self.call = call
        self.code = code
        self.kernel = kernel


class OutOfResources(TilecError):
    """A kernel needs more of a resource (shared memory, registers, threads) than the
    device offers. Autotuners skip such configurations, as with Triton's OutOfResources."""

    def __init__(self, message: str, resource: str | None = None, required: int | None = None,
                 limit: int | None = None, kernel: str | None = None):
        super().__init__(message)
        self.resource = resource
        self.required = required
        self.limit = limit
        self.name = kernel


class LaunchOptionError(TilecError, ValueError, AssertionError):
    """A launch option out of range (num_warps, num_stages, maxnreg). Also an AssertionError:
    Triton checks these options with asserts, and its callers match that type."""


class _MessageError(TilecError):
    """An error whose str() is `prefix + error_message` (Triton's runtime errors)."""

    prefix = ""

    def __init__(self, error_message: str | None = None):
        super().__init__(error_message)
        self.error_message = error_message

    def __str__(self):
        return self.prefix + (self.error_message or "")


class InterpreterError(_MessageError):
    """Triton's error of its Python interpreter mode (`triton.runtime.errors`). tilec's
    interpreter raises KernelError; this class exists for code that names it."""


class PTXASError(_MessageError):
    """ptxas rejected the PTX of a kernel."""

    prefix = "PTXAS error: "


class AutotunerError(_MessageError):
    """An autotuner could not tune (Triton's `triton.runtime.errors.AutotunerError`)."""

    prefix = "Autotuner error: "
