"""`triton.compiler.compiler`: `triton.compile(ASTSource(fn, signature, constexprs, attrs),
target=GPUTarget("cuda", 90, 32), options={...})`, with no GPU needed. A CUDA target goes
through the @jit GPU path's code generator (PTX, a cubin when ptxas is found, tilec's disk
cache; descriptor and tuple signatures through the ahead-of-time binding of
`gpu.compile_aot`); the "cpu" target builds for the tile interpreter. The result is a
CompiledKernel with Triton's launcher entry `run` (what Inductor launches).

An ASTSource is Triton's description of one specialisation:
- `signature` {parameter name: type}: "*fp32" (a pointer; "*kfp32" a const one), "i32",
  "fp32", "u1" (bool), "tensordesc<fp16[64, 64]>", or "constexpr";
- `constexprs` {name or path tuple: value}: the value of each "constexpr" entry (Triton
  also makes an int argument equal to 1 a constexpr);
- `attrs` {path tuple: [[attribute, value], ...]}: ["tt.divisibility", 16] says a pointer
  is 16-byte aligned or an int divisible by 16 (what `BaseBackend.parse_attr` gives).
A path is `(parameter index,)`; longer paths address elements of tuple parameters, which
tilec's ahead-of-time path does not take."""

from __future__ import annotations

import hashlib
import time

from .. import _introspect, _sources, knobs
from .._options import CompileOptions
from .._version import TILEC_VERSION, TRITON_VERSION
from ..backends import backends
from ..backends._active import driver
from ..backends.compiler import BaseBackend, GPUTarget, Language
from ..backends.cpu import CPUBackend
from ..language import core
from .gpu import compile_aot, compile_specs
from .host import compile_kernel
from .kernel import CompiledKernel, LazyDict


class ASTSource:
    """A @jit function with one specialisation: its signature, constexpr values and
    attributes (see the module's docstring)."""

    def __init__(self, fn, signature: dict, constexprs: dict | None = None,
                 attrs: dict | None = None) -> None:
        self.fn = fn
        self.language = Language.TRITON
        self.ext = "ttir"
        self.name = fn.__name__
        self.signature = signature
        for k in signature:
            if not isinstance(k, str):
                raise TypeError(f"signature keys must be parameter names, got {k!r}")
        self.constants = {}
        for k, v in (constexprs or {}).items():
            path = (fn.arg_names.index(k),) if isinstance(k, str) else k
            if not isinstance(path, tuple):
                raise TypeError(f"constexprs keys must be parameter names or index tuples, "
                                f"got {k!r}")
            self.constants[path] = v
        self.attrs = dict(attrs or {})

    def hash(self) -> str:
        def key(v):
            return v.cache_key if hasattr(v, "cache_key") else str(v)

        sig = [v for _, v in sorted(self.signature.items())]
        consts = "-".join(key(v) for _, v in sorted(self.constants.items()))
        text = f"{self.fn.cache_key}-{self.attrs}-{sig}-{consts}"
        return hashlib.sha256(text.encode()).hexdigest()

    def parse_options(self) -> dict:
        return {}

    def make_ir(self, *args, **kwargs):
        raise NotImplementedError("tilec has no MLIR module to make: compile the source with "
                                  "triton.compile and read CompiledKernel.asm")


class IRSource:
    """Triton compiles MLIR / PTX files too; tilec compiles Python kernels only."""

    def __init__(self, path, *args, **kwargs):
        raise NotImplementedError(f"tilec cannot compile the IR file {path!r}: it compiles "
                                  "@jit functions (pass an ASTSource)")


def make_backend(target: GPUTarget) -> BaseBackend:
    """The back end that compiles for `target`: CUDA, or "cpu" (the tile interpreter)."""
    found = [b.compiler for b in backends.values() if b.compiler.supports_target(target)]
    if len(found) != 1:
        raise RuntimeError(f"{len(found)} compatible backends for target ({target.backend}) "
                           f"({found}): tilec compiles for 'cuda' and 'cpu' targets")
    return found[0](target)


def triton_key() -> str:
    """Identifies the compiler in cache keys: the Triton version tilec follows and
    tilec's own."""
    return f"{TRITON_VERSION}-tilec-{TILEC_VERSION}"


def get_cache_key(src, backend, backend_options, env_vars) -> str:
    return (f"{triton_key()}-{src.hash()}-{backend.hash()}-{backend_options.hash()}-"
            f"{sorted(env_vars.items())}")


def _divisible(attrs) -> bool:
    return any(list(a) == ["tt.divisibility", 16] for a in attrs or ())


def _unwrap(v):
    return v.value if isinstance(v, core.constexpr) else v


def _ast_params(src: ASTSource):
    """Each parameter of an ASTSource as (name, kind, value): ("const", its constexpr value),
    ("default", the default of a constexpr given no value) or ("arg", (signature entry with
    "*k" and "u1" spelled "*" and "i1", 16-divisible)); Triton's errors for what is missing."""
    fn = getattr(src.fn, "jit_function", src.fn)  # an @autotune object compiles its function
    deep = [p for p in list(src.constants) + list(src.attrs) if len(p) != 1]
    if deep:
        raise NotImplementedError(f"'{src.name}': tuple parameters (paths {deep}) are not "
                                  "supported by tilec's ahead-of-time compilation")
    for i, name in enumerate(fn.arg_names):
        ty = src.signature.get(name)
        if isinstance(ty, tuple):
            raise NotImplementedError(f"'{src.name}': parameter '{name}' is a tuple; tilec's "
                                      "ahead-of-time compilation takes scalars, pointers and "
                                      "descriptors")
        param = fn.params[i]
        if ty == "constexpr" or (i,) in src.constants or (ty is None and param.is_constexpr):
            if (i,) in src.constants:
                yield name, "const", _unwrap(src.constants[(i,)])
            elif param.has_default:
                yield name, "default", param.default
            else:
                raise ValueError(f"'{src.name}': constexpr parameter '{name}' has no value in "
                                 "constexprs and no default")
            continue
        if ty is None:
            raise ValueError(f"'{src.name}': the signature has no entry for parameter "
                             f"'{name}' (it has {sorted(src.signature)})")
        entry = str(ty).strip()
        if entry.startswith("*k"):
            entry = "*" + entry[2:]
        if entry.lstrip("*") == "u1":
            entry = entry[:-2] + "i1"
        yield name, "arg", (entry, _divisible(src.attrs.get((i,))))


def aot_signature(src: ASTSource):
    """(tilec signature string, {name: constexpr value}) of an ASTSource, for
    `gpu.compile_aot`."""
    entries, constexprs = [], {}
    for name, kind, value in _ast_params(src):
        if kind == "const":
            constexprs[name] = value
        if kind != "arg":
            continue  # a default: the compiler takes the parameter's own
        entry, divisible = value
        if entry == "nvTmaDesc":
            raise NotImplementedError(f"'{src.name}': parameter '{name}' is an nvTmaDesc; "
                                      "tilec takes host tensor descriptors as 'tensordesc<...>'")
        entries.append(entry + (":16" if divisible and not entry.startswith("tensordesc") else ""))
    return ",".join(entries), constexprs


def _ir_name(dt: str) -> str:
    """Triton's signature spells element types "i8"/"u32"/"fp16"; str(tl.int8) is "int8":
    both give tilec's ("i8")."""
    try:
        return core.dtype(dt).ir_type
    except (TypeError, ValueError, KeyError):
        return dt


def host_specs(src: ASTSource) -> list:
    """The (kind, payload) spec of every parameter of an ASTSource, as the @jit path's
    compilers take them (what `_sources.spec_of` makes from a launch's values); descriptors
    are NotImplementedError (only the ahead-of-time binding takes them)."""
    specs = []
    for name, kind, value in _ast_params(src):
        if kind != "arg":
            specs.append(_sources.spec_of(("c",), value))
            continue
        entry, divisible = value
        if entry.startswith("tensordesc") or entry == "nvTmaDesc":
            raise NotImplementedError(f"'{src.name}': parameter '{name}' of type {entry!r}: "
                                      "tilec compiles pointers and scalars for the CPU target")
        if entry.startswith("*"):
            specs.append(_sources.spec_of(("p", _ir_name(entry[1:]), divisible), None))
            continue
        entry = _ir_name(entry)
        if entry == "i1":
            specs.append(_sources.spec_of(("b",), None))
        elif entry.startswith(("i", "u")):
            specs.append(_sources.spec_of(("i", entry, divisible, False), None))
        elif entry.startswith(("fp", "bf")):
            specs.append(_sources.spec_of(("f", entry), None))
        else:
            raise ValueError(f"'{src.name}': unknown signature type {entry!r} for '{name}'")
    return specs


def _options(backend_options) -> CompileOptions:
    """The compile options a back end's parsed options (CUDAOptions, CPUOptions) hold."""
    return CompileOptions(**{k: getattr(backend_options, k) for k in CompileOptions._fields})


def _compile_cuda(src: ASTSource, target: str, options: CompileOptions) -> CompiledKernel:
    """`src` for `target` ("cuda:90") through the @jit GPU path's code generator and disk
    cache (gpu.compile_specs); descriptor and tuple parameters go through tilec's
    ahead-of-time binding instead."""
    jitfn = getattr(src.fn, "jit_function", src.fn)
    try:
        specs = host_specs(src)
    except (NotImplementedError, ValueError):
        specs = None
    if specs is None:
        signature, constexprs = aot_signature(src)
        return compile_aot(jitfn, signature, constexprs, target=target, **options._asdict())
    cc, specific = _introspect.parse_target(target)
    return compile_specs(jitfn, specs, options, f"sm_{cc}{'a' if specific else ''}")


def _compile_ast(src: ASTSource, target, options) -> CompiledKernel:
    if target is None:
        target = driver.active.get_current_target()
    if not isinstance(target, GPUTarget):
        raise TypeError(f"target must be a GPUTarget, got {type(target).__name__}")
    start = time.perf_counter()
    backend = make_backend(target)
    opts = backend.parse_options(dict(options or {}))
    if isinstance(backend, CPUBackend):
        kernel = compile_kernel(getattr(src.fn, "jit_function", src.fn), host_specs(src),
                                _options(opts))
    else:
        kernel = _compile_cuda(src, backend.get_target_name(opts), _options(opts))
    kernel.portable()  # Inductor sends it from its compile workers as its __dict__
    kernel.src = src
    kernel.hash = hashlib.sha256(get_cache_key(src, backend, opts, {}).encode()).hexdigest()
    m = kernel.metadata
    # Triton's metadata: the options, the target and the compiler's version
    for k, v in opts.__dict__.items():
        if k not in m:
            setattr(m, k, v)
    m.target = target
    m.hash = kernel.hash
    m.triton_version = TRITON_VERSION
    for k, v in (("cluster_dims", (1, 1, 1)), ("global_scratch_size", 0),
                 ("global_scratch_align", 1), ("profile_scratch_size", 0),
                 ("profile_scratch_align", 1), ("tmem_size", 0)):
        setattr(m, k, v)
    listener = knobs.compilation.listener
    if listener is not None:
        micros = int((time.perf_counter() - start) * 1e6)
        listener(src=src, metadata=m._asdict(), metadata_group={},
                 times=knobs.CompileTimes(0, [("ptx", micros)], 0), cache_hit=False)
    return kernel


def compile(src, *args, **kwargs):  # noqa: A001 - Triton's name
    """Compiles a kernel ahead of time, without a GPU; returns a CompiledKernel with
    `asm["ptx"]` (and `asm["cubin"]` when ptxas is found) and `metadata`. Two forms:

    - Triton's: `compile(ASTSource(fn, signature, constexprs, attrs), target=None,
      options=None)`; target None means the current device's.
    - tilec's: `compile(fn, signature, constexprs=None, num_warps=4, num_stages=3,
      debug=False, target="cuda:90", enable_fp_fusion=True, maxnreg=None,
      enable_reflect_ftz=True)` with `tilec ptx`'s signature string (see
      gpu.compile_aot)."""
    if isinstance(src, ASTSource):
        names = ("target", "options", "_env_vars")
        if len(args) > len(names):
            raise TypeError(f"compile() takes at most {len(names) + 1} positional arguments")
        given = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in given:
                raise TypeError(f"compile() got an unexpected or repeated argument '{k}'")
            given[k] = v
        return _compile_ast(src, given.get("target"), given.get("options"))
    if isinstance(src, str):
        IRSource(src)  # raises: tilec has no IR files to compile
    if kwargs.get("target", "") is None:
        kwargs.pop("target")
    return compile_aot(src, *args, **kwargs)


__all__ = ["ASTSource", "IRSource", "CompiledKernel", "LazyDict", "compile", "make_backend",
           "get_cache_key", "triton_key", "aot_signature"]
