"""Triton's @constexpr_function: a Python function a kernel calls at compile time on
constexpr arguments, getting a constexpr back; from Python it is the plain function."""

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import CompilationError


@tilec.constexpr_function
def plus_one(x):
    return x + 1


@tilec.constexpr_function
def make_shape(m, n):
    return (m, n)


@tilec.constexpr_function
def pick(seq, i=1):
    return seq[i]


@tilec.constexpr_function
def width(dt):
    return dt.primitive_bitwidth


@tilec.jit
def uses_them(out, N: tl.constexpr):
    n: tl.constexpr = plus_one(N)
    shape: tl.constexpr = make_shape(4, n)
    base: tl.constexpr = pick(shape) + pick([1, 2, 3], i=2) + width(tl.float16)
    tl.store(out + tl.arange(0, n), tl.arange(0, n) + base)


def test_kernel_calls_constexpr_functions_at_compile_time():
    out = np.zeros(8, np.int32)
    uses_them[(1,)](out, 7)
    # n = 8; base = 8 + 3 + 16
    assert out.tolist() == [27 + i for i in range(8)]


def test_python_calls_it_as_a_plain_function():
    assert plus_one(7) == 8 and plus_one(tl.constexpr(7)) == 8
    assert make_shape(2, 3) == (2, 3)
    assert repr(plus_one).startswith("ConstexprFunction(")


def test_triton_spells_it_the_same():
    from tilec.runtime.jit import ConstexprFunction, constexpr_function
    assert constexpr_function is tilec.constexpr_function
    assert isinstance(plus_one, ConstexprFunction)


@tilec.constexpr_function
def fails(x):
    raise ValueError(f"no good: {x}")


@tilec.jit
def calls_failing(out):
    v: tl.constexpr = fails(3)
    tl.store(out, v)


@tilec.jit
def passes_a_tensor(out, n):
    tl.store(out, plus_one(n))


@tilec.constexpr_function
def returns_an_object():
    return object()


@tilec.jit
def uses_an_object(out):
    v: tl.constexpr = returns_an_object()
    tl.store(out, v)


@pytest.mark.parametrize("kernel,args,message", [
    (calls_failing, (), "constexpr_function 'fails' raised ValueError: no good: 3"),
    (passes_a_tensor, (5,), "constexpr_function 'plus_one' takes constexpr arguments only, "
                            "but argument 1 (int32) is known only at run time"),
    (uses_an_object, (), "constexpr_function 'returns_an_object' returned a value of type "
                         "object, which a kernel cannot use"),
])
def test_errors_name_the_function_and_the_call(kernel, args, message):
    with pytest.raises(CompilationError) as e:
        kernel[(1,)](np.zeros(1, np.int32), *args)
    assert e.value.message == message
    assert e.value.line is not None and kernel.fn.__name__ in open(e.value.file).read()


class Sizes:
    @tilec.constexpr_function
    def doubled(self, x):
        return 2 * x


def test_method_binds_its_instance():
    assert Sizes().doubled(4) == 8


@tilec.constexpr_function
def flag():
    return False


@tilec.jit
def reads_flag(out):
    f: tl.constexpr = flag()
    tl.store(out, f)


def test_editing_a_constexpr_function_changes_the_callers_key_and_result():
    baseline = reads_flag.cache_key
    src = flag.src
    try:
        flag._unsafe_update_src(src.replace("False", "True"))
        reads_flag.hash = None  # Triton's way to make cache_key read the sources again
        assert reads_flag.cache_key != baseline and flag() is True
        out = np.zeros(1, np.int32)
        reads_flag[(1,)](out)
        assert out[0] == 1
    finally:
        flag._unsafe_update_src(src)
        reads_flag.hash = None
    assert reads_flag.cache_key == baseline and flag() is False


def test_gpu_compile_sees_the_same_values():
    from tilec.backends.compiler import GPUTarget
    from tilec.compiler import ASTSource
    k = tilec.compile(ASTSource(uses_them, {"out": "*i32", "N": "constexpr"}, {"N": 7}),
                      target=GPUTarget("cuda", 90, 32))
    assert "27" in k.asm["ptx"] or "27" in k.asm["ttir"]
