"""The drop-in switch: TILEC_AS_TRITON=1 (the start-up hook installed with the package) and
tilec.install_as_triton() make `import triton...` resolve to tilec; unset, nothing changes.
Each case runs in a fresh interpreter, as a user's program would."""

import os
import subprocess
import sys
import textwrap


def _run(code, env_value=None):
    env = dict(os.environ)
    env.pop("TILEC_AS_TRITON", None)
    if env_value is not None:
        env["TILEC_AS_TRITON"] = env_value
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Error processing line" not in r.stderr, r.stderr  # a broken .pth hook
    return r.stdout.strip()


def test_env_switch_aliases_modules_and_reaches_child_processes():
    out = _run("""
        import subprocess, sys
        import triton, triton.language as tl, tilec
        from triton.language import core
        import triton.runtime.jit as rj
        assert triton is tilec and tl is tilec.language and core is tilec.language.core
        assert rj.JITFunction is tilec.JITFunction
        child = subprocess.run([sys.executable, "-c", "import triton; print(triton.__name__)"],
                               capture_output=True, text=True)
        print(child.stdout.strip())
    """, "1")
    assert out == "tilec"


def test_hook_does_not_import_tilec_until_triton_is_imported():
    out = _run("""
        import sys
        print("tilec" in sys.modules)
    """, "1")
    assert out == "False"


def test_unset_or_false_is_inert():
    for value in (None, "", "0", "false"):
        out = _run("""
            import sys
            try:
                import triton
                print(getattr(triton, "__name__", "?"))
            except ImportError:
                print("no triton")
            print("_tilec_as_triton" in sys.modules)
        """, value)
        name, hooked = out.splitlines()
        assert name != "tilec" and hooked == "False", (value, out)


def test_install_as_triton_from_code():
    out = _run("""
        import os, tilec
        tilec.install_as_triton()
        tilec.install_as_triton()  # twice is harmless
        import triton
        from triton import language as tl
        import sys
        print(triton is tilec, tl is tilec.language, os.environ["TILEC_AS_TRITON"],
              sum(getattr(f, "tilec_triton_alias", False) is True for f in sys.meta_path))
    """)
    assert out == "True True 1 1"


def test_missing_submodule_is_an_import_error_naming_triton():
    out = _run("""
        try:
            import triton.no_such_module
        except ImportError as e:
            print(type(e).__name__, "triton.no_such_module" in str(e))
    """, "1")
    assert out == "ModuleNotFoundError True"


def test_native_module_cublas_binding_imports_as_in_tutorial_09():
    out = _run("""
        import triton
        import triton._C
        from triton._C.libtriton import nvidia
        import tilec._libtriton
        print(triton._C is tilec_C(), nvidia is tilec._libtriton.nvidia,
              nvidia.cublas.CublasLt.__name__)
    """.replace("tilec_C()", "__import__('tilec')._C"), "1")
    assert out == "True True CublasLt"


def test_cublas_binding_refuses_what_is_not_a_cuda_tensor():
    import pytest

    from tilec._libtriton.nvidia.cublas import CublasLt

    with pytest.raises(TypeError, match="torch CUDA tensor"):
        CublasLt(object())


@__import__("pytest").mark.gpu
def test_cublas_binding_matches_torch_on_the_gpu():
    import pytest

    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU and torch")
    from tilec._libtriton.nvidia.cublas import CublasLt

    blas = CublasLt(torch.empty(1 << 20, device="cuda", dtype=torch.uint8))
    a = torch.randn(256, 128, device="cuda", dtype=torch.float16)
    b = torch.randn(64, 128, device="cuda", dtype=torch.float16)
    c = torch.empty(256, 64, device="cuda", dtype=torch.float16)
    torch.testing.assert_close(blas.matmul(a, b, c), a @ b.T)
    a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    c16 = torch.empty(256, 64, device="cuda", dtype=torch.float16)
    torch.testing.assert_close(blas.matmul(a8, b8, c16), (a8.half() @ b8.half().T),
                               rtol=2e-2, atol=1e-1)
    # fp32 on TF32 tensor cores, as Triton's binding computes it; torch's flag is restored
    tf32 = torch.backends.cuda.matmul.allow_tf32
    a32, b32 = a.float(), b.float()
    c32 = torch.empty(256, 64, device="cuda")
    torch.testing.assert_close(blas.matmul(a32, b32, c32), a32 @ b32.T, rtol=1e-2, atol=1e-1)
    assert torch.backends.cuda.matmul.allow_tf32 == tf32
    d = torch.empty_like(c)
    blas.gemm(a, b, c, d, 2.0, 0.5)
    torch.testing.assert_close(d, (2.0 * (a.float() @ b.float().T) + 0.5 * c.float()).half(),
                               rtol=2e-2, atol=2e-2)
