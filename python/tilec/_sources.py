"""Building the C++ FunctionSource of a @jit function: its source text and the globals
its body names, resolved here in Python and handed over in the forms the compiler knows
(module names, nested FunctionSources, constexpr values, dtypes); and the compiler's form
of a launch's specialisation (`spec_of`). The two are one recursion: a constexpr argument
or a NamedTuple default may be a @jit function (its FunctionSource), and a kernel's
globals may name NamedTuple classes (their `_C.NamedTupleType`)."""

from __future__ import annotations

import ast
import builtins
import collections
import copy
import inspect
import io
import os
import re
import sys
import textwrap
import tokenize
import types
import weakref

import numpy as np

from . import _C, _args
from ._interface import KernelInterface
from .errors import CompilationError, CompileErrorCause
from .language import _stubs, core

_LANGUAGE_PREFIX = "tilec.language"
_TARGET_INFO = _LANGUAGE_PREFIX + ".target_info"  # language/target_info.py


# Source strings recently compiled by exec()/compile() under a pseudo file name
# ("<string>"): a kernel defined by exec'ing text (Triton's tests patch kernel source and
# exec it; code generators do the same) has no file for inspect to read, so the text is
# recovered from here. An audit hook sees every such compile; it keeps only texts that
# define functions, newest last.
_EXEC_SOURCES = collections.deque(maxlen=256)


def _record_compiled_source(event, args):
    if event == "compile":
        src, filename = args[0], args[1]
        if isinstance(src, (bytes, str)) and isinstance(filename, str) and \
                filename.startswith("<") and ("def " in src if isinstance(src, str)
                                              else b"def " in src):
            _EXEC_SOURCES.append((filename, src))


sys.addaudithook(_record_compiled_source)


def _exec_source(fn):
    """(text with decorators, file, first line) of a function made by exec()/compile() of
    a source string, found among the recorded sources; None when not found."""
    code = fn.__code__
    for filename, src in reversed(list(_EXEC_SOURCES)):  # ast.parse below appends
        if filename != code.co_filename:
            continue
        text = src.decode("utf-8", "replace") if isinstance(src, bytes) else src
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.name == fn.__name__:
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if first == code.co_firstlineno:
                    lines = text.splitlines(keepends=True)[first - 1:node.end_lineno]
                    return textwrap.dedent("".join(lines)), code.co_filename, first
    return None


def _check_encoding(fn):
    """Raises a ValueError naming the byte when `fn`'s file is not in its declared encoding
    (inspect then reports only "could not get source code")."""
    file = getattr(getattr(fn, "__code__", None), "co_filename", None)
    if not file or not os.path.isfile(file):
        return
    with open(file, "rb") as f:
        data = f.read()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        data.decode(encoding)
    except (SyntaxError, LookupError) as e:
        raise ValueError(f"cannot read the source of @jit function '{fn.__name__}': {file}: "
                         f"{e}") from None
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise ValueError(
            f"cannot read the source of @jit function '{fn.__name__}': {file}:{line}:{col}: "
            f"byte 0x{data[e.start]:02x} is not valid {encoding}; save the file as UTF-8 or "
            "declare its encoding in a '# -*- coding: NAME -*-' line") from None


def function_text(fn):
    """(source text with decorators, file, absolute first line) of a Python function."""
    try:
        lines, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        found = _exec_source(fn) if hasattr(fn, "__code__") else None
        if found is not None:
            return found
        _check_encoding(fn)
        raise ValueError(f"cannot read the source of @jit function '{fn.__name__}': {e}. "
                         "Kernels must be defined in a file, or by exec() of a source "
                         "string (not typed at an interactive prompt)") from None
    file = inspect.getsourcefile(fn) or inspect.getfile(fn)
    return "".join(lines), file, max(first_line, 1)


def _closure_cells(fn) -> dict:
    """The bound cells of fn's closure, by name."""
    code = fn.__code__
    if not fn.__closure__:
        return {}
    out = {}
    for name, cell in zip(code.co_freevars, fn.__closure__):
        try:
            cell.cell_contents
        except ValueError:  # an empty cell: the name is not bound yet
            continue
        out[name] = cell
    return out


# -- the globals a kernel's compilation read (Triton's `used_global_vals`) ------------------
# {(name, id(container)): (the value when compiled, container)}: the container is the
# function's globals dict or a closure cell. A launch checks them (check_globals): a kernel
# compiled with a value must not run after the name is bound to another.

_MISSING = object()


def current_value(name, container):
    if isinstance(container, dict):
        return container.get(name, _MISSING)
    try:
        return container.cell_contents
    except ValueError:
        return _MISSING


def _global_reads(text) -> set:
    """The names the function's body reads before assigning them (as Triton's code
    generator resolves names: in statement order), so not a parameter's default, nor a
    local assigned first."""
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return set()
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if fn is None:
        return set()
    params = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
    first_store, loads = {}, collections.defaultdict(list)
    for stmt in fn.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name):
                pos = (node.lineno, node.col_offset)
                if isinstance(node.ctx, ast.Load):
                    loads[node.id].append(pos)
                elif node.id not in first_store or pos < first_store[node.id]:
                    first_store[node.id] = pos
    return {n for n, ps in loads.items()
            if n not in params and (n not in first_store or min(ps) < first_store[n])}


def _recordable(v) -> bool:
    """A value Sema folds into the kernel (not a module, @jit function or builtin, which
    are code the cache key follows)."""
    if isinstance(v, (core.constexpr, core.dtype, bool, int, float, str)) or v is None:
        return True
    return isinstance(v, tuple) and all(_recordable(e) for e in v)


def _record_use(used, jitfn, name, v, container):
    if isinstance(v, KernelInterface):  # a callee: its own reads become this kernel's
        callee = v.jit_function
        for key, (val, where) in getattr(callee, "used_global_vals", {}).items():
            _add_use(used, key, val, where, jitfn, callee.__name__)
    elif _recordable(v):
        _add_use(used, (name, id(container)), copy.deepcopy(v), container, jitfn, None)


def _add_use(used, key, val, where, jitfn, callee):
    """Records `val` for `key`; one kernel and its callees must agree on every global
    (`callee` names the callee that read `val`, None: the kernel itself)."""
    mine = used.get(key)
    if mine is not None and not _same(mine[0], val):
        own, inner = (mine[0], val) if callee else (val, mine[0])
        who = f"inner function {callee}" if callee else "an inner function"
        raise RuntimeError(f"Global variable {key[0]} has value {own} when compiling "
                           f"{jitfn.__name__}, but {who} wants to use it with value {inner}. "
                           "This is not allowed.")
    used[key] = (val, where)


def _same(a, b) -> bool:
    a = a.value if isinstance(a, core.constexpr) else a
    b = b.value if isinstance(b, core.constexpr) else b
    return type(a) is type(b) and a == b


def check_globals(jitfn):
    """Raises when a global the compiled kernels read is bound to another value now (as
    Triton does at every launch)."""
    for (name, _), (val, container) in jitfn.used_global_vals.items():
        cur = current_value(name, container)
        if not _same(cur, val):
            now = "nothing" if cur is _MISSING else cur
            raise RuntimeError(f"Global variable {name} has changed since we compiled this "
                               f"kernel, from {val!r} to {now!r}")


def _module_name(mod: types.ModuleType):
    """The canonical name Sema knows for a module, or None for any other module."""
    name = mod.__name__
    if name == _TARGET_INFO:  # plain Python (constexpr functions): read like a user's module
        return None
    if name == "tilec" or name == _LANGUAGE_PREFIX or name.startswith(_LANGUAGE_PREFIX + "."):
        return name
    return None


def _target_info_globals(text, scope) -> dict:
    """tl.target_info.X (or triton.language.target_info.X) read in the body: X under the
    dotted path Sema looks it up by (`@tilec.language.target_info`, SemaExpr.cpp)."""
    out = {}
    if "target_info" not in text:  # most kernels: no second parse of the source
        return out
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return out  # the compiler reports it, with the line
    for node in ast.walk(tree):
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not chain or not isinstance(base, ast.Name) or base.id not in scope:
            continue
        obj = scope[base.id]
        if not isinstance(obj, types.ModuleType) or _module_name(obj) is None:
            continue
        for i, attr in enumerate(reversed(chain)):
            obj = getattr(obj, attr, None)
            if isinstance(obj, types.ModuleType) and obj.__name__ == _TARGET_INFO:
                rest = list(reversed(chain))[i + 1:]
                if rest and hasattr(obj, rest[0]):
                    out[_TARGET_INFO + "." + rest[0]] = to_global(getattr(obj, rest[0]),
                                                                 SourceBuilder().build)
                break
            if not isinstance(obj, types.ModuleType):
                break
    return out


def _describe(v) -> str:
    if inspect.isclass(v):
        return f"class '{v.__qualname__}'"
    if isinstance(v, types.ModuleType):
        return f"module '{v.__name__}'"
    if inspect.isroutine(v):
        return "function (not a @jit function)"
    t = type(v)
    qual = t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    return f"value of type {qual}"


def to_global(v, resolve_jit):
    """The compiler form of a global's value, or an _C.Unsupported marker."""
    if isinstance(v, core.constexpr):
        v = v.value
    if v is None or isinstance(v, (bool, int, float, str)):
        if isinstance(v, int) and not isinstance(v, bool) and not -(1 << 63) <= v < (1 << 64):
            return _C.Unsupported(f"int {v} that does not fit in 64 bits")
        return v
    if isinstance(v, core.dtype):
        reason = v.unsupported_reason()  # reported where the kernel names it
        return _C.DTypeRef(v.ir_type) if reason is None else _C.Unsupported(f"dtype ({reason})")
    if v is core.PropagateNan:  # an enum class Sema knows by name (NONE / ALL)
        return _C.ModuleRef(_LANGUAGE_PREFIX + ".PropagateNan")
    if isinstance(v, types.ModuleType):
        name = _module_name(v)
        return _C.ModuleRef(name) if name else _C.Unsupported(_describe(v))
    if isinstance(v, KernelInterface):
        return resolve_jit(v.jit_function)
    if getattr(type(v), "_tilec_constexpr_function", False):  # jit.ConstexprFunction
        return _C.HostFunctionRef(weakref.ref(v.fn), v.__name__, v._read_source()[0])
    if isinstance(v, tuple):
        elems = [to_global(e, resolve_jit) for e in v]
        bad = [e for e in elems if isinstance(e, _C.Unsupported)]
        if bad:
            return bad[0]
        if _args.is_named_tuple(v):
            t = _named_type_or_unsupported(type(v))
            return t if isinstance(t, _C.Unsupported) else _C.NamedTupleValue(t, tuple(elems))
        return tuple(elems)
    if _args.is_named_tuple_class(v):  # a NamedTuple class the kernel constructs
        return _named_type_or_unsupported(v)
    if _is_breakpoint(v):  # pdb.set_trace / breakpoint: a stop of the kernel debugger
        return _C.BuiltinRef("builtins.breakpoint")
    if getattr(v, "_tilec_builtin", None):  # `from tilec.language import load` style
        return _builtin_ref(v)
    return _C.Unsupported(_describe(v))


def _builtin_ref(v):
    """A language builtin's stub as the compiler names it."""
    name = v._tilec_builtin  # "load", "math.exp" (= exp), "libdevice.exp" (its own)
    return _C.BuiltinRef(name if _stubs.has_own_namespace(name) else name.rsplit(".", 1)[-1])


def constexpr_result(v):
    """The compiler form of what a @constexpr_function returned (a list as a tuple)."""
    if isinstance(v, list):
        v = tuple(v)
    return to_global(v, SourceBuilder().build)


def _is_breakpoint(v) -> bool:
    """pdb.set_trace or builtins.breakpoint (without importing pdb when nobody did)."""
    if v is builtins.breakpoint:
        return True
    pdb = sys.modules.get("pdb")
    return pdb is not None and v is getattr(pdb, "set_trace", None)


def _named_type_or_unsupported(cls):
    try:
        return named_tuple_type(cls)
    except TypeError as e:
        return _C.Unsupported(f"NamedTuple class '{cls.__qualname__}' ({e})")


_NAMED_TUPLE_TYPES = {}  # class -> _C.NamedTupleType (one per class: Sema compares them)


def named_tuple_type(cls):
    """The compiler's description of a NamedTuple class: name, fields, defaults."""
    t = _NAMED_TUPLE_TYPES.get(cls)
    if t is None:
        fields = list(cls._fields)
        given = getattr(cls, "_field_defaults", {})
        first = next((i for i, f in enumerate(fields) if f in given), len(fields))
        defaults = tuple(_wire(_args.constexpr_value(f"{cls.__name__}.{f}", given[f]))
                         for f in fields[first:])
        t = _NAMED_TUPLE_TYPES[cls] = _C.NamedTupleType(cls.__name__, fields, defaults)
    return t


def _wire(v):
    """A constexpr value in the form _C.compile takes (dtypes as DTypeRef, @jit functions
    as their FunctionSource, NamedTuples with their class)."""
    if isinstance(v, tuple):
        elems = tuple(_wire(e) for e in v)
        return _C.NamedTupleValue(named_tuple_type(type(v)), elems) \
            if _args.is_named_tuple(v) else elems
    if isinstance(v, core.dtype):
        reason = v.unsupported_reason()
        if reason is not None:  # a constexpr argument: a compile error, as Triton's
            err = CompilationError(f"error: {reason}", reason)
            err.__cause__ = CompileErrorCause(reason)
            raise err
        return _C.DTypeRef(v.ir_type)
    if isinstance(v, KernelInterface):
        return function_source(v.jit_function)
    if _args.is_named_tuple_class(v):
        return named_tuple_type(v)
    if getattr(v, "_tilec_builtin", None):  # `func=tl.extra.cuda.globaltimer`
        return _builtin_ref(v)
    return v


def spec_of(key, value):
    """The (ArgSpec kind, payload) pair _C.compile takes, from a specialisation key (what
    _args.specialize made of the argument) and the argument's value."""
    tag = key[0]
    if tag == "p":
        return ("pointer", (key[1], key[2]))
    if tag == "i":
        return ("int", (key[1], key[2], key[3]))
    if tag == "f":
        return ("float", key[1] if len(key) > 1 else "fp32")
    if tag == "b":
        return ("bool", None)
    if tag == "n":
        return ("none", None)
    if tag == "d":
        return ("tensordesc", key[1:])
    if tag == "t":
        cls = key[1]
        return ("tuple", (named_tuple_type(cls) if cls is not None else None,
                          [spec_of(k, e) for k, e in zip(key[2], value)]))
    if isinstance(value, core.constexpr):
        value = value.value
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, list):
        value = tuple(value)
    return ("constexpr", _wire(value))


class SourceBuilder:
    """Builds (and memoises on each JITFunction) the FunctionSource of a kernel and of
    every @jit function it calls."""

    def __init__(self):
        self._in_progress = set()

    def build(self, jitfn):
        fs = jitfn._function_source
        if fs is not None:
            return fs
        if id(jitfn) in self._in_progress:
            # A recursive call: every callee is inlined, so Sema reports it where used.
            return _C.Unsupported(f"recursive @jit function '{jitfn.__name__}'")
        self._in_progress.add(id(jitfn))
        try:
            fn = jitfn.fn
            text, file, first_line = jitfn._read_source()  # decorators included
            names = _C.referenced_names(jitfn.__name__, file, text, first_line)
            scope = dict(fn.__globals__)
            cells = _closure_cells(fn)
            scope.update({n: c.cell_contents for n, c in cells.items()})
            globals_ = {}
            user_modules = []
            used = {}
            reads = _global_reads(text)
            for name in names:  # locals and Python builtins are not in scope: skipped
                if name in scope:
                    v = scope[name]
                    if isinstance(v, types.ModuleType) and _module_name(v) is None:
                        user_modules.append(name)
                    else:
                        globals_[name] = to_global(v, self.build)
                        if name in reads:
                            _record_use(used, jitfn, name, v, cells.get(name, fn.__globals__))
            jitfn.used_global_vals = used
            if user_modules:
                globals_.update(self._module_globals(text, scope, user_modules))
            globals_.update(_target_info_globals(text, scope))
            must_use = getattr(jitfn, "_must_use_result", False)  # @must_use_result
            fs = _C.FunctionSource(jitfn.__name__, file, text, first_line, globals_,
                                   bool(jitfn.noinline), bool(must_use),
                                   must_use if isinstance(must_use, str) else "")
            jitfn._function_source = fs
            return fs
        finally:
            self._in_progress.discard(id(jitfn))

    def _module_globals(self, text, scope, roots) -> dict:
        """The globals of the user modules `roots` (e.g. Inductor's `triton_helpers`): the
        module itself as `@name`, and each attribute chain the body reads from it
        (`triton_helpers.max2`) under its dotted path, as Triton resolves them."""
        out = {}
        for root in roots:
            out[root] = _C.ModuleRef("@" + root)
        try:
            tree = ast.parse(textwrap.dedent(text))
        except SyntaxError:
            return out  # the compiler reports it, with the line
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            chain = []
            base = node
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if not isinstance(base, ast.Name) or base.id not in roots:
                continue
            chain.reverse()
            obj, path = scope[base.id], base.id
            for attr in chain:  # down the chain while it names user modules
                path += "." + attr
                if path in out:
                    obj = getattr(obj, attr, None)
                elif not hasattr(obj, attr):
                    break
                else:
                    obj = getattr(obj, attr)
                    if isinstance(obj, types.ModuleType) and _module_name(obj) is None:
                        out[path] = _C.ModuleRef("@" + path)
                    else:
                        out[path] = to_global(obj, self.build)
                if not (isinstance(obj, types.ModuleType) and _module_name(obj) is None):
                    break
        return out


def function_source(jitfn):
    _check_do_not_specialize(jitfn)
    return SourceBuilder().build(jitfn)


def _check_do_not_specialize(jitfn):
    """A constexpr parameter listed in do_not_specialize is a contradiction: Triton refuses
    it when compiling, with this wording."""
    for p in getattr(jitfn, "params", ()):
        if p.is_constexpr and not p.specialize:
            code = jitfn.fn.__code__
            msg = f"{p.name} marked as constexpr and listed in do_not_specialize"
            raise CompilationError(f"{code.co_filename}:{code.co_firstlineno}:1: error: {msg}",
                                   msg, code.co_filename, code.co_firstlineno, 1)


class Specialization:
    """What a `@jit(repr=...)` function receives (Triton's): `signature` {parameter: type,
    "*fp32" / "i32" / "constexpr"} and `constants` {parameter: value} of one compilation
    (an int specialised as 1 is the constant 1)."""

    def __init__(self, jitfn, specs):
        self.signature, self.constants = {}, {}
        for p, (kind, payload) in zip(jitfn.params, specs):
            ty = kind
            if kind == "pointer":
                ty = "*" + payload[0]
            elif kind == "int" and payload[2]:
                ty, self.constants[p.name] = "constexpr", 1
            elif kind == "int" or kind == "float":
                ty = payload[0] if kind == "int" else payload
            elif kind == "bool":
                ty = "i1"
            elif kind in ("constexpr", "none"):
                ty, self.constants[p.name] = "constexpr", payload
            self.signature[p.name] = ty


def entry_source(jitfn, specs):
    """The FunctionSource to compile `jitfn` with `specs`: named by its `@jit(repr=...)`
    for this specialisation when it has one (an identifier: other characters become _)."""
    fs = function_source(jitfn)
    user_repr = getattr(jitfn, "_user_repr", None)
    if user_repr is None:
        return fs
    name = re.sub(r"\W", "_", str(user_repr(Specialization(jitfn, specs))))
    if not name or name[0].isdigit():
        name = "_" + name
    return fs.with_entry_name(name)
