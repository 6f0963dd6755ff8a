"""enable_fp_fusion and maxnreg at launch, on the stand-in GPU of test_gpu_fastpath.py: each
setting is its own compiled variant, and the C++ fast path never hands a kernel compiled
with one setting to a launch asking for the other."""
import os

import pytest

from test_gpu_fastpath import fake_gpu, make_add, tensors  # noqa: F401 (fixture)


def test_fp_fusion_compiles_a_variant_each(fake_gpu):  # noqa: F811
    launches, compiles = fake_gpu
    add = make_add()
    x, y, out = tensors()
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, enable_fp_fusion=False)
    assert len(compiles) == 2
    assert [c[2][3] for c in compiles] == [True, False]
    for _ in range(2):  # both now launch from the fast path, each with its own kernel
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, enable_fp_fusion=False)
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, enable_fp_fusion=True)
    assert len(compiles) == 2
    variants = add.compiled_variants()
    assert sorted(v.options["enable_fp_fusion"] for v in variants) == [False, True]
    d = add._gpu_dispatch
    assert d.fast_launches >= 4


def test_maxnreg_is_part_of_the_key(fake_gpu):  # noqa: F811
    launches, compiles = fake_gpu
    add = make_add()
    x, y, out = tensors()
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, maxnreg=64)
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, maxnreg=128)
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, maxnreg=64)
    assert [c[2][4] for c in compiles] == [64, 128]


@pytest.mark.parametrize("bad", [8, 256, 1.5, True])
def test_maxnreg_errors(fake_gpu, bad):  # noqa: F811
    add = make_add()
    x, y, out = tensors()
    with pytest.raises(ValueError, match="maxnreg"):
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, maxnreg=bad)


def test_reflect_ftz_compiles_a_variant_each(fake_gpu):  # noqa: F811
    """enable_reflect_ftz (Triton's libdevice __CUDA_FTZ, on by default) is a launch option:
    each setting its own kernel, the fast path keyed by it."""
    launches, compiles = fake_gpu
    add = make_add()
    x, y, out = tensors()
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, enable_reflect_ftz=False)
    for _ in range(2):
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, enable_reflect_ftz=False)
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, enable_reflect_ftz=True)
    assert len(compiles) == 2
    assert [c[2][5] for c in compiles] == [True, False]
    assert sorted(v.options["enable_reflect_ftz"] for v in add.compiled_variants()) == \
        [False, True]


@pytest.fixture
def fp_knob(monkeypatch):
    """knobs.language, its default_fp_fusion forgotten again after the test (a value set
    on the knob stays in Python; monkeypatch would put the old value back as a set one) and
    TRITON_DEFAULT_FP_FUSION unset again (set first, so that monkeypatch removes it)."""
    import tilec
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    monkeypatch.delenv("TRITON_DEFAULT_FP_FUSION")
    lang = tilec.knobs.language
    yield lang
    lang.__dict__.pop("default_fp_fusion", None)


def test_default_fp_fusion_knob_decides_launches_without_the_option(fake_gpu,  # noqa: F811
                                                                      fp_knob, monkeypatch):
    """knobs.language.default_fp_fusion (TRITON_DEFAULT_FP_FUSION) is enable_fp_fusion's
    default, as in Triton: a launch without the option compiles with it, and the fast path,
    which reads the variable at each launch, hands out the kernel of the current value."""
    launches, compiles = fake_gpu
    add = make_add()
    x, y, out = tensors()
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    fp_knob.default_fp_fusion = False  # propagate_env: TRITON_DEFAULT_FP_FUSION=0 too
    assert fp_knob.default_fp_fusion is False
    for _ in range(2):  # the second time from the fast path, keyed by the variable
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, enable_fp_fusion=True)
    assert [c[2][3] for c in compiles] == [True, False]
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    before = add._gpu_dispatch.fast_launches
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    assert add._gpu_dispatch.fast_launches == before + 1
    assert len(compiles) == 2
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", " Yes ")  # as knobs reads it: true
    from tilec import _C, knobs as tilec_knobs
    assert _C.fp_fusion_env() is True
    assert tilec_knobs.getenv_bool("TRITON_DEFAULT_FP_FUSION", False) is True
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    assert len(compiles) == 2 and add._gpu_dispatch.fast_launches == before + 2
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "off")
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    assert len(compiles) == 2
    assert add._gpu_dispatch.fast_launches == before + 3


def test_default_fp_fusion_set_in_python_only(fake_gpu, fp_knob, monkeypatch):  # noqa: F811
    """With knobs.propagate_env false the knob does not reach the environment: launches
    still compile with it, and such a kernel never lands on the fast path (which keys by the
    environment), so setting the knob back cannot hand it out to the other setting."""
    import tilec
    launches, compiles = fake_gpu
    monkeypatch.setattr(tilec.knobs, "propagate_env", False)
    add = make_add()
    x, y, out = tensors()
    fp_knob.default_fp_fusion = False
    assert "TRITON_DEFAULT_FP_FUSION" not in os.environ
    for _ in range(2):
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    assert [c[2][3] for c in compiles] == [False]
    assert add._gpu_dispatch is None or add._gpu_dispatch.fast_launches == 0
    fp_knob.default_fp_fusion = True
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    assert [c[2][3] for c in compiles] == [False, True]
