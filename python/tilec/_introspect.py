"""What a compiled kernel shows its user: metadata, the IR of every stage under Triton's
names, SASS through cuobjdump / nvdisasm, registers and local memory read from a cubin; and
tilec.compile, the ahead-of-time entry point (no GPU needed)."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile

from . import _C, _sources
from .errors import CompilationError, TilecError, as_triton_error


class Metadata:
    """A compiled kernel's metadata: attributes (Triton's style) and item access.
    Registers and spills are looked up when first read (they may need the driver)."""

    def __init__(self, **fields):
        self.__dict__.update(fields)
        self._lazy = {}

    def __getattr__(self, name):
        lazy = self.__dict__.get("_lazy", {})
        if name in lazy:
            v = lazy[name]()
            setattr(self, name, v)
            return v
        raise AttributeError(name)

    def __getstate__(self):
        """The fields read so far (the lazy ones need this process's driver)."""
        return {**self.__dict__, "_lazy": {}}

    def __getitem__(self, name):
        try:
            return getattr(self, name)
        except AttributeError:
            raise KeyError(name) from None

    def __contains__(self, name):
        return name in self._fields()

    def _fields(self):
        return [k for k in self.__dict__ if not k.startswith("_")] + \
            [k for k in self._lazy if k not in self.__dict__]

    def _asdict(self):
        return {k: self[k] for k in self._fields()}

    def __repr__(self):
        return "Metadata(" + ", ".join(f"{k}={self[k]!r}" for k in self._fields()) + ")"


def ir_aliases(stages: dict) -> dict:
    """Stage dumps plus Triton's names: 'ttir' (the Tile IR the tile passes leave),
    'ttgir' (with layouts), 'tileir' = 'ttir', and 'thread_ir' (the last Thread IR)."""
    out = dict(stages)
    gpu = list(_C.gpu_stage_names())
    names = [n for n in stages if n != "thread_ir"]
    tile = [n for n in names if n not in gpu]
    if tile:
        out["ttir"] = out["tileir"] = stages[tile[-1]]
    layout_stages = gpu[gpu.index("layouts"):gpu.index("lower")]
    thread_stages = gpu[gpu.index("lower"):gpu.index("ptx")]
    with_layouts = [n for n in names if n in layout_stages]
    if with_layouts:
        out["ttgir"] = stages[with_layouts[-1]]
    thread = [n for n in names if n in thread_stages]
    if thread and "thread_ir" not in out:
        out["thread_ir"] = stages[thread[-1]]
    return out


def find_tool(name):
    """The path of CUDA tool `name` (ptxas, cuobjdump, nvdisasm), or None: ptxas as tilec
    compiles with it (docs/ENV.md, TILEC_PTXAS); the others on PATH, else beside ptxas."""
    if name == "ptxas":
        try:
            return _C.gpu_find_ptxas() or None
        except TilecError:  # TILEC_PTXAS names a missing file
            return None
    found = shutil.which(name)
    if found:
        return found
    ptxas = _C.gpu_find_ptxas()  # the toolkit that has ptxas usually has both
    if ptxas:
        cand = os.path.join(os.path.dirname(ptxas), name)
        if os.access(cand, os.X_OK):
            return cand
    return None


def sass(cubin: bytes, name: str):
    """The SASS of `cubin` (cuobjdump -sass, else nvdisasm), or None without those tools."""
    for tool, args in (("cuobjdump", ["-sass"]), ("nvdisasm", [])):
        path = find_tool(tool)
        if path is None:
            continue
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(d, "kernel.cubin")
            with open(f, "wb") as fh:
                fh.write(cubin)
            try:
                r = subprocess.run([path, *args, f], capture_output=True, text=True, timeout=60)
            except (OSError, subprocess.SubprocessError):
                continue
            if r.returncode == 0 and r.stdout.strip():
                return r.stdout
    return None


_EIATTR_REGCOUNT, _EIATTR_FRAME_SIZE = 0x2F, 0x11


def cubin_resources(cubin: bytes, name: str) -> dict:
    """{'n_regs', 'n_spills'} of kernel `name`, read from the cubin without a GPU: the
    `.nv.info` attributes REGCOUNT and FRAME_SIZE (local memory bytes per thread) of the
    symbol that `.text.<name>` names. Empty when the cubin does not have them."""
    try:
        if len(cubin) < 64 or cubin[:4] != b"\x7fELF" or cubin[4] != 2:
            return {}
        shoff, = struct.unpack_from("<Q", cubin, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
        sections = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize)
                    for i in range(shnum)]
        names_at = sections[shstrndx][4]

        def sec_name(sec):
            start = names_at + sec[0]
            return cubin[start:cubin.index(b"\0", start)]

        by_name = {sec_name(sec): sec for sec in sections}
        text = by_name.get((".text." + name).encode())
        info = by_name.get(b".nv.info")
        if text is None or info is None:
            return {}
        sym = text[7]  # sh_info of a .text section: its function's symbol
        data = cubin[info[4]:info[4] + info[5]]
        out = {}
        i = 0
        while i + 4 <= len(data):
            fmt, attr = data[i], data[i + 1]
            if fmt != 4:  # fixed-size entries
                i += 4
                continue
            size, = struct.unpack_from("<H", data, i + 2)
            if size == 8:
                s, value = struct.unpack_from("<II", data, i + 4)
                if s == sym and attr == _EIATTR_REGCOUNT:
                    out["n_regs"] = value
                elif s == sym and attr == _EIATTR_FRAME_SIZE:
                    out["n_spills"] = value
            i += 4 + size
        return out
    except (struct.error, ValueError, IndexError):
        return {}


def parse_target(target) -> tuple:
    """"cuda:90" / "sm_90a" / "sm_80" / 90 -> (compute capability, arch-specific 'a'), by
    the rules every entry point shares (src/support/Target.h): "cuda:90" and 90 mean the
    Hopper features too (sm_90a), as Triton compiles for them; "sm_90" does not."""
    return _C.parse_target(str(target).strip().lower())


def compile(fn, signature, constexprs=None, num_warps=4, num_stages=3, debug=False,
            target="cuda:90", enable_fp_fusion=True, maxnreg=None):
    """Compiles a @jit function ahead of time for a GPU, without one present.

    `signature` is `tilec ptx`'s string, one entry per non-constexpr parameter in order
    (e.g. "*fp32:16,*fp32:16,*fp32:16,i32": pointers to fp32, 16-byte aligned, and an
    i32), or a dict {parameter: entry}; `constexprs` gives the constexpr parameters'
    values ({"BLOCK_SIZE": 1024}). `enable_fp_fusion` and `maxnreg` are the launch options
    of the same names. Returns a CompiledKernel with `asm["ptx"]`,
    `asm["cubin"]` when ptxas is found, the IR of every stage, and `metadata`."""
    from . import _gpu  # late: _gpu imports this module

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
    cc, specific = parse_target(target)
    fs = _sources.function_source(jitfn)
    try:
        r = _C.compile_aot(fs, signature, constexprs, num_warps, num_stages, bool(debug), cc,
                           specific, bool(enable_fp_fusion), maxnreg or 0)
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
    options = (num_warps, num_stages, bool(debug), bool(enable_fp_fusion), maxnreg)
    return _gpu.GpuCompiledKernel(native, jitfn, options, r["arch"], stages=stages)
