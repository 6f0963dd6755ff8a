"""scripts/triton_ptx.py (Triton's PTX for a kernel, for comparisons): its argument parsing,
written as `tilec ptx` takes it. Compiling needs a real Triton, which CI does not have."""

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "scripts" / "triton_ptx.py"
_spec = importlib.util.spec_from_file_location("triton_ptx_script", _PATH)
triton_ptx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(triton_ptx)


def test_signature_entries_keep_tilec_hints():
    assert triton_ptx.parse_signature("*fp16:16, i32:1,fp32,i32:16") == [
        ("*fp16", 16), ("i32", 1), ("fp32", None), ("i32", 16)]
    with pytest.raises(ValueError, match=":16 or :1"):
        triton_ptx.parse_signature("i32:8")


def test_constexpr_values_are_literals_dtypes_or_strings():
    class FakeTl:
        float32 = "the tl.float32 object"

    assert triton_ptx.parse_constexpr("BLOCK=128") == ("BLOCK", 128)
    assert triton_ptx.parse_constexpr("CAUSAL=True") == ("CAUSAL", True)
    assert triton_ptx.parse_constexpr("PREC=tf32") == ("PREC", "tf32")
    assert triton_ptx.parse_constexpr("out=tl.float32", FakeTl) == ("out", FakeTl.float32)
    with pytest.raises(ValueError, match="NAME=VALUE"):
        triton_ptx.parse_constexpr("BLOCK")
