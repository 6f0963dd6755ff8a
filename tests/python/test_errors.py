"""Errors as Python sees them: tilec.CompilationError with the rendered diagnostic and the
user's file / absolute line / column as attributes; kernel faults as tilec.KernelError;
internal errors as RuntimeError naming tilec."""

import inspect
import os

import numpy as np
import pytest

import tilec
import tilec as triton
import tilec.language as tl

HERE = os.path.abspath(__file__)


def line_of(fn, needle):
    """Absolute line in this file of the first source line of `fn` containing `needle`."""
    lines, first = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
    for i, text in enumerate(lines):
        if needle in text:
            return first + i
    raise AssertionError(needle)


def compile_error(kernel, *args, **kwargs):
    with pytest.raises(tilec.CompilationError) as info:
        kernel[(1,)](*args, **kwargs)
    return info.value


@triton.jit
def undefined_name(X):
    tl.store(X, not_defined_anywhere)


def test_undefined_name():
    e = compile_error(undefined_name, np.zeros(1, np.float32))
    assert os.path.samefile(e.file, HERE)
    assert e.line == line_of(undefined_name, "not_defined_anywhere")
    assert e.col == 17
    assert "not_defined_anywhere" in e.message
    # str(e): Triton's layout (at line:col from the def, the function up to the line, a
    # caret, the message last) with the absolute location beside it
    lines = str(e).splitlines()
    assert lines[0] == f"at 2:16: {e.file}:{e.line}:{e.col}"
    assert lines[1] == "def undefined_name(X):"
    assert lines[2] == "    tl.store(X, not_defined_anywhere)"
    assert lines[3] == " " * 16 + "^" and lines[4] == e.message
    # e.rendered: the one-line form
    assert e.rendered.startswith(f"{e.file}:{e.line}:{e.col}: error: ")
    assert e.rendered.splitlines()[-1].strip() == "^"


@triton.jit
def _bad_leaf(v):
    return v + undefined_in_leaf  # noqa: F821


@triton.jit
def _middle(v):
    w = v * 2
    return _bad_leaf(w)


@triton.jit
def calls_down(X):
    tl.store(X, _middle(tl.load(X)))


def test_an_error_in_a_callee_is_chained_call_by_call():
    """As Triton: raised at the kernel's call, caused by the error at the next call down,
    then by the error itself, each in Triton's layout (at L:C counted from the def)."""
    e = compile_error(calls_down, np.zeros(1, np.float32))
    leaf_line = line_of(_bad_leaf, "undefined_in_leaf")
    assert (e.line, e.col) == (leaf_line, 16) and "undefined_in_leaf" in e.message
    chain = [e]
    while isinstance(chain[-1].__cause__, tilec.CompilationError):
        chain.append(chain[-1].__cause__)
    assert len(chain) == 3
    heads = [str(c).splitlines()[0] for c in chain]
    assert heads == [f"at 2:16: {HERE}:{line_of(calls_down, '_middle(')}:17",
                     f"at 3:11: {HERE}:{line_of(_middle, '_bad_leaf(w)')}:12",
                     f"at 2:15: {HERE}:{leaf_line}:16"]
    assert all(str(c).splitlines()[-1] == e.message for c in chain)
    assert str(chain[1]).splitlines()[1:4] == ["def _middle(v):", "    w = v * 2",
                                               "    return _bad_leaf(w)"]
    assert type(chain[-1].__cause__).__name__ == "CompileErrorCause"


def host_helper(x):
    return x


@triton.jit
def calls_host_function(X):
    tl.store(X, host_helper(1.0))


def _sema_names_unsupported_globals() -> bool:
    fs = tilec._C.FunctionSource("k", "f.py", "def k():\n    pass\n", 1,
                                 {"g": tilec._C.Unsupported("function (not a @jit function)")})
    return fs.unsupported_globals == {"g": "function (not a @jit function)"}


def test_unsupported_globals_reach_cpp():
    assert _sema_names_unsupported_globals()


def test_call_to_a_plain_python_function_names_it():
    e = compile_error(calls_host_function, np.zeros(1, np.float32))
    assert e.line == line_of(calls_host_function, "host_helper(1.0)")
    assert "non-@jit function 'host_helper'" in e.message


NUMPY_GLOBAL = np.zeros(3)


@triton.jit
def uses_numpy_global(X):
    tl.store(X, NUMPY_GLOBAL)


def test_unusable_global_names_it():
    e = compile_error(uses_numpy_global, np.zeros(1, np.float32))
    assert "global 'NUMPY_GLOBAL' is a value of type numpy.ndarray" in e.message
    assert e.line == line_of(uses_numpy_global, "NUMPY_GLOBAL)")


@triton.jit
def callee_with_error(x):
    return x + undefined_in_callee


@triton.jit
def caller(X):
    tl.store(X, callee_with_error(tl.load(X)))


def test_error_inside_a_callee_points_at_the_callee():
    e = compile_error(caller, np.zeros(1, np.float32))
    assert os.path.samefile(e.file, HERE)
    assert e.line == line_of(callee_with_error, "undefined_in_callee")
    assert "undefined_in_callee" in e.message


@triton.jit
def bad_arange(X, n):
    offs = tl.arange(0, n)
    tl.store(X + offs, 1.0)


def test_runtime_value_where_constexpr_needed():
    e = compile_error(bad_arange, np.zeros(4, np.float32), 4)
    assert e.line == line_of(bad_arange, "tl.arange(0, n)")


@triton.jit
def static_assert_fails(X, B: tl.constexpr):
    tl.static_assert(B % 2 == 0, "B must be even")


def test_static_assert_message_and_location():
    e = compile_error(static_assert_fails, np.zeros(1, np.float32), B=3)
    assert "B must be even" in e.message
    assert e.line == line_of(static_assert_fails, "tl.static_assert")
    static_assert_fails[(1,)](np.zeros(1, np.float32), B=4)  # and passes when it holds


CONST_BLOCK = tl.constexpr(8)
PLAIN_INT = 3
SCALE = 0.5
DT = tl.float16


@triton.jit
def uses_good_globals(X):
    offs = tl.arange(0, CONST_BLOCK)
    x = tl.load(X + offs)
    tl.store(X + offs, (x * SCALE + PLAIN_INT).to(DT).to(tl.float32))


def test_usable_globals():
    x = np.arange(8, dtype=np.float32)
    uses_good_globals[(1,)](x)
    np.testing.assert_array_equal(x, np.arange(8) * 0.5 + 3)


@triton.jit
def oob_load(X, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    tl.store(X + offs, x, mask=offs < n)


@triton.jit
def oob_store(X, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, 1.0)


def test_out_of_bounds_load_is_a_kernel_error():
    x = np.zeros(10, np.float32)
    with pytest.raises(tilec.KernelError) as info:
        oob_load[(1,)](x, 10, BLOCK=16)
    msg = str(info.value)
    assert "argument 'X'" in msg and "out-of-bounds load" in msg
    assert str(line_of(oob_load, "tl.load(X + offs)")) in msg
    assert isinstance(info.value, RuntimeError)


def test_out_of_bounds_store_is_a_kernel_error():
    x = np.zeros(10, np.float32)
    with pytest.raises(tilec.KernelError) as info:
        oob_store[(1,)](x, BLOCK=16)
    msg = str(info.value)
    assert "argument 'X'" in msg and "out-of-bounds store" in msg
    assert str(line_of(oob_store, "tl.store")) in msg
    e = info.value
    assert e.line == line_of(oob_store, "tl.store") and os.path.samefile(e.file, HERE)


def test_internal_error_is_a_runtime_error_naming_tilec():
    with pytest.raises(RuntimeError, match="tilec internal error") as info:
        tilec._C._raise_internal_error()
    assert not isinstance(info.value, tilec.CompilationError)


def test_kernel_error_translation():
    with pytest.raises(tilec.KernelError, match="boom"):
        tilec._C._raise_kernel_error("boom")


@triton.must_use_result("Keep the cube.")
@triton.jit
def _cube(x):
    return x * x * x


@triton.must_use_result
@triton.jit
def _square(x):
    return x * x


@triton.jit
def _drops_cube(out):
    a = tl.full((16,), 2.0, tl.float32)
    _cube(a)  # ERR:cube
    tl.store(out + tl.arange(0, 16), a)


@triton.jit
def _drops_square(out):
    _square(1.0)  # ERR:square


@triton.jit
def _uses_both(out):
    a = _cube(tl.full((16,), 2.0, tl.float32))
    tl.store(out + tl.arange(0, 16), _square(a))


@pytest.mark.parametrize("kernel,tag,message", [
    (_drops_cube, "cube", "The result of _cube is not being used. Keep the cube."),
    (_drops_square, "square", "The result of _square is not being used."),
])
def test_must_use_result_rejects_a_dropped_call(kernel, tag, message):
    out = np.zeros(16, np.float32)
    with pytest.raises(tilec.CompilationError) as e:
        kernel[(1,)](out)
    assert e.value.message == message
    line = next(i for i, s in enumerate(open(__file__).read().splitlines(), 1)
                if s.rstrip().endswith(f"# ERR:{tag}"))
    assert (e.value.file, e.value.line) == (os.path.abspath(__file__), line)


def test_must_use_result_accepts_a_used_call():
    out = np.zeros(16, np.float32)
    _uses_both[(1,)](out)
    assert (out == 64.0).all()


_TRITON_ONLY_FP8 = tl.float8e5b16


@triton.jit
def _fill(out, dtype: tl.constexpr):
    tl.store(out + tl.arange(0, 16), tl.full((16,), 0.0, dtype).to(tl.float32))


@triton.jit
def _fill_global(out):
    tl.store(out + tl.arange(0, 16), tl.full((16,), 0.0, _TRITON_ONLY_FP8).to(tl.float32))  # ERR:fp8


@pytest.mark.parametrize("dtype", [tl.float8e5b16, tl.float8e4b8])
def test_fp8_types_of_other_gpus_are_compile_errors(dtype):
    # Triton's phrase (its test_fp8_support reads it from __cause__), as a CompilationError
    with pytest.raises(tilec.CompilationError) as e:
        _fill[(1,)](np.zeros(16, np.float32), dtype)
    assert f"type {dtype.name} not supported in this architecture" in str(e.value.__cause__)
    assert "fp8e4nv, fp8e5 and fp8e4b15" in e.value.message


@pytest.mark.parametrize("dtype", [tl.float8e5b16, tl.float8e4b8])
def test_a_tensor_reinterpreted_as_another_gpus_fp8_type_is_a_compile_error(dtype):
    # test_conversions' upcast tests expect Triton's CompilationError, not a TypeError
    @triton.jit
    def k(dst):
        tl.store(dst + tl.arange(0, 16), tl.full((16,), 1, tl.uint8).to(dst.dtype.element_ty,
                                                                        bitcast=True))
    with pytest.raises(tilec.CompilationError, match="argument 'dst': type") as e:
        k[(1,)](triton.reinterpret(np.zeros(16, np.uint8), dtype))
    assert f"type {dtype.name} not supported in this architecture" in str(e.value.__cause__)


def test_fp8_type_of_other_gpus_in_a_global_is_located():
    with pytest.raises(tilec.CompilationError) as e:
        _fill_global[(1,)](np.zeros(16, np.float32))
    assert "not supported in this architecture" in e.value.message
    line = next(i for i, s in enumerate(open(__file__).read().splitlines(), 1)
                if s.rstrip().endswith("# ERR:fp8"))
    assert e.value.line == line
