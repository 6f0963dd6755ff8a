"""Compiling a kernel for a GPU, and the kernel it gives (`GpuCompiledKernel`). Three
entry points share the code generator (`_C.compile_ptx`, or the generator tests set with
`set_ptx_generator`) and tilec's disk cache of kernels:

- `compile_launch`: a launch's specialisation, for the GPU launch path (_gpu.py), loaded
  on the launch's device;
- `compile_specs`: one specialisation given as specs, for `triton.compile(ASTSource(...))`
  (compiler.py), with no GPU needed;
- `compile_aot`: tilec's own form of `tilec.compile(fn, signature, ...)`, ahead of time
  through `_C.compile_aot` (which takes descriptor and tuple signatures too).

The options of a compilation are a `CompileOptions` (_options.py)."""

from __future__ import annotations

from .. import _C, _introspect, _sources, knobs
from .._options import CompileOptions
from .._tensors import TensorWrapper
from ..errors import CompilationError, as_triton_error
from ..tools.tensor_descriptor import TensorDescriptor
from .kernel import CompiledKernel

# (jitfn, fs, specs, options, arch) -> (ptx text, metadata dict). The metadata names the
# .entry ("name") and lists its .params as (jit parameter name, kind) with kinds "ptr",
# "i1", "i8".."i64", "u8".."u64", "fp16", "bf16", "fp32", "fp64"; optional: "num_warps",
# "num_stages", "shared" (dynamic shared memory bytes), "static_output". None: the
# compiler's own code generator (_C.compile_ptx).
_ptx_generator = None


def set_ptx_generator(fn):
    """Replaces the PTX code generator (tests and benchmarks use hand-written PTX); None
    restores tilec's own. Returns the previous one."""
    global _ptx_generator
    prev, _ptx_generator = _ptx_generator, fn
    return prev


def _generate_ptx(jitfn, fs, specs, options, arch):
    if _ptx_generator is not None:
        return _ptx_generator(jitfn, fs, specs, options, arch)
    gen = getattr(_C, "compile_ptx", None)
    if gen is None:
        raise CompilationError(
            f"cannot compile '{jitfn.__name__}' for the GPU: tilec's PTX code generation is "
            "not built yet. Run the kernel on the CPU interpreter with host arrays (numpy "
            "arrays or CPU tensors)")
    try:
        return gen(fs, specs, options.num_warps, options.num_stages, options.debug, arch,
                   enable_fp_fusion=options.enable_fp_fusion, maxnreg=options.maxnreg or 0,
                   enable_reflect_ftz=options.enable_reflect_ftz,
                   tma=bool(_C.env_flag("TILEC_TMA")))
    except CompilationError as e:
        err = as_triton_error(e)
        raise err.with_traceback(None) from err.__cause__


class _InProcess:
    """A value that stays in its process: it pickles as None (a kernel's FunctionSource is
    a C++ object; a kernel moved elsewhere keeps the IR it had already read)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __reduce__(self):
        return type(None), ()


class GpuCompiledKernel(CompiledKernel):
    """A kernel compiled for a GPU. `asm`: 'ptx' (text), 'cubin' (bytes, when built), the
    Tile IR after each pipeline stage ('ttir' before layouts, 'ttgir' with layouts), the
    'thread_ir', and 'sass' (disassembled when first read) when cuobjdump or nvdisasm is
    found. `metadata`: name, num_warps, num_stages, shared (dynamic shared memory bytes),
    n_regs, n_spills (bytes of local memory per thread), arch, target. `n_regs` / `n_spills` come from the driver
    when a GPU is present, else from the cubin."""

    def __init__(self, native, jitfn, options, arch, source=None, stages=None):
        self.module = native  # the C++ kernel (Triton's `module`: the loaded binary)
        self._class = GpuCompiledKernel
        self.function = jitfn
        self.name = native.name
        self._fp_fusion, self._maxnreg = options.enable_fp_fusion, options.maxnreg
        self._reflect_ftz = options.enable_reflect_ftz
        # TMA as the kernel was built (made now, after its build): the stages' IR is
        # recompiled with it, else descriptors come back without maps (nor TMA rings)
        self._tma = bool(_C.env_flag("TILEC_TMA"))
        meta = native.metadata
        self.metadata = _introspect.Metadata(
            # the launch option, as Triton reports it (the block may add producer warps)
            name=self.name, num_warps=options.num_warps, num_stages=options.num_stages,
            debug=options.debug,
            shared=meta["shared"], arch=arch, target="cuda:" + arch[3:].rstrip("a"),
            compiler=meta["compiler"])
        self.metadata._lazy = {"n_regs": lambda: self.n_regs, "n_spills": lambda: self.n_spills}
        self.arg_names = [p[0] for p in meta["params"]]
        # (fs, specs): recompiled on the first asm access for the IR of each stage (a
        # kernel from the disk cache has only PTX and cubin)
        self._source = _InProcess(source) if source is not None else None
        self._stages = stages
        self._asm = None

    @property
    def asm(self) -> dict:
        if self._asm is None:
            stages = self._stages
            make = None
            if stages is None and self._source is not None:
                def make():  # the stages' IR: recompiled, when first read
                    fs, specs = self._source.value
                    m = self.metadata
                    k = _C.compile_simt(fs, specs, m.num_warps, m.num_stages, m.debug, m.arch,
                                        enable_fp_fusion=self._fp_fusion,
                                        maxnreg=self._maxnreg or 0,
                                        enable_reflect_ftz=self._reflect_ftz, tma=self._tma)
                    st = {s: k.ir(s) for s in k.stages}
                    st["thread_ir"] = k.thread_ir
                    return _introspect.ir_aliases(st)
            asm = dict(_introspect.ir_aliases(stages or {}))
            asm["ptx"] = self._native.ptx
            cubin = self._native.cubin
            if cubin:
                asm["cubin"] = cubin
            self._asm = _introspect.AsmDict(asm, cubin, self.name, make)
        return self._asm

    def _device(self):
        ok, _ = _C.gpu_driver_available()
        return _C.gpu_current_device() if ok and _C.gpu_device_count() > 0 else None

    @property
    def n_regs(self):
        d = self._device()
        if d is not None:
            return self._native.num_regs(d)
        return _introspect.cubin_resources(self._native.cubin, self.name).get("n_regs")

    @property
    def n_spills(self):
        """Local memory per thread in bytes (what ptxas spilled registers to); from the
        cubin when no GPU is present (None without a cubin)."""
        d = self._device()
        if d is not None:
            return self._native.spill_bytes(d)
        return _introspect.cubin_resources(self._native.cubin, self.name).get("n_spills")

    def _launch_options(self) -> dict:
        m = self.metadata
        return {"num_warps": m.num_warps, "num_stages": m.num_stages, "debug": m.debug,
                "enable_fp_fusion": self._fp_fusion, "maxnreg": self._maxnreg,
                "enable_reflect_ftz": self._reflect_ftz}

    def portable(self):
        """Makes the kernel's __dict__ picklable (a kernel triton.compile returns may be
        sent to another process, as Inductor's compile workers do): the binary to reload
        there. The source to recompile the stages' IR from stays here (_InProcess)."""
        n = self.module
        self._binary = (n.ptx, n.cubin, dict(n.metadata))

    def _launch_args(self, grid, stream, args):
        names, values = launch_arguments(self.function.arg_names, list(args))
        self._native.launch(grid, stream, names, values)

    def _init_handles(self):
        """Loads the module on the current device (Triton's tutorials call this before
        reading n_regs / n_spills)."""
        if self.__dict__.get("module") is None:  # moved here from another process
            ptx, cubin, meta = self._binary
            self.module = _C.GpuKernel(ptx, cubin, meta)
        self._restore_handles()
        d = self._device()
        if d is not None:
            self._native.num_regs(d)


def launch_arguments(names, values):
    """The launch's names and values as the native launch takes them: each
    TensorDescriptor's parts and each tuple's elements added under the names of the
    kernel's .params (d.base, d.shape.<i>, d.stride.<i>: every stride but the last, which
    is 1; d.tmap: the descriptor itself, whose TMA map the launch encodes; t.<i>,
    t.<i>.<j>, ...), and tensor wrappers unwrapped."""
    extra_names, extra = [], []

    def add(n, v):
        if isinstance(v, TensorDescriptor):
            extra_names.append(n + ".base")
            extra.append(v.base.base if isinstance(v.base, TensorWrapper) else v.base)
            for i, x in enumerate(v.shape):
                extra_names.append(f"{n}.shape.{i}")
                extra.append(int(x))
            for i, x in enumerate(list(v.strides)[:-1]):
                extra_names.append(f"{n}.stride.{i}")
                extra.append(int(x))
            extra_names.append(n + ".tmap")  # the launch encodes its TMA map, when taken
            extra.append(v)
        elif isinstance(v, tuple):
            for i, e in enumerate(v):
                extra_names.append(f"{n}.{i}")
                extra.append(e)
                add(f"{n}.{i}", e)

    for n, v in zip(names, values):
        add(n, v)
    if extra:
        names, values = list(names) + extra_names, list(values) + extra
    return names, [v.base if isinstance(v, TensorWrapper) else v for v in values]


def _ptx_and_meta(jitfn, fs, specs, options, arch):
    """The PTX and metadata of the code generator, the metadata completed with the options;
    a static_print's output is printed here, when the kernel is compiled (as Triton does)."""
    ptx, meta = _generate_ptx(jitfn, fs, specs, options, arch)
    meta = dict(meta)
    meta.setdefault("num_warps", options.num_warps)
    meta.setdefault("num_stages", options.num_stages)
    static_output = meta.pop("static_output", "")
    if static_output:
        print(static_output, end="", flush=True)
    return ptx, meta


def compile_launch(jitfn, specs, keys, options: CompileOptions, arch, device):
    """The kernel of a GPU launch's specialisation (`keys`, made into `specs`), built and
    loaded on `device`: from the disk cache, else generated and stored there."""
    fs = _sources.entry_source(jitfn, specs)
    opts = options.disk_cache_text()
    if _ptx_generator is not None:  # hand-written PTX must not be mistaken for tilec's
        opts += f";generator={_ptx_generator.__module__}.{_ptx_generator.__qualname__}"
    key = _C.gpu_cache_key(fs, repr(tuple(keys)), opts, arch)
    cache_dir = knobs.cache.dir  # TRITON_CACHE_DIR or the knob, else tilec's own
    native = None if knobs.compilation.always_compile else \
        _C.GpuKernel.load_cached(key, cache_dir)
    if native is None:
        ptx, meta = _ptx_and_meta(jitfn, fs, specs, options, arch)
        native = _C.gpu_build(ptx, meta, arch, device)
        native.store(key, cache_dir)  # best effort: a read-only cache only costs a recompile
    kernel = GpuCompiledKernel(native, jitfn, options, arch, source=(fs, specs))
    kernel.hash = key
    return kernel


def compile_specs(jitfn, specs, options: CompileOptions, arch) -> GpuCompiledKernel:
    """The PTX and cubin (when ptxas is found) of `jitfn` for `specs` and `arch`, with no
    GPU needed, the stages' IR made only when read (Inductor compiles hundreds of kernels
    and reads none); from the disk cache when this specialisation was compiled before (a
    warm start of torch.compile compiles every kernel again through here)."""
    fs = _sources.function_source(jitfn)
    # the options as a plain tuple's repr: the text every key written so far holds
    key = _C.gpu_cache_key(fs, "ast:" + repr(specs), repr(tuple(options)), arch)
    always = knobs.compilation.always_compile
    native = None if always else _C.GpuKernel.load_cached(key, knobs.cache.dir)
    if native is None:
        ptx, meta = _ptx_and_meta(jitfn, fs, specs, options, arch)
        cubin, meta["compiler"] = b"", "none"
        if _C.gpu_find_ptxas():
            cubin, meta["compiler"], _log, _secs = _C.gpu_compile_ptx(ptx, arch, meta["name"])
        native = _C.GpuKernel(ptx, cubin, meta)
        native.store(key, knobs.cache.dir)  # best effort, as compile_launch's
    return GpuCompiledKernel(native, jitfn, options, arch, source=(fs, specs))


def compile_aot(fn, signature, constexprs=None, num_warps=4, num_stages=3, debug=False,
                target="cuda:90", enable_fp_fusion=True, maxnreg=None, enable_reflect_ftz=True):
    """Compiles a @jit function ahead of time for a GPU, without one present.

    `signature` is `tilec ptx`'s string, one entry per non-constexpr parameter in order
    (e.g. "*fp32:16,*fp32:16,*fp32:16,i32": pointers to fp32, 16-byte aligned, and an
    i32), or a dict {parameter: entry}; `constexprs` gives the constexpr parameters'
    values ({"BLOCK_SIZE": 1024}). `enable_fp_fusion`, `maxnreg` and `enable_reflect_ftz` are
    the launch options of the same names. Returns a CompiledKernel with `asm["ptx"]`,
    `asm["cubin"]` when ptxas is found, the IR of every stage, and `metadata`."""
    jitfn = getattr(fn, "jit_function", fn)
    # values in the compiler's forms (a dtype, a @jit function, a tuple of them ...)
    build = _sources.SourceBuilder().build
    constexprs = {k: _sources.to_global(v, build) for k, v in (constexprs or {}).items()}
    if isinstance(signature, dict):
        unknown = [k for k in signature if k not in jitfn.arg_names]
        if unknown:
            raise ValueError(f"signature names unknown parameters {unknown} of "
                             f"'{jitfn.__name__}'")
        signature = ",".join(str(signature[n]) for n in jitfn.arg_names if n in signature)
    options = CompileOptions(num_warps, num_stages, bool(debug), bool(enable_fp_fusion),
                             maxnreg, bool(enable_reflect_ftz))
    cc, specific = _introspect.parse_target(target)
    fs = _sources.function_source(jitfn)
    try:
        r = _C.compile_aot(fs, signature, constexprs, options.num_warps, options.num_stages,
                           options.debug, cc, specific, options.enable_fp_fusion,
                           options.maxnreg or 0, options.enable_reflect_ftz)
    except CompilationError as e:
        err = as_triton_error(e)
        raise err.with_traceback(None) from err.__cause__
    if r["static_output"]:
        print(r["static_output"], end="", flush=True)
    meta = {k: r[k] for k in ("name", "arch", "num_warps", "num_stages", "shared", "params")}
    cubin, compiler = b"", "none"
    if _C.gpu_find_ptxas():
        cubin, compiler, _log, _secs = _C.gpu_compile_ptx(r["ptx"], r["arch"], r["name"])
    meta["compiler"] = compiler
    native = _C.GpuKernel(r["ptx"], cubin, meta)
    stages = dict(r["stages"])
    stages["thread_ir"] = r["thread_ir"]
    return GpuCompiledKernel(native, jitfn, options, r["arch"], stages=stages)


__all__ = ["GpuCompiledKernel", "compile_aot", "compile_launch", "compile_specs",
           "set_ptx_generator"]
