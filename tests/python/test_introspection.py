"""Introspection as Triton users know it: kernel.warmup compiles without launching,
CompiledKernel.asm (the IR after each stage, PTX, cubin, SASS) and .metadata, and the list
of a kernel's compiled variants. CPU tests run everywhere; `gpu` ones on an H100."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tilec
import tilec as triton
import tilec.language as tl
from tilec import _C, _introspect

from gpu_util import HAVE_GPU, torch


@triton.jit
def scale(X, Y, n, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(Y + offs, tl.load(X + offs, mask=m) * s, mask=m)


def test_cpu_warmup_metadata_and_asm():
    x = np.ones(64, np.float32)
    y = np.zeros_like(x)
    k = scale.warmup(x, y, 64, 2.0, BLOCK=32, grid=(2,), num_warps=2)
    assert not y.any()  # compiled, not run
    md = k.metadata
    assert (md.name, md.num_warps, md.num_stages, md.shared) == ("scale", 2, 3, 0)
    assert md.n_regs is None and md.n_spills is None  # no registers on the interpreter
    assert md["target"] == "cpu-tile-interpreter" and "shared" in md
    assert "frontend" in k.asm and "scale" in k.asm["ttir"]
    assert "ptx" not in k.asm


def test_compiled_variants_lists_each_specialisation():
    @triton.jit
    def k(X, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(X + offs, tl.load(X + offs, mask=offs < n), mask=offs < n)

    x32 = np.zeros(64, np.float32)
    k[(1,)](x32, 64, BLOCK=64)
    k[(1,)](x32, 7, BLOCK=64)            # n not divisible by 16: a second variant
    k[(1,)](np.zeros(64, np.float16), 64, BLOCK=32, num_warps=8)
    v = k.compiled_variants()
    assert len(v) == 3
    assert all(x.target == "cpu" for x in v)
    assert {x.options["num_warps"] for x in v} == {4, 8}
    assert v[2].specialization["BLOCK"] is not None
    assert all(isinstance(x.kernel, tilec.CompiledKernel) for x in v)


def test_compiled_variants_through_autotune_and_heuristics():
    @triton.heuristics(values={"BLOCK": lambda a: 16})
    @triton.jit
    def h(X, BLOCK: tl.constexpr):
        tl.store(X + tl.arange(0, BLOCK), 1.0)

    h[(1,)](np.zeros(16, np.float32))
    assert len(h.compiled_variants()) == 1


def test_compile_options_are_one_named_tuple():
    """The options of a compilation: fields by name, yet hashing and comparing as the plain
    tuple the caches were keyed by; the disk cache's spelling of them must never change
    (every GPU kernel on disk is keyed by it)."""
    from tilec._options import CompileOptions

    x = np.zeros(64, np.float32)
    o = scale._options({"num_warps": 8, "maxnreg": 64, "debug": False, "n": 1})
    assert isinstance(o, CompileOptions) and (o.num_warps, o.maxnreg) == (8, 64)
    assert o == (8, 3, False, True, 64, True) and hash(o) == hash((8, 3, False, True, 64, True))
    assert CompileOptions().disk_cache_text() == \
        "num_warps=4;num_stages=3;debug=0;fp_fusion=1;maxnreg=0"
    assert o._replace(debug=True, enable_fp_fusion=False).disk_cache_text() == \
        "num_warps=8;num_stages=3;debug=1;fp_fusion=0;maxnreg=64"
    assert o._replace(enable_reflect_ftz=False).disk_cache_text().endswith(";reflect_ftz=0")
    scale[(1,)](x, x, 64, 1.0, BLOCK=64, num_stages=2)
    (variant,) = [v for v in scale.compiled_variants() if v.options["num_stages"] == 2]
    assert variant.options == {"num_warps": 4, "num_stages": 2, "debug": False,
                               "enable_fp_fusion": True, "maxnreg": None,
                               "enable_reflect_ftz": True}


def test_simt_kernels_show_their_ptx(monkeypatch):
    monkeypatch.setenv("TILEC_SIMT", "1")

    @triton.jit
    def k(X, BLOCK: tl.constexpr):
        tl.store(X + tl.arange(0, BLOCK), 1.0)

    c = k.warmup(np.zeros(32, np.float32), BLOCK=32, grid=(1,))
    assert ".entry k" in c.asm["ptx"] and c.asm["ttgir"] and c.asm["thread_ir"]


def test_ir_aliases():
    a = _introspect.ir_aliases({"frontend": "f", "cleanup": "c", "layouts": "l",
                                "allocate-shared": "s", "lower": "t", "ptx": "p"})
    assert a["ttir"] == "c" and a["ttgir"] == "s" and a["thread_ir"] == "t"


def test_metadata_object():
    m = _introspect.Metadata(name="k", shared=0)
    m._lazy = {"n_regs": lambda: 40}
    assert m.n_regs == 40 and m["n_regs"] == 40 and "n_regs" in m
    assert m._asdict() == {"name": "k", "shared": 0, "n_regs": 40}
    with pytest.raises(KeyError):
        m["nope"]


def test_cubin_resources_rejects_garbage():
    assert _introspect.cubin_resources(b"not an elf", "k") == {}
    assert _introspect.cubin_resources(b"\x7fELF\x02" + b"\0" * 100, "k") == {}


@pytest.mark.parametrize("target", ["cuda:80", "cuda:89", "cuda:90"])
def test_registers_are_read_from_every_targets_cubin(target):
    # cubins before sm_90 keep the register count in the top bits of the .text section's
    # symbol field: n_regs was None for sm_80 and sm_89
    if not _C.gpu_find_ptxas():
        pytest.skip("ptxas not found")
    k = triton.compile(scale, signature="*fp32:16,*fp32:16,i32,fp32",
                       constexprs={"BLOCK": 256}, target=target)
    assert k.metadata.n_regs > 0 and k.metadata.n_spills == 0


# -- on the GPU ----------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_gpu_warmup_compiles_without_launching():
    x = torch.ones(1024, device="cuda")
    y = torch.zeros_like(x)
    k = scale.warmup(x, y, 1024, 3.0, BLOCK=256, grid=(4,))
    torch.cuda.synchronize()
    assert not y.any().item()  # nothing ran
    md = k.metadata
    assert md.name == "scale" and md.num_warps == 4 and md.shared >= 0
    assert md.n_regs > 0 and md.n_spills == 0, (md.n_regs, md.n_spills)
    asm = k.asm
    assert ".entry scale" in asm["ptx"] and asm["cubin"][:4] == b"\x7fELF"
    assert "scale" in asm["ttir"] and asm["ttgir"] != asm["ttir"]
    if _introspect.find_tool("cuobjdump") or _introspect.find_tool("nvdisasm"):
        assert "sass" in asm and ("FADD" in asm["sass"] or "FMUL" in asm["sass"])
    print(f"GPU introspection: n_regs={md.n_regs} n_spills={md.n_spills} "
          f"sass={'yes' if 'sass' in asm else 'no tool'}")
    scale[(4,)](x, y, 1024, 3.0, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.equal(y, 3 * x)
    targets = [v.target for v in scale.compiled_variants()]
    assert any(t.startswith("sm_") for t in targets)


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_gpu_compile_api_kernel_launches_like_warmup():
    """tilec.compile's cubin equals what a launch builds (same PTX path)."""
    x = torch.ones(1024, device="cuda")
    y = torch.zeros_like(x)
    k = scale.warmup(x, y, 1024, 3.0, BLOCK=256, grid=(4,))
    arch = k.metadata.arch
    aot = tilec.compile(scale, signature="*fp32:16,*fp32:16,i32:16,fp32",
                        constexprs={"BLOCK": 256}, target=arch)
    assert aot.asm["ptx"] == k.asm["ptx"]


# -- device_assert names file, line and program id ------------------------------------------

ASSERT_SCRIPT = '''
import sys
import tilec as triton
import tilec.language as tl
{setup}

@triton.jit(debug=True)
def checked(X, N: tl.constexpr):
    x = tl.load(X + tl.program_id(0) * N + tl.arange(0, N))
    tl.device_assert(x >= 0, "x must be non-negative")  # ASSERT-LINE

x = {make}
try:
    checked[(4,)](x, N=8)
    {sync}
except Exception as e:
    print("PYTHON-ERROR:", type(e).__name__, e, flush=True)
    sys.exit(3)
print("NO ERROR")
'''


def _assert_line():
    return next(i for i, ln in enumerate(ASSERT_SCRIPT.splitlines(), 1) if "ASSERT-LINE" in ln)


def _run_assert_script(tmp_path, setup, make, sync, env_extra):
    path = tmp_path / "assert_kernel.py"
    path.write_text(ASSERT_SCRIPT.format(setup=setup, make=make, sync=sync))
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=300, env=env), str(path)


def test_device_assert_on_the_simt_simulator_names_the_program(tmp_path):
    """The lowered GPU code (TILEC_SIMT=1) prints file:line, the pid and the condition."""
    r, path = _run_assert_script(
        tmp_path, "import numpy as np",
        "np.arange(32, dtype=np.int32)\nx[27] = -1", "pass", {"TILEC_SIMT": "1"})
    assert r.returncode == 3, r.stdout + r.stderr
    line = _assert_line()
    assert f"{path}:{line}: pid (3, 0, 0): device_assert failed: x must be non-negative" \
        in r.stdout, r.stdout
    assert "pid (0, 0, 0): device_assert" not in r.stdout
    assert "x must be non-negative" in r.stdout.split("PYTHON-ERROR:")[1]


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_gpu_device_assert_names_file_line_pid_and_kernel(tmp_path):
    """On the GPU: the device's output names file:line, the program id and the condition;
    the Python error after the failed launch names the kernel."""
    r, path = _run_assert_script(
        tmp_path, "import torch",
        "torch.arange(32, dtype=torch.int32, device='cuda')\nx[27] = -1",
        "triton.synchronize()", {})  # tilec's error names the kernel; torch's would not
    out = r.stdout + r.stderr
    print(out)
    line = _assert_line()
    assert r.returncode == 3, out
    assert f"{path}:{line}: pid (3, 0, 0): device_assert failed: x must be non-negative" in out
    err = out.split("PYTHON-ERROR:")[1]
    assert "checked" in err, err


def test_heuristics_warmup():
    @triton.heuristics(values={"BLOCK": lambda a: 16})
    @triton.jit
    def h(X, BLOCK: tl.constexpr):
        tl.store(X + tl.arange(0, BLOCK), 1.0)

    x = np.zeros(16, np.float32)
    k = h.warmup(x, grid=(1,))
    assert isinstance(k, tilec.CompiledKernel) and not x.any()


def test_asm_disassembles_only_when_sass_is_read(monkeypatch):
    # cuobjdump is a process of its own (about half a second a kernel on the H200 host):
    # reading a kernel's PTX must not pay for it (Triton's AsmDict is lazy the same way)
    calls = []

    def fake_sass(cubin, name):
        calls.append(name)
        return "FADD R0, R1, R2 ;" if cubin == b"\x7fELF ok" else None

    monkeypatch.setattr(_introspect, "sass", fake_sass)
    asm = _introspect.AsmDict({"ptx": ".entry k", "cubin": b"\x7fELF ok"}, b"\x7fELF ok", "k")
    assert asm["ptx"] == ".entry k" and "sass" not in asm.keys() and calls == []
    assert asm.get("sass").startswith("FADD") and calls == ["k"]
    assert "sass" in asm and asm["sass"].startswith("FADD") and calls == ["k"]  # once
    no_tool = _introspect.AsmDict({"ptx": "p"}, b"\x7fELF none", "k")
    assert "sass" not in no_tool and no_tool.get("sass") is None and calls == ["k", "k"]
    with pytest.raises(KeyError):
        no_tool["sass"]
    with pytest.raises(KeyError):
        no_tool["ttir"]
    assert "sass" not in _introspect.AsmDict({"ptx": "p"})  # no cubin: nothing to read


def test_asm_makes_the_stages_ir_only_when_read():
    # the stages' IR is a recompile: reading the PTX (Triton's tests do, per kernel) skips it
    made = []

    def stages():
        made.append(1)
        return {"ttir": "tt", "ttgir": "ttg", "ptx": "stage ptx"}

    asm = _introspect.AsmDict({"ptx": "native ptx"}, None, "k", stages)
    assert asm["ptx"] == "native ptx" and "ptx" in asm and made == []
    assert asm["ttgir"] == "ttg" and made == [1]
    assert set(asm) == {"ptx", "ttir", "ttgir"} and asm["ptx"] == "native ptx" and made == [1]
    lazy = _introspect.AsmDict({"ptx": "p"}, None, "k", stages)
    assert sorted(lazy.keys()) == ["ptx", "ttgir", "ttir"] and len(lazy) == 3
    import pickle
    assert dict(pickle.loads(pickle.dumps(lazy))) == dict(lazy)
