"""`@jit` and launching: `kernel[grid](*args, **kwargs)` binds arguments like a Python
call, specialises them (the compile cache key), compiles once per key through the C++
pipeline and runs the kernel on the CPU tile interpreter."""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import re
import textwrap

from . import _C, _args, _gpu, _hooks, _interpret, _jit_cache, _sources, _utils, knobs
from ._grid import LAUNCH_ATTRIBUTES, normalize_grid
from ._interface import KernelInterface, Variant
from ._options import CompileOptions, capability_of, check_num_ctas
from ._tensors import MockTensor
from .compiler import CompiledKernel, compile_kernel
from .errors import LaunchOptionError
from ._async_compile import FutureKernel
from .language import core

# Launch keywords that configure the compilation rather than bind a parameter.
LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "debug", "enable_fp_fusion",
                  "enable_reflect_ftz", "launch_cooperative_grid", "launch_pdl", "stream",
                  "extern_libs", "arch")
# (LAUNCH_ATTRIBUTES, _grid.py: those the GPU launch passes to the driver.)


def _check_extern_libs(libs):
    """Triton's `extern_libs={"libdevice": path}` launch option. tilec implements libdevice
    itself (no bitcode is linked), so the paths are only checked to exist."""
    if not isinstance(libs, dict):
        raise TypeError(f"extern_libs must be a dict of library name -> path, got "
                        f"{type(libs).__name__}")
    for name, path in libs.items():
        if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
            raise ValueError(f"extern_libs: the '{name}' library {path!r} is not a file")


class KernelParam:
    """A parameter of a @jit function (Triton's KernelParam: `num`, `name`, `is_constexpr`,
    `do_not_specialize`, `annotation`, ...)."""

    __slots__ = ("name", "index", "is_constexpr", "typed", "has_default", "default",
                 "specialize", "keyword_only", "align", "_annotation")

    def __init__(self, p: inspect.Parameter, index: int, specialize: bool, align: bool = True):
        self.name = p.name
        self.index = index
        self.is_constexpr = core.is_constexpr_annotation(p.annotation)
        self.typed = None if self.is_constexpr else _args.annotation_type(p.annotation)
        self.has_default = p.default is not inspect.Parameter.empty
        self.default = p.default if self.has_default else None
        self.specialize = specialize
        self.align = align
        self.keyword_only = p.kind == p.KEYWORD_ONLY  # after `*`: bound by name only
        self._annotation = p.annotation

    # Triton's names
    num = property(lambda self: self.index)
    do_not_specialize = property(lambda self: not self.specialize)
    do_not_specialize_on_alignment = property(lambda self: not self.align)

    @property
    def annotation(self) -> str:
        """The annotation as Triton spells signature types: "constexpr", "*fp32", "i64",
        "" when there is none."""
        return "constexpr" if self.is_constexpr else _type_name(self._annotation)

    @property
    def annotation_type(self) -> str:
        a = self.annotation
        return a if a.lstrip("*k") in _utils.BITWIDTH_DICT else ""

    @property
    def is_const(self) -> bool:
        return not self.is_constexpr and self.annotation.startswith("*k")


def _type_name(a) -> str:
    if a is inspect.Parameter.empty or a is None:
        return ""
    if isinstance(a, core.pointer_type):
        return "*" + _type_name(a.element_ty)
    if isinstance(a, core.dtype):
        a = a.name
    a = str(a).strip()
    if a.startswith("const "):
        return "*k" + _type_name(a[len("const "):]).lstrip("*")
    if a.startswith("*"):
        return "*" + _type_name(a[1:])
    if a.endswith("*"):
        return "*" + _type_name(a[:-1])
    a = a.removeprefix("tl.")
    return _utils.type_canonicalisation_dict.get(a.replace("_t", ""), a)


class JITCallable:
    """A Python function tilec compiles (Triton's JITCallable): its source, read when first
    needed, and `cache_key`, which changes when its source or a callee's does."""

    def __init__(self, fn):
        if not inspect.isfunction(fn):
            raise TypeError(f"@jit expects a Python function, got {type(fn).__name__}")
        self.fn = fn
        functools.update_wrapper(self, fn)
        self.signature = inspect.signature(fn)
        self._src = None
        self.__globals__ = fn.__globals__  # Triton's attribute (Inductor saves and clears it)
        self.used_global_vals = {}

    def __getstate__(self):
        """What pickles (Inductor sends compiled kernels back from its compile workers
        with their @jit function, after clearing `fn` and `__globals__`): the compiled
        state and the wrapped function stay behind."""
        state = dict(self.__dict__)
        for k in ("__wrapped__", "_function_source", "_gpu_kernels", "_gpu_dispatch",
                  "_device_caches"):
            state.pop(k, None)
        state["cache"] = {}
        state["used_global_vals"] = {}  # holds globals dicts: read again where rebuilt
        state["_user_repr"] = None  # names new compilations only, which need `fn`
        if state.get("fn") is not None:  # a function pickles by name: a kernel made by
            state["_src"] = self._read_source()  # exec() has none, so keep its text
        return state

    def _read_source(self):
        if self._src is None:
            self._src = _sources.function_text(self.fn)
        return self._src

    @property
    def src(self) -> str:
        """The source text from `def` on, dedented (Triton's `src`: Inductor parses it with
        `ast`); `raw_src` keeps the decorators."""
        text = textwrap.dedent(self._read_source()[0])
        m = _DEF_LINE.search(text)
        return text[m.start():] if m else text

    def _unsafe_update_src(self, new_src: str):
        """Replaces the kernel's source text, from `def` on (Triton's name: its tests patch
        `src` and recompile). The file stays and the line numbers count from the def's
        line, for diagnostics; every compiled variant is dropped."""
        old, file, first_line = self._read_source()
        m = _DEF_LINE.search(textwrap.dedent(old))
        def_line = first_line + (textwrap.dedent(old)[:m.start()].count("\n") if m else 0)
        starts_at_def = _DEF_LINE.match(textwrap.dedent(new_src).lstrip("\n")) is not None
        at_def = _INDENTED_DEF.search(old)
        if starts_at_def and at_def and new_src.startswith("def"):
            # keep the decorators and the indentation: the same text gives the same
            # source, hence the same cache key
            self._src = (old[:at_def.start()] + textwrap.indent(new_src, at_def.group(1)),
                         file, first_line)
        else:
            self._src = (new_src, file, def_line if starts_at_def else first_line)
        self._function_source = None
        self.cache = {}
        self.__dict__.pop("_gpu_kernels", None)
        self.__dict__.pop("_gpu_dispatch", None)

    @property
    def file(self) -> str:
        return self._read_source()[1]

    @property
    def first_line(self) -> int:
        """The absolute line of the source's first line (its first decorator)."""
        return self._read_source()[2]

    starting_line_number = first_line

    @property
    def raw_src(self) -> list:
        """The source lines, decorators included (Triton's `raw_src`)."""
        return self._read_source()[0].splitlines(keepends=True)

    @property
    def _fn_name(self) -> str:
        return f"{self.__module__}.{self.__qualname__}"

    @property
    def cache_key(self) -> str:
        """A hash of the sources of this function and the @jit functions it calls, the
        constexpr globals they read and tilec's version."""
        return _C.gpu_cache_key(_sources.function_source(self), "", "", "")

    @property
    def hash(self):
        """Triton's memo of cache_key: setting it to None makes cache_key read this
        function's sources (and its callees' as they are now) again."""
        return self.__dict__.get("_hash")

    @hash.setter
    def hash(self, value):
        if value is None:
            self._function_source = None
        self.__dict__["_hash"] = value


class ConstexprFunction(JITCallable):
    """A Python function a kernel calls at compile time (Triton's @constexpr_function): the
    kernel passes constexpr arguments and gets a constexpr back; Python code calls it as
    the plain function it is."""

    _tilec_constexpr_function = True  # what _sources.to_global recognises

    def __get__(self, obj, objclass):
        if obj is None:
            return self
        return functools.partial(self, obj)  # a constexpr_function method

    @property
    def cache_key(self) -> str:
        text = f"{self.__module__}.{self.__qualname__}\n{self._read_source()[0]}"
        return hashlib.sha256(text.encode()).hexdigest()

    def _unsafe_update_src(self, new_src: str):
        """Replaces the function by one defined by `new_src` (in the same globals)."""
        super()._unsafe_update_src(new_src)
        scope = {}
        exec(compile(textwrap.dedent(new_src), self.file, "exec"), self.fn.__globals__, scope)
        fn = scope.get(self.fn.__name__, self.fn)
        self.fn = fn.fn if isinstance(fn, ConstexprFunction) else fn  # decorated again

    def __call__(self, *args, **kwargs):
        args = [a.value if isinstance(a, core.constexpr) else a for a in args]
        kwargs = {k: v.value if isinstance(v, core.constexpr) else v
                  for k, v in kwargs.items()}
        return self.fn(*args, **kwargs)

    def __repr__(self):
        return f"ConstexprFunction({self.__module__}:{self.__qualname__})"


def constexpr_function(fn):
    """Makes `fn` callable from @jit functions at compile time, on constexpr arguments
    (Triton's decorator)."""
    return ConstexprFunction(fn)


class JITFunction(JITCallable, KernelInterface):
    """A @jit function: compiled on first launch per specialisation, then cached."""

    _gpu_dispatch = None  # the C++ launch fast path, once the function ran on a GPU (_gpu.py)

    @property
    def jit_function(self) -> "JITFunction":
        return self  # the bottom of KernelInterface's chain of wrappers

    def __init__(self, fn, *, debug=None, noinline=None, do_not_specialize=None,
                 do_not_specialize_on_alignment=None, repr=None, launch_metadata=None):
        super().__init__(fn)
        self.debug = debug
        self.noinline = noinline
        # Triton's `repr`: the kernel's name for profilers and Inductor (repr(fn) -> str)
        self.repr = (lambda _: fn.__name__) if repr is None else repr
        self._user_repr = repr  # names each compiled specialisation (_sources.entry_source)
        self.launch_metadata = launch_metadata
        for p in self.signature.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"@jit function '{fn.__name__}' cannot take *{p.name} or "
                                f"**{p.name}: kernels have a fixed list of parameters")
        names = list(self.signature.parameters)
        no_spec = set()
        for d in do_not_specialize or ():
            no_spec.add(names[d] if isinstance(d, int) else d)
        self.do_not_specialize = sorted(no_spec)
        self.do_not_specialize_on_alignment = list(do_not_specialize_on_alignment or ())
        no_align = {names[d] if isinstance(d, int) else d
                    for d in do_not_specialize_on_alignment or ()}
        self.params = [KernelParam(p, i, p.name not in no_spec, p.name not in no_align)
                       for i, p in enumerate(self.signature.parameters.values())]
        self.arg_names = names
        self._n_positional = sum(not p.keyword_only for p in self.params)
        self._index = {p.name: p for p in self.params}
        self.constexprs = [p.index for p in self.params if p.is_constexpr]
        self.cache = {}
        self._function_source = None

    # -- binding --------------------------------------------------------------------------
    def _bind(self, args, kwargs):
        params = self.params
        n = len(params)
        npos = self._n_positional
        if len(args) > npos:
            what = "positional argument" if npos < n else "argument"
            raise TypeError(f"{self.__name__}() takes {npos} {what}{'s' if npos != 1 else ''} "
                            f"but {len(args)} were given")
        values = list(args)
        values.extend([_MISSING] * (n - len(args)))
        for k, v in kwargs.items():
            p = self._index.get(k)
            if p is None:
                raise TypeError(f"{self.__name__}() got an unexpected keyword argument '{k}'")
            if values[p.index] is not _MISSING:
                raise TypeError(f"{self.__name__}() got multiple values for argument '{k}'")
            values[p.index] = v
        for i, v in enumerate(values):
            if v is _MISSING:
                p = params[i]
                if not p.has_default:
                    what = "constexpr argument" if p.is_constexpr else "argument"
                    raise TypeError(f"{self.__name__}() missing {what} '{p.name}'")
                values[i] = p.default
        return values

    def _options(self, kwargs) -> CompileOptions:
        """The compile options of a launch, popping launch options out of kwargs."""
        num_warps, num_stages, debug = 4, 3, self.debug
        fp_fusion, maxnreg, reflect_ftz = None, None, True
        num_ctas = kwargs.get("num_ctas") if "num_ctas" not in self._index else None
        if kwargs:
            for k in LAUNCH_OPTIONS:
                if k in kwargs and k not in self._index:
                    v = kwargs.pop(k)
                    if k in ("num_warps", "num_stages", "maxnreg") and v is not None and (
                            isinstance(v, bool) or not isinstance(v, int) or abs(v) >= 1 << 31):
                        raise LaunchOptionError(f"{k} must be an int, got {v!r}")
                    if k == "num_warps" and v is not None:
                        num_warps = v
                    elif k == "num_stages" and v is not None:
                        num_stages = v
                    elif k == "debug" and v is not None:
                        debug = v
                    elif k == "enable_fp_fusion" and v is not None:
                        fp_fusion = bool(v)
                    elif k == "enable_reflect_ftz" and v is not None:
                        reflect_ftz = bool(v)
                    elif k == "maxnreg" and v is not None:
                        maxnreg = v
                    elif k == "extern_libs" and v is not None:
                        _check_extern_libs(v)
                    elif k == "arch" and v is not None:  # the GPU target (_gpu.run)
                        check_num_ctas(num_ctas, capability_of(v))
                    elif k in LAUNCH_ATTRIBUTES and v is not None and not isinstance(v, int):
                        raise TypeError(f"{k} must be a bool, got {type(v).__name__}")
            bad = _C.launch_options_error(num_warps, num_stages, maxnreg or 0)
            if bad:
                raise LaunchOptionError(bad)
        if debug is None:
            debug = _C.debug_env()
        if fp_fusion is None:  # the launch fast path keys TRITON_DEFAULT_FP_FUSION likewise
            fp_fusion = knobs.language.default_fp_fusion
        return CompileOptions(num_warps, num_stages, bool(debug), fp_fusion, maxnreg, reflect_ftz)

    # -- launching ------------------------------------------------------------------------
    def __getitem__(self, grid):
        d = self._gpu_dispatch
        if d is not None:  # launches in C++; falls back to self.run on anything new
            return d.bind(grid)
        return functools.partial(self.run, grid=grid, warmup=False)

    def run(self, *args, grid, warmup=False, **kwargs):
        if _gpu.wants_gpu(args, kwargs):
            if _interpret.enabled():
                return _interpret.run_on_host(self, grid, warmup, args, kwargs)
            return _gpu.run(self, grid, warmup, args, kwargs)
        options = self._options(kwargs)
        if not kwargs and len(args) == len(self.params) == self._n_positional:
            values = args
        else:
            values = self._bind(args, kwargs)
        keys = []
        runtime = []
        specialize = _args.specialize
        for p, v in zip(self.params, values):
            key, rt = specialize(p.name, v, p.is_constexpr, p.specialize, p.typed, p.align)
            keys.append(key)
            runtime.append(rt)
        cache_key = (tuple(keys), options)
        kernel = self.cache.get(cache_key)
        if kernel is None or _C.env_flag("TILEC_ALWAYS_COMPILE"):
            specs = [_sources.spec_of(k, v) for k, v in zip(keys, values)]
            kernel = _jit_cache.compile(self, cache_key, options, "cpu", warmup,
                                        lambda: compile_kernel(self, specs, options), values)
            if kernel is None:  # jit_cache_hook said it has the kernel elsewhere
                return None
            if isinstance(kernel, FutureKernel):  # triton.AsyncCompileMode
                if warmup:
                    return kernel
                kernel = kernel.result()
        if self.used_global_vals:
            _sources.check_globals(self)
        if warmup:
            return kernel
        if type(grid) is tuple and 0 < len(grid) <= 3 and \
                all(type(d) is int and 0 <= d < _GRID_END for d in grid):
            grid = grid + (1, 1)[:3 - len(grid)]
        else:
            meta = dict(zip(self.arg_names, values)) if callable(grid) else None
            grid = normalize_grid(grid, meta)
        if _hooks.watching():  # launch hooks or the profiler
            _hooks.launch(kernel, grid, None, values, lambda: kernel.launch(grid, runtime))
        else:
            kernel.launch(grid, runtime)
        return kernel

    def warmup(self, *args, grid, **kwargs):
        return self.run(*map(MockTensor.wrap_dtype, args), grid=grid, warmup=True, **kwargs)

    @property
    def device_caches(self):
        """Triton's per-device caches (device -> (kernels by key, ...)); see _jit_cache."""
        return _jit_cache.device_caches(self)

    def preload(self, specialization_data: str):
        """Compiles the specialisation a JIT compile hook was given (its
        `specialization_data`), as Triton's preload does; returns the kernel."""
        return _jit_cache.preload(self, specialization_data)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"@jit function '{self.__name__}' can only be called inside another "
                           f"@jit function; launch it with {self.__name__}[grid](...)")

    def __repr__(self):
        return f"JITFunction({self.__module__}:{self.__qualname__})"


_MISSING = object()
_DEF_LINE = re.compile(r"^def\s+\w+\s*\(", re.MULTILINE)
_INDENTED_DEF = re.compile(r"^([ \t]*)def\s+\w+\s*\(", re.MULTILINE)
_GRID_END = 1 << 31
# kernel[grid] without a Python frame once the function launched on a GPU (_gpu.py)
JITFunction.__getitem__ = _gpu.fast_getitem(JITFunction, JITFunction.__getitem__)


def jit(fn=None, *, version=None, repr=None, launch_metadata=None, do_not_specialize=None,
        do_not_specialize_on_alignment=None, debug=None, noinline=None):
    """Decorator for kernels: `@jit` or `@jit(debug=True, do_not_specialize=["n"])`."""

    def decorator(f):
        return JITFunction(f, debug=debug, noinline=noinline, do_not_specialize=do_not_specialize,
                           do_not_specialize_on_alignment=do_not_specialize_on_alignment,
                           repr=repr, launch_metadata=launch_metadata)

    if fn is not None:
        return decorator(fn)
    return decorator


__all__ = ["JITCallable", "JITFunction", "KernelInterface", "KernelParam", "jit", "CompiledKernel",
           "normalize_grid", "Variant"]
