"""The int and tensor-descriptor specialisation rules are C++ (runtime/ArgRules.h): the C++
launch fast path keys launches with them and the Python paths call them through _C, so
both agree on a kernel's specialisation and on the errors they report."""

import numpy as np
import pytest

from tilec import _C, _args
from tilec.tools.tensor_descriptor import TensorDescriptor


@pytest.mark.parametrize("v,kind", [(0, "i32"), (2**31 - 1, "i32"), (-2**31, "i32"),
                                    (2**31, "i64"), (-2**31 - 1, "i64"), (2**63 - 1, "i64"),
                                    (2**63, "u64"), (2**64 - 1, "u64")])
def test_int_kinds(v, kind):
    assert _C.int_spec(v, True)[0] == kind
    assert _args.specialize("n", v, False, True)[0][1] == kind


def test_int_specialisation_follows_the_cpp_rule():
    assert _args.specialize("n", 32, False, True)[0] == ("i", "i32", True, False)
    assert _args.specialize("n", 1, False, True)[0] == ("i", "i32", False, True)
    assert _args.specialize("n", 1, False, False)[0] == ("i", "i32", False, False)
    assert _args.specialize("n", np.int64(48), False, True)[0] == ("i", "i32", True, False)
    assert _C.int_spec(2**64, True) is None and _C.int_spec(-2**63 - 1, True) is None
    with pytest.raises(OverflowError, match="'n' = 18446744073709551616 does not fit"):
        _args.specialize("n", 2**64, False, True)


def test_descriptor_rules_from_cpp():
    a = np.zeros((64, 64), dtype=np.float16)
    d = TensorDescriptor(a, [64, 40], [64, 1], [16, 32])
    key = _args.desc_arg("d", d)[0]
    assert key == ("d", "fp16", (16, 32), False, (True, False), (True,))
    d.block_shape = [16, 24]  # as an autotuner's pre_hook may set it after construction
    with pytest.raises(ValueError, match=r"argument 'd' \(a TensorDescriptor\): block_shape "
                                         "element 1 must be a power of 2, got 24"):
        _args.desc_arg("d", d)
    d.block_shape = [16, 16]
    d.padding = "nan"
    key = _args.desc_arg("d", d)[0]
    assert key[3] is True
    d.padding = "wrap"
    with pytest.raises(ValueError, match="padding must be 'zero' or 'nan', got 'wrap'"):
        _args.desc_arg("d", d)
    with pytest.raises(ValueError, match=r"block_shape \[2048, 1024\] has 2097152 elements"):
        TensorDescriptor(a, [64, 64], [64, 1], [2048, 1024])
    with pytest.raises(TypeError, match="block_shape element 0 must be an int, got float"):
        TensorDescriptor(a, [64, 64], [64, 1], [16.0, 16])
