"""The GPU launch path.

`kernel[grid](*args)` with arguments in GPU memory (torch CUDA tensors, objects with
`__cuda_array_interface__`, DLPack capsules) comes here instead of the CPU interpreter:

- the C++ fast path (`_C.GpuDispatcher`, one per @jit function) binds the arguments,
  computes the specialisation key, finds the compiled kernel and launches it on the
  caller's current stream (torch's when torch is imported) without running Python code;
- on a miss, `run` below specialises the arguments, compiles (compiler/gpu.py: disk
  cache, else PTX from the code generator and ptxas / the driver JIT), registers the kernel
  with the fast path and launches.

Launches are asynchronous: a kernel that faults (an illegal address) is reported at the
next synchronisation. `tilec.synchronize()` waits and raises `tilec.CudaError` naming the
last kernel tilec launched on the device; later launches raise it too.
"""

from __future__ import annotations

import weakref

from . import _C, _args, _fastpath, _hooks, _introspect, _jit_cache, _options, _sources, knobs
from ._grid import LAUNCH_ATTRIBUTES, normalize_grid
from ._tensors import TensorWrapper
from ._async_compile import FutureKernel
# The compile step and the kernel it gives live in the compiler package; their names stay
# importable from here, where tests and benchmarks have always found them.
from .compiler.gpu import (GpuCompiledKernel, compile_launch, compile_specs, launch_arguments,
                           set_ptx_generator)
from .language import core
from .tools.tensor_descriptor import TensorDescriptor


def wants_gpu(args, kwargs) -> bool:
    """Whether a launch has an argument in GPU memory (the CPU path handles the rest): an
    array, or the base of a TensorDescriptor or a TensorWrapper."""
    if _any_device_array(args, kwargs):
        return True
    for v in (*args, *kwargs.values()):
        if isinstance(v, (TensorDescriptor, TensorWrapper)) and \
                _any_device_array((v.base,), {}):
            return True
        if isinstance(v, tuple) and v and wants_gpu(v, {}):  # arrays inside a tuple
            return True
    return False


def _no_gpu_support(args, kwargs):
    return False


# An extension built before the GPU runtime existed has no GPU path (a stale editable build).
_any_device_array = getattr(_C, "gpu_any_device_array", _no_gpu_support)


def synchronize(device=None):
    """Waits for the kernels launched on `device` (an index or torch.device; None: every
    device tilec launched on). A kernel fault raises tilec.CudaError naming the last
    kernel tilec launched there."""
    if device is None:
        index = -1
    elif hasattr(device, "index"):
        index = device.index if device.index is not None else _C.gpu_current_device()
    else:
        index = int(device)
    _C.gpu_synchronize(index)


def _dispatcher(jitfn):
    d = jitfn.__dict__.get("_gpu_dispatch")
    if d is None:
        params = jitfn.params
        d = _C.GpuDispatcher([p.name for p in params], [p.is_constexpr for p in params],
                             [p.specialize for p in params],
                             [(p.has_default, p.default, p.keyword_only) for p in params],
                             weakref.ref(jitfn),
                             core.constexpr, normalize_grid)
        jitfn._gpu_dispatch = d  # from now on kernel[grid] goes to the fast path first
        _fastpath.add(jitfn)
    return d


def _watch_globals(jitfn) -> bool:
    """Gives the fast path the globals the kernels read (a launch misses once one is bound
    to another object); False when one is a closure's cell, which it cannot watch."""
    used = jitfn.used_global_vals.items()
    if any(not isinstance(where, dict) for _, (_, where) in used):
        return False
    if used:
        _dispatcher(jitfn).watch([(where, name, where.get(name))
                                  for (name, _), (_, where) in used])
    return True


def fast_getitem(cls, py_getitem):
    """cls.__getitem__ in C: kernel[grid] binds through the launch fast path without running
    Python code once the function has one (py_getitem otherwise)."""
    make = getattr(_C, "gpu_getitem_descriptor", None)
    return py_getitem if make is None else make(cls, py_getitem)


def _specialize(jitfn, values, info):
    """(specs, keys, device) of a GPU launch; raises for mixed host/GPU arrays."""
    specs, keys = [], []
    device = gpu_param = host = None

    def on_device(name, dev):  # all device arrays of a launch on one device
        nonlocal device, gpu_param
        if dev >= 0:
            if device is not None and dev != device:
                raise ValueError(f"argument '{name}' is on cuda:{dev} but '{gpu_param}' is on "
                                 f"cuda:{device}: all tensors of a launch must be on one device")
            device = dev
        gpu_param = gpu_param or name

    for p, v, inf in zip(jitfn.params, values, info):
        wrapper = not p.is_constexpr and isinstance(v, TensorWrapper)
        if wrapper:  # the base's memory, the wrapper's element type
            inf = _C.gpu_classify([v.base], [p.name])[0]
            if inf is None:
                raise TypeError(f"argument '{p.name}': the TensorWrapper's base is a "
                                f"{type(v.base).__name__}, not an array")
        if not p.is_constexpr and inf is not None and inf[0] == "device":
            _, dtype, aligned, dev = inf
            if wrapper:
                dtype = _args.element_dtype(p.name, v.dtype)
            if p.typed is not None:
                kind, want = p.typed
                if kind != "pointer":
                    raise TypeError(f"argument '{p.name}' is declared {want} but got a GPU "
                                    "array")
                if want != dtype:
                    raise TypeError(f"argument '{p.name}' is declared a pointer to {want} but "
                                    f"the array holds {dtype}")
            on_device(p.name, dev)
            aligned = aligned and p.align  # do_not_specialize_on_alignment
            keys.append(("p", dtype, aligned))
            specs.append(("pointer", (dtype, aligned)))
            continue
        if not p.is_constexpr and inf is not None and inf[0] == "host":
            host = host or (p.name, inf[1])
            keys.append(None)
            specs.append(None)
            continue
        if not p.is_constexpr and isinstance(v, TensorDescriptor):
            wrapped = isinstance(v.base, TensorWrapper)  # reinterpret()ed memory
            binf = _C.gpu_classify([v.base.base if wrapped else v.base], [p.name])[0]
            if binf is None or binf[0] != "device":
                if binf is not None:
                    host = host or (p.name, binf[1])
                    keys.append(None)
                    specs.append(None)
                    continue
                raise TypeError(f"argument '{p.name}': the TensorDescriptor's base is a "
                                f"{type(v.base).__name__}, not an array")
            _, dtype, aligned, dev = binf
            if wrapped:
                dtype = v.base.dtype.ir_type
            on_device(p.name, dev)
            key = _args.desc_key(p.name, v, dtype, aligned)[0]
            keys.append(key)
            specs.append(_sources.spec_of(key, v))
            continue
        if not p.is_constexpr and isinstance(v, tuple):
            key = _tuple_key(p.name, v, p.specialize, on_device)
            keys.append(key)
            specs.append(_sources.spec_of(key, v))
            continue
        r = _args.specialize(p.name, v, p.is_constexpr, p.specialize, p.typed, p.align)
        key = r[0]
        keys.append(key)
        specs.append(r[1] if len(r) == 3 else _sources.spec_of(key, v))
    if host is not None:
        name, what = host
        raise ValueError(
            f"argument '{name}' is {what}, but argument '{gpu_param}' is on the GPU: a kernel "
            "runs either on the GPU (every array on one CUDA device) or on the CPU interpreter "
            f"(every array in host memory); move '{name}' with .cuda()")
    if device is None:
        device = _C.gpu_current_device()
    return specs, keys, device


def _tuple_key(name, v, specialize_ints, on_device):
    """The specialisation key of a tuple argument on the GPU path: arrays in GPU memory
    become pointers (on one device with the launch's others), the rest follows the
    interpreter's rule."""

    def leaf(sub, e, is_constexpr, spec_ints):
        if isinstance(e, tuple):
            return _args.tuple_arg(sub, e, spec_ints, leaf)
        inf = _C.gpu_classify([e], [sub])[0]
        if inf is not None and inf[0] == "device":
            _, dtype, aligned, dev = inf
            on_device(sub, dev)
            return ("p", dtype, aligned), None
        if inf is not None and inf[0] == "host":
            raise ValueError(f"argument '{sub}' is {inf[1]}, but the launch has arguments on "
                             f"the GPU: move '{sub}' with .cuda()")
        return _args.specialize(sub, e, False, spec_ints)

    return _args.tuple_arg(name, v, specialize_ints, leaf)[0]


def _always_compile() -> bool:
    return _C.env_flag("TILEC_ALWAYS_COMPILE")


def _other_target(device_arch, target, num_ctas, warmup):
    """The ptxas architecture of a launch's `arch=` (or TRITON_OVERRIDE_ARCH) when it is not
    the device's, else None; Triton's num_ctas check on the target either way. A kernel for
    another GPU is only compiled (warmup), as its cubin would not load on this one."""
    cc = _options.capability_of(target or device_arch)
    _options.check_num_ctas(num_ctas, cc)
    if not target:
        return None
    c, specific = _introspect.parse_target(f"cuda:{cc}")  # as Triton compiles for it
    arch = f"sm_{c}{'a' if specific else ''}"
    if arch == device_arch:
        return None
    if not warmup:
        raise ValueError(f"arch={target!r}: a kernel compiled for {arch} cannot run on this "
                         f"GPU ({device_arch}); compile it with warmup(..., arch=...)")
    return arch


def run(jitfn, grid, warmup, args, kwargs):
    """JITFunction.run for launches with GPU arguments. With TILEC_ALWAYS_COMPILE=1 (read
    when the launch gets here) the in-memory caches and the fast path are bypassed too."""
    always = _always_compile()
    watched = _hooks.watching_gpu(jitfn)  # launch hooks, launch metadata to profile
    d = jitfn.__dict__.get("_gpu_dispatch")
    if d is not None and not warmup and not always and not watched:
        r = d.launch(grid, args, kwargs)
        if r is not None:
            return r
    kw = dict(kwargs)
    stream = kw.pop("stream", None) if "stream" not in jitfn._index else None

    attrs = {k: kw.get(k) for k in LAUNCH_ATTRIBUTES if k not in jitfn._index}
    if "num_ctas" not in jitfn._index:  # scales the scratch request only (one CTA a program)
        attrs["num_ctas"] = kw.get("num_ctas")
    target = (kw.get("arch") if "arch" not in jitfn._index else None) or \
        knobs.runtime.override_arch  # Triton's arch option, TRITON_OVERRIDE_ARCH
    options = jitfn._options(kw)
    values = list(jitfn._bind(args, kw))
    ok, why = _C.gpu_driver_available()
    if not ok:
        name = next((n for n, v in zip(jitfn.arg_names, values) if wants_gpu((v,), {})), "?")
        raise ValueError(f"argument '{name}' lives in GPU memory, but tilec cannot run "
                         f"'{jitfn.__name__}' on a GPU here: {why}")
    info = _C.gpu_classify(values, jitfn.arg_names)
    specs, keys, device = _specialize(jitfn, values, info)
    arch = _C.gpu_device_arch(device)
    other = _other_target(arch, target, attrs.get("num_ctas"), warmup)
    if other:
        arch = other
    ck = (tuple(keys), options, arch)
    kernels = jitfn.__dict__.setdefault("_gpu_kernels", {})  # in-memory, by specialisation
    kernel = None if always else kernels.get(ck)
    if kernel is None:  # compiled into _gpu_kernels, through Triton's compile hooks
        build = (lambda: compile_specs(jitfn, specs, options, arch)) if other else \
            (lambda: compile_launch(jitfn, specs, keys, options, arch, device))
        kernel = _jit_cache.compile(jitfn, ck, options, device, warmup, build, values)
        if kernel is None:  # jit_cache_hook said it has the kernel elsewhere
            return None
        if isinstance(kernel, FutureKernel):  # triton.AsyncCompileMode
            if warmup:
                return kernel
            kernel = kernel.result()
    if other:  # compiled for another GPU: never on the fast path, never launched here
        return kernel
    if jitfn.used_global_vals:
        _sources.check_globals(jitfn)
    # the fast path keys enable_fp_fusion's default by TRITON_DEFAULT_FP_FUSION: a kernel
    # compiled from a knob set in Python only (knobs.propagate_env false) stays off it
    fp_keyed = (kwargs.get("enable_fp_fusion") is not None or
                options.enable_fp_fusion == _C.fp_fusion_env())
    if not always and not watched and fp_keyed and _watch_globals(jitfn):
        _dispatcher(jitfn).add(args, kwargs, kernel)
    if warmup:
        return kernel
    g = normalize_grid(grid, dict(zip(jitfn.arg_names, values)))
    names, values = launch_arguments(jitfn.arg_names, values)
    if watched:
        _hooks.launch(kernel, g, stream, values[:len(jitfn.arg_names)],
                      lambda: kernel._native.launch(g, stream, names, values, device, **attrs))
    else:
        kernel._native.launch(g, stream, names, values, device, **attrs)
    return kernel


__all__ = ["GpuCompiledKernel", "run", "set_ptx_generator", "synchronize", "wants_gpu"]
