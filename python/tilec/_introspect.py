"""What a compiled kernel shows its user: metadata, the IR of every stage under Triton's
names, SASS through cuobjdump / nvdisasm, registers and local memory read from a cubin; the
CUDA tools and compile targets. (tilec.compile's ahead-of-time form is compiler/gpu.py's.)"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile

from . import _C
from .errors import TilecError


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


class AsmDict(dict):
    """A kernel's `asm`. Its 'ptx' and 'cubin' are there at once; the IR of every stage is
    made (`stages()`, a recompile) when any other key is read or the keys are listed, and
    'sass' is disassembled when read (as Triton's AsmDict: cuobjdump is a process of its
    own); 'sass' is not among the keys until then. Most readers want only the PTX."""

    def __init__(self, items, cubin=None, name="", stages=None):
        super().__init__(items)
        self._sass_of = (cubin, name) if cubin else None
        self._stages = stages

    def _make_stages(self):
        if self._stages is not None:
            make, self._stages = self._stages, None
            for k, v in make().items():
                self.setdefault(k, v)

    def _disassemble(self):
        if self._sass_of is not None:
            cubin, name = self._sass_of
            self._sass_of = None
            text = sass(cubin, name)
            if text is not None:
                self["sass"] = text

    def _resolve(self, key):
        if key == "sass":
            self._disassemble()
        else:
            self._make_stages()

    def __missing__(self, key):
        self._resolve(key)
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        raise KeyError(key)

    def __contains__(self, key):
        if not dict.__contains__(self, key):
            self._resolve(key)
        return dict.__contains__(self, key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def keys(self):
        self._make_stages()
        return dict.keys(self)

    def values(self):
        self._make_stages()
        return dict.values(self)

    def items(self):
        self._make_stages()
        return dict.items(self)

    def __iter__(self):
        self._make_stages()
        return dict.__iter__(self)

    def __len__(self):
        self._make_stages()
        return dict.__len__(self)

    def __repr__(self):
        self._make_stages()
        return dict.__repr__(self)

    def __reduce__(self):  # a pickled asm holds what was made so far (no recompile there)
        return (AsmDict, (dict(self),))


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
        # sh_info of a .text section: its function's symbol in the low 24 bits (cubins
        # before sm_90 keep the register count in the top 8)
        sym = text[7] & 0xFFFFFF
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
