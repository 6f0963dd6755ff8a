"""tilec.compile: ahead-of-time PTX (and a cubin when ptxas is found) with no GPU, through
the same signature parser and pipeline as the CLI's `tilec ptx` (same PTX, same errors)."""

import os
import re
import shutil
import subprocess
import sys

import pytest

import tilec
import tilec.language as tl

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import seed_kernels as sk  # noqa: E402

SIG = "*fp32:16,*fp32:16,*fp32:16,i32"


def test_compile_vector_add_to_ptx():
    k = tilec.compile(sk.add_kernel, signature=SIG, constexprs={"BLOCK_SIZE": 1024},
                      num_warps=4, target="cuda:90")
    ptx = k.asm["ptx"]
    assert ".entry add_kernel" in ptx and ".target sm_90a" in ptx
    assert k.metadata.name == "add_kernel" and k.name == "add_kernel"
    assert k.metadata.num_warps == 4 and k.metadata["num_warps"] == 4
    assert k.metadata.shared == 0
    assert k.metadata.arch == "sm_90a" and k.metadata.target == "cuda:90"
    assert k.arg_names == ["x_ptr", "y_ptr", "output_ptr", "n_elements"]
    # the Tile IR after the front end and after layouts
    assert "add_kernel" in k.asm["frontend"] and "add_kernel" in k.asm["ttir"]
    assert "#blocked" in k.asm["ttgir"] or "layout" in k.asm["ttgir"]
    assert k.asm["ttgir"] != k.asm["ttir"]
    assert k.asm["thread_ir"]


@pytest.mark.skipif(not tilec._C.gpu_find_ptxas(), reason="needs ptxas")
def test_compile_gives_a_cubin_and_registers_with_ptxas():
    k = tilec.compile(sk.add_kernel, signature=SIG, constexprs={"BLOCK_SIZE": 1024},
                      target="cuda:90")
    cubin = k.asm["cubin"]
    assert isinstance(cubin, bytes) and cubin[:4] == b"\x7fELF"
    ptxas = tilec._C.gpu_find_ptxas()
    r = subprocess.run([ptxas, "-v", "-arch=sm_90a", "-", "-o", os.devnull],
                       input=k.asm["ptx"], capture_output=True, text=True)
    used = [int(w.split()[0]) for w in r.stderr.split("Used ")[1:]]
    assert k.metadata.n_regs == used[0] > 0
    assert k.n_regs == used[0]
    frame = int(re.search(r"(\d+) bytes stack frame", r.stderr).group(1))
    assert k.metadata.n_spills == frame == 0


def test_compile_matches_the_cli(tmp_path):
    cli = shutil.which("tilec")
    if cli is None:
        pytest.skip("the tilec CLI is not installed")
    r = subprocess.run([cli, "ptx", f"{HERE}/../data/seed_kernels.py:add_kernel", "--signature", SIG,
                        "--constexpr", "BLOCK_SIZE=1024", "--num-warps", "4", "--arch", "sm_90a"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"tilec ptx failed here: {r.stderr[:200]}")
    k = tilec.compile(sk.add_kernel, signature=SIG, constexprs={"BLOCK_SIZE": 1024},
                      num_warps=4, target="sm_90a")
    assert k.asm["ptx"] == r.stdout


def test_compile_for_sm80_and_dict_signature():
    k = tilec.compile(sk.add_kernel, signature={"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                "output_ptr": "*fp32", "n_elements": "i32"},
                      constexprs={"BLOCK_SIZE": 256}, num_warps=2, target="cuda:80")
    assert ".target sm_80" in k.asm["ptx"] and k.metadata.num_warps == 2


def test_compile_signature_errors_are_clear():
    with pytest.raises(ValueError, match="unknown dtype 'fp33'"):
        tilec.compile(sk.add_kernel, signature="*fp33,*fp32,*fp32,i32",
                      constexprs={"BLOCK_SIZE": 1024})
    with pytest.raises(ValueError, match="signature has 2 entries"):
        tilec.compile(sk.add_kernel, signature="*fp32,*fp32", constexprs={"BLOCK_SIZE": 1024})
    with pytest.raises(ValueError, match="needs a value"):
        tilec.compile(sk.add_kernel, signature=SIG)
    with pytest.raises(ValueError, match="no parameter 'BLOCK'"):
        tilec.compile(sk.add_kernel, signature=SIG, constexprs={"BLOCK": 4})
    with pytest.raises(ValueError, match="unknown target"):
        tilec.compile(sk.add_kernel, signature=SIG, constexprs={"BLOCK_SIZE": 4},
                      target="rocm:90")


def test_compile_errors_are_located():
    @tilec.jit
    def bad(X, BLOCK: tl.constexpr):
        tl.store(X + tl.arange(0, BLOCK), 1.0)

    with pytest.raises(tilec.CompilationError) as e:
        tilec.compile(bad, signature="*fp32", constexprs={"BLOCK": 3})
    assert e.value.line is not None and "power of 2" in str(e.value)


def test_compile_autotuned_kernel_takes_its_jit_function():
    k = tilec.compile(sk.add_kernel_heuristic if hasattr(sk, "add_kernel_heuristic")
                      else sk.add_kernel, signature=SIG, constexprs={"BLOCK_SIZE": 128})
    assert ".entry" in k.asm["ptx"]


def test_targets_follow_the_one_set_of_rules():
    # src/support/Target.h, shared with `tilec ptx --arch`, AOT and the simulator
    from tilec import _introspect

    assert _introspect.parse_target("sm_90a") == (90, True)
    assert _introspect.parse_target("sm_90") == (90, False)  # exactly sm_90
    assert _introspect.parse_target("cuda:90") == (90, True)  # Triton's GPUTarget
    assert _introspect.parse_target(90) == (90, True)
    assert _introspect.parse_target("CUDA:80") == (80, False)
    for bad in ("sm_80a", "rocm:90", "sm_x", ""):
        with pytest.raises(ValueError, match="unknown target"):
            _introspect.parse_target(bad)
