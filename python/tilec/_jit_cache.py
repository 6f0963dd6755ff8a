"""A @jit function's compiled kernels as Triton exposes them, for libraries that reach into
Triton's JIT: `JITFunction.device_caches`, the compile hooks `knobs.runtime.jit_cache_hook`
and `jit_post_compile_hook`, and `JITFunction.preload(specialization_data)`.

tilec keeps one cache per function in two dicts: `jitfn.cache` for the CPU interpreter,
keyed (keys, options), and `jitfn._gpu_kernels` for GPUs, keyed (keys, options, arch).
`device_caches[device][0]` is a view of both under those keys (clearing it forgets every
compiled kernel and the C++ launch fast path's copies). The compile hooks receive Triton's
keyword arguments; their `key` is the cache key, so `device_caches[device][0].get(key)`
finds the kernel, as torch's hooks do. `specialization_data` is Triton's JSON, with tilec's
cache key in "key" so that `preload` compiles exactly the specialisation a launch would."""

from __future__ import annotations

import dataclasses
import json
import types
from collections.abc import MutableMapping

from . import _fastpath, _sources, knobs
from . import _async_compile
from ._options import CompileOptions
from .backends._active import driver
from .backends.compiler import GPUTarget
from .compiler.compiler import make_backend
from .compiler.gpu import compile_launch
from .compiler.host import compile_kernel
from .language import core


@dataclasses.dataclass
class JitFunctionInfo:
    """What Triton's JIT hooks receive about the function (`fn=`)."""
    module: types.ModuleType
    name: str
    jit_function: object


class KernelCache(MutableMapping):
    """Every compiled kernel of one @jit function, by cache key (see the module's text)."""

    def __init__(self, jitfn):
        self._jit = jitfn

    def _dict(self, key):
        if isinstance(key, tuple) and len(key) == 3:
            return self._jit.__dict__.setdefault("_gpu_kernels", {})
        return self._jit.cache

    def __getitem__(self, key):
        return self._dict(key)[key]

    def __setitem__(self, key, kernel):
        self._dict(key)[key] = kernel

    def __delitem__(self, key):
        del self._dict(key)[key]
        _fastpath.drop(lambda f: f is self._jit)

    def __iter__(self):
        yield from list(self._jit.cache)
        yield from list(self._jit.__dict__.get("_gpu_kernels", {}))

    def __len__(self):
        return len(self._jit.cache) + len(self._jit.__dict__.get("_gpu_kernels", {}))

    def clear(self):
        self._jit.cache.clear()
        self._jit.__dict__.pop("_gpu_kernels", None)
        _fastpath.drop(lambda f: f is self._jit)  # its C++ copies go with them


class DeviceCaches(dict):
    """Triton's `device_caches`: device -> (kernel cache, key cache, target, backend,
    binder). A device appears when a kernel is compiled for it or when it is asked for."""

    def __init__(self, jitfn):
        super().__init__()
        self._jit = jitfn

    def __missing__(self, device):
        target = GPUTarget("cpu", 0, 32) if device == "cpu" else \
            driver.active.get_current_target()
        entry = (KernelCache(self._jit), {}, target, make_backend(target), None)
        self[device] = entry
        return entry


def device_caches(jitfn) -> DeviceCaches:
    caches = jitfn.__dict__.get("_device_caches")
    if caches is None:
        caches = jitfn.__dict__["_device_caches"] = DeviceCaches(jitfn)
    return caches


# -- Triton's view of a specialisation ---------------------------------------------------

def _signature_entry(key):
    tag = key[0]
    if tag == "p":
        return "*" + key[1]
    if tag == "i":
        return "constexpr" if key[3] else key[1]  # Triton specialises the int 1 away
    if tag == "f":
        return key[1] if len(key) > 1 else "fp32"
    if tag == "b":
        return "i1"
    if tag == "t":
        return tuple(_signature_entry(k) for k in key[2])
    if tag == "d":
        return "tensordesc"
    return "constexpr"  # "c" and None ("n")


def _value_of(key):
    """The constexpr value a key holds (None for run-time arguments)."""
    tag = key[0]
    if tag == "t":
        return tuple(_value_of(k) for k in key[2])
    if tag == "i" and key[3]:
        return 1
    if tag != "c":
        return None
    return _decode_constexpr(key[1])


def _decode_constexpr(ck):
    head = ck[0]
    if head == "tuple":
        return tuple(_decode_constexpr(e) for e in ck[1:])
    if head == "dtype":
        return core._dtype_from_ir(ck[1])
    if head in ("int", "bool", "float", "str", "NoneType"):
        return ck[1]
    raise ValueError(f"a constexpr of kind {head!r} (a @jit function or a named tuple) "
                     "cannot be preloaded: launch the kernel instead")


def _paths(keys, want, path=()):
    """(path, key) of every leaf key for which want(key) holds (tuples walked into)."""
    for i, k in enumerate(keys):
        if k[0] == "t":
            yield from _paths(k[2], want, path + (i,))
        elif want(k):
            yield path + (i,), k


def _constant(k) -> bool:
    return k[0] in "cn" or (k[0] == "i" and bool(k[3]))


def _aligned(k) -> bool:
    return (k[0] == "p" and bool(k[2])) or (k[0] == "i" and bool(k[2]))


def _jsonable(x):
    if isinstance(x, (tuple, list)):
        return [_jsonable(e) for e in x]
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return {"unsupported": repr(x)}  # a @jit function or a class: preload refuses it


def _tupled(x):
    if isinstance(x, list):
        return tuple(_tupled(e) for e in x)
    if isinstance(x, dict):
        raise ValueError(f"this specialisation holds {x['unsupported']}, which cannot be "
                         "preloaded: launch the kernel instead")
    return x


def _options_dict(options: CompileOptions) -> dict:
    return {**options._asdict(), "num_ctas": 1, "launch_cooperative_grid": False,
            "extern_libs": None}


def _at(values, path):
    for i in path:
        values = values[i]
    return values.value if isinstance(values, core.constexpr) else values


def call(hook, jitfn, key, options: CompileOptions, device, warmup, values=None):
    """Calls a JIT compile hook with Triton's arguments for the specialisation `key` (of
    the launch's bound `values`; None: rebuilt from the key)."""
    keys = key[0]
    signature = {p: _signature_entry(k) for p, k in zip(jitfn.arg_names, keys)}
    constants = {path: _value_of(k) if values is None or k[0] == "i" else _at(values, path)
                 for path, k in _paths(keys, _constant)}
    attrs = {path: [["tt.divisibility", 16]] for path, k in _paths(keys, _aligned)}
    fn = jitfn.fn
    full_name = f"{fn.__module__}.{fn.__qualname__}"
    data = json.dumps({
        "name": full_name, "signature": signature,
        "constant_keys": [list(p) for p in constants],
        "constant_vals": [_jsonable(str(v) if isinstance(v, core.dtype) else v)
                          for v in constants.values()],
        "attrs_keys": [list(p) for p in attrs], "attrs_vals": list(attrs.values()),
        "options": _options_dict(options), "key": _jsonable(key)})
    args = ", ".join(f"{p}: {s}" for p, s in signature.items())
    o = options
    text = (f"{fn.__qualname__}[num_warps={o.num_warps}, num_ctas=1, num_stages="
            f"{o.num_stages}, enable_fp_fusion={o.enable_fp_fusion}, "
            f"launch_cooperative_grid=False]({args})")
    compile_args = {"key": key, "signature": signature, "device": device,
                    "constants": constants, "num_warps": o.num_warps, "num_ctas": 1,
                    "num_stages": o.num_stages, "enable_fp_fusion": o.enable_fp_fusion,
                    "launch_cooperative_grid": False, "extern_libs": None,
                    "configs": [attrs], "specialization_data": data, "is_warmup": warmup}
    return hook(key=key, repr=text, fn=JitFunctionInfo(fn.__module__, fn.__qualname__, jitfn),
                compile=compile_args, is_manual_warmup=warmup, already_compiled=False)


def compile(jitfn, key, options, device, warmup, build, values=None):
    """Compiles a launch's specialisation `key` with `build()` as Triton's `_do_compile`
    does: the kernel goes into `device_caches[device][0]` (listing the device), between
    jit_cache_hook (a true result: nothing compiled, None returned) and
    jit_post_compile_hook, each called only when set."""
    cache = device_caches(jitfn)[device][0]
    r = knobs.runtime
    if r.jit_cache_hook is not None and call(r.jit_cache_hook, jitfn, key, options, device,
                                             warmup, values):
        return None

    def finalize(kernel):
        cache[key] = kernel
        if r.jit_post_compile_hook is not None:
            call(r.jit_post_compile_hook, jitfn, key, options, device, warmup, values)

    mode = _async_compile.active_mode.get()
    if mode is not None:  # triton.AsyncCompileMode: a FutureKernel, filed when resolved
        return mode.submit((id(jitfn), device, key), build, finalize)
    kernel = build()
    finalize(kernel)
    return kernel


def preload(jitfn, specialization_data: str):
    """Compiles the specialisation a compile hook saw (its `specialization_data`) as a
    warm-up launch would, and returns the kernel."""
    obj = json.loads(specialization_data)
    fn = jitfn.fn
    name = f"{fn.__module__}.{fn.__qualname__}"
    if obj.get("name") != name:
        raise RuntimeError(f"Specialization data is for {obj.get('name')} but trying to "
                           f"preload for {name}")
    key = _tupled(obj["key"])
    keys, options = key[0], CompileOptions(*key[1])
    specs = [_sources.spec_of(k, _value_of(k)) for k in keys]
    if len(key) == 3:
        device = driver.active.get_current_device()
        build = lambda: compile_launch(jitfn, specs, keys, options, key[2], device)  # noqa: E731
    else:
        device = "cpu"
        build = lambda: compile_kernel(jitfn, specs, options)  # noqa: E731
    return compile(jitfn, key, options, device, True, build)


__all__ = ["DeviceCaches", "JitFunctionInfo", "KernelCache", "call", "compile",
           "device_caches", "preload"]
