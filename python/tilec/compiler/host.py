"""Compiling one specialisation for the host (through `_C.compile`) and the kernel a launch
with host arrays returns: the IR of every pipeline stage, metadata, and the launch on the
tile interpreter (or, with TILEC_SIMT=1, the SIMT simulator)."""

from __future__ import annotations

import sys

from .. import _C, _args, _interpret, _introspect, _sources
from .._options import CompileOptions
from ..errors import CompilationError, as_triton_error
from .kernel import CompiledKernel

# While tilec.tools.access_map runs a kernel: a list that receives, per launch, the buffers'
# (name, base, bytes) and the raw access records; None otherwise.
ACCESS_LOG = None


class HostKernel(CompiledKernel):
    """A kernel compiled for one specialisation, run on the host. `asm` maps a stage name
    to its Tile IR text ('ttir' is the final Tile IR, as Triton's key for its tile-level
    IR)."""

    def __init__(self, native, jitfn, specs, options):
        self.module = native  # the compiled program (Triton's `module`)
        self._class = HostKernel
        self.name = native.name
        self.function = jitfn
        # shared memory, registers and spills belong to GPU code: none on the interpreter
        self.metadata = _introspect.Metadata(name=self.name, num_warps=options.num_warps,
                                             num_stages=options.num_stages,
                                             debug=options.debug, shared=0,
                                             n_regs=None, n_spills=None,
                                             target="cpu-tile-interpreter")
        self.static_output = native.static_output
        self.arg_names = list(native.arg_names)
        param_index = {n: i for i, n in enumerate(jitfn.arg_names)}
        # a tensor descriptor parameter `d` is several arguments: d.base, d.shape.<i>,
        # d.stride.<i> (the parts of its DescArg); a tuple parameter `t` one per run-time
        # leaf: t.0, t.1.2 (the path into its tuple of run-time values)
        parts = [n.split(".") for n in self.arg_names]
        missing = [n for n, p in zip(self.arg_names, parts) if p[0] not in param_index]
        if missing:
            raise RuntimeError(f"tilec internal error: the compiled kernel has unknown "
                               f"parameters {missing}")
        self._runtime_index = [param_index[p[0]] for p in parts]
        # positions (in arg_names) of pointer arguments: their ArrayArg becomes an address
        # and a buffer
        self._pointer_slots = [j for j, n in enumerate(self.arg_names)
                               if specs[param_index[n]][0] == "pointer"] \
            if all(len(p) == 1 for p in parts) else None
        self._parts = [(j, p[0], tuple(int(x) if x.isdigit() else x for x in p[1:]))
                       for j, p in enumerate(parts)
                       if len(p) > 1 or specs[param_index[p[0]]][0] == "pointer"]
        self._asm = None
        # breakpoint() in the kernel: launches stop in pdb (tilec/_debugger.py); decided once
        self._breakpoints = bool(getattr(native, "has_breakpoints", False))

    def _init_handles(self):
        if self.__dict__.get("module") is None:
            raise RuntimeError(
                f"kernel '{self.name}' was compiled for tilec's CPU interpreter in another "
                "process, and such a kernel cannot move between processes: compile it in "
                "this one (with torch.compile: torch._inductor.config.compile_threads = 1)")
        self._restore_handles()

    @property
    def asm(self) -> dict:
        if self._asm is None:
            asm = _introspect.ir_aliases(
                {stage: self._native.ir(stage) for stage in self._native.stages})
            final = self._native.ir()
            asm["tileir"] = final
            asm["ttir"] = final
            ptx = getattr(self._native, "ptx", None)  # TILEC_SIMT=1: the GPU path's output
            if ptx:
                asm["ptx"] = ptx
                asm["thread_ir"] = self._native.thread_ir
            self._asm = asm
        return self._asm

    def ir(self, stage: str = "") -> str:
        """The Tile IR after `stage` (a name from tilec's pipeline; '' for the final IR)."""
        return self._native.ir(stage)

    @property
    def stages(self):
        return list(self._native.stages)

    def launch(self, grid, values):
        """Runs the kernel over `grid` (3 ints) with `values`, one run-time value per @jit
        parameter (ArrayArg for pointers, None for constexprs)."""
        if grid[0] * grid[1] * grid[2] == 0:
            return
        args = [values[i] for i in self._runtime_index]
        buffers = []
        names = self.arg_names
        if self._pointer_slots is not None:
            for j in self._pointer_slots:
                a = args[j]
                args[j] = a.ptr
                buffers.append((names[j], a.lo, a.nbytes, a.writable))
        else:
            self._unpack_parts(args, buffers)
        if self._breakpoints:
            from .. import _debugger  # pdb inside the kernel: its globals for expressions

            with _debugger.launching(self.function):
                out = self._native.run(grid, args, buffers)
        elif ACCESS_LOG is not None and hasattr(self._native, "run_logged"):
            out, events = self._native.run_logged(grid, args, buffers)
            ACCESS_LOG.append(([b[:3] for b in buffers], tuple(grid), events))
        else:
            out = self._native.run(grid, args, buffers)
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()

    def _launch_args(self, grid, stream, args):
        fn = self.function
        if len(args) != len(fn.params):
            raise TypeError(f"'{self.name}' takes {len(fn.params)} arguments, got {len(args)}")
        specialize = _args.specialize
        self.launch(grid, [None if p.is_constexpr else
                           specialize(p.name, v, False, p.specialize, p.typed)[1]
                           for p, v in zip(fn.params, args)])

    def _launch_options(self) -> dict:
        m = self.metadata
        return {"num_warps": m.num_warps, "num_stages": m.num_stages, "debug": m.debug}

    def _unpack_parts(self, args, buffers):
        """Pointer, tensor descriptor and tuple arguments in place: addresses, shapes,
        strides, tuple leaves; a buffer per pointer and per descriptor base, named after
        the parameter (and the tuple index: `t[1]`)."""
        for j, param, path in self._parts:
            v = args[j]
            k = 0
            while k < len(path) and isinstance(path[k], int):  # into a tuple
                v = v[path[k]]
                k += 1
            part = path[k] if k < len(path) else None
            name = param + "".join(f"[{i}]" for i in path[:k])
            if part == "tmap":  # the simulator encodes its map from these
                args[j] = (v.base.dtype, v.base.ptr, list(v.shape), list(v.strides) + [1])
            elif part == "shape":
                args[j] = v.shape[path[k + 1]]
            elif part == "stride":
                args[j] = v.strides[path[k + 1]]
            elif part == "base" or isinstance(v, _args.ArrayArg):
                a = v.base if part == "base" else v
                args[j] = a.ptr
                buffers.append((name, a.lo, a.nbytes, a.writable))
            else:  # a scalar inside a tuple
                args[j] = v


def compile_kernel(jitfn, specs, options: CompileOptions) -> HostKernel:
    """Compiles `jitfn` for `specs` (one (kind, payload) per parameter) and `options` (the
    interpreter ignores enable_fp_fusion and maxnreg). Prints static_print output, as Triton
    does."""
    fs = _sources.entry_source(jitfn, specs)
    try:
        # TILEC_SIMT=1: the lowered GPU code on the SIMT simulator (tests the GPU path
        # without a GPU); otherwise the tile interpreter
        if _C.env_flag("TILEC_SIMT"):
            native = _C.compile_simt(fs, specs, options.num_warps, options.num_stages,
                                     options.debug, enable_fp_fusion=options.enable_fp_fusion,
                                     maxnreg=options.maxnreg or 0,
                                     enable_reflect_ftz=options.enable_reflect_ftz,
                                     tma=bool(_C.env_flag("TILEC_TMA")))
        else:
            native = _C.compile(fs, specs, options.num_warps, options.num_stages, options.debug)
    except CompilationError as e:
        err = as_triton_error(e, interpreting=_interpret.enabled())
        raise err.with_traceback(None) from err.__cause__
    kernel = HostKernel(native, jitfn, specs, options)
    kernel.hash = _C.gpu_cache_key(fs, repr(specs), repr(tuple(options)), "cpu")
    if kernel.static_output:
        sys.stdout.write(kernel.static_output)
        sys.stdout.flush()
    return kernel


__all__ = ["HostKernel", "compile_kernel"]
