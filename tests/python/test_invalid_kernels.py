"""Invalid kernels: each must raise tilec.CompilationError whose message names the problem,
located in this file at the absolute line of the offending construct (the line carrying
the `# ERR:<tag>` marker; `# ERR:<tag>/alt` marks another acceptable line where two
places are defensible, e.g. the `if` and the branch that changed a type). Also: run-time
faults (out-of-bounds load / store) as tilec errors naming the line and the argument."""

import os
import re

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.language.extra import libdevice
from lang_util import error_location, same_file

HERE = os.path.abspath(__file__)
_SOURCE = open(HERE).read().splitlines()


def expected_lines(tag):
    lines = [i for i, s in enumerate(_SOURCE, 1)
             if s.rstrip().endswith((f"# ERR:{tag}", f"# ERR:{tag}/alt"))]
    assert lines, tag
    return lines


def host_fn_xyz(v):
    return v + 1


_GLOBAL_ARRAY = np.zeros(4, np.float32)
_GLOBAL_LIST = [1, 2, 3]
_GLOBAL_COUNTER = 0


@triton.jit
def _callee2(a, b):
    return a + b


@triton.jit
def _callee_bad_name(x):
    return x * missing_in_callee  # ERR:callee_undefined


@triton.jit
def _callee_runtime_arange(n):
    return tl.arange(0, n)  # ERR:callee_arange


@triton.jit
def _callee_outer(x, n):
    return _callee_runtime_arange(n) + x


@triton.jit
def _recursive(x):
    return _recursive(x - 1)  # ERR:recursion


@triton.jit
def _three_values(x):
    return x, x + 1, x + 2


# ---------------------------------------------------------------------------------------
# the kernels; each has exactly one offending construct


@triton.jit
def k_undefined(X):
    tl.store(X, undefined_thing_xyz + 1)  # ERR:undefined


@triton.jit
def k_builtin_arity(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.store(X + tl.arange(0, 4), tl.exp(x, x))  # ERR:builtin_arity


@triton.jit
def k_builtin_missing_arg(X):
    tl.store(X + tl.arange(0), 1.0)  # ERR:builtin_missing


@triton.jit
def k_unknown_keyword(X):
    x = tl.load(X, maskk=True)  # ERR:unknown_keyword
    tl.store(X, x)


@triton.jit
def k_broadcast_1d(X):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    tl.store(X + a, (a + b).to(tl.float32))  # ERR:broadcast_1d


@triton.jit
def k_broadcast_2d(X):
    a = tl.zeros((4, 8), tl.float32)
    b = tl.zeros((8, 4), tl.float32)
    c = a * b  # ERR:broadcast_2d
    tl.store(X + tl.arange(0, 4), tl.sum(c, axis=1))


@triton.jit
def k_store_shape_mismatch(X):
    tl.store(X + tl.arange(0, 4), tl.zeros((8,), tl.float32))  # ERR:store_shape


@triton.jit
def k_arange_not_pow2(X):
    offs = tl.arange(0, 10)  # ERR:arange_pow2
    tl.store(X + offs, 1.0)


@triton.jit
def k_arange_runtime(X, n):
    offs = tl.arange(0, n)  # ERR:arange_runtime
    tl.store(X + offs, 1.0)


@triton.jit
def k_program_id_runtime_axis(X, a):
    pid = tl.program_id(a)  # ERR:pid_runtime
    tl.store(X + pid, 1.0)


@triton.jit
def k_zeros_runtime_shape(X, n):
    z = tl.zeros((n,), tl.float32)  # ERR:zeros_runtime
    tl.store(X + tl.arange(0, 4), z)


@triton.jit
def k_constexpr_annotation_runtime(X, n):
    C: tl.constexpr = n  # ERR:constexpr_local
    tl.store(X, C)


@triton.jit
def k_static_range_runtime(X, n):
    for i in tl.static_range(n):  # ERR:static_range_runtime
        tl.store(X + i, 1.0)


@triton.jit
def k_if_type_mismatch(X):
    pid = tl.program_id(0)
    if pid == 0:  # ERR:if_mismatch
        v = 1
    else:
        v = 1.5  # ERR:if_mismatch/alt
    tl.store(X, v)


@triton.jit
def k_if_shape_mismatch(X):
    pid = tl.program_id(0)
    if pid == 0:  # ERR:if_shape
        v = tl.zeros((4,), tl.float32)
    else:
        v = tl.zeros((8,), tl.float32)  # ERR:if_shape/alt
    tl.store(X + tl.arange(0, 4), tl.sum(v, axis=0))


@triton.jit
def k_loop_type_change(X, n):
    acc = 0
    for i in range(n):  # ERR:loop_type
        acc = acc + 1.5  # ERR:loop_type/alt
    tl.store(X, acc)


@triton.jit
def k_while_type_change(X, n):
    v = tl.zeros((4,), tl.int32)
    while n > 0:  # ERR:while_type
        v = v.to(tl.float32) * 2  # ERR:while_type/alt
        n -= 1
    tl.store(X + tl.arange(0, 4), v)


@triton.jit
def k_break(X, n):
    for i in range(n):
        if i == 2:
            break  # ERR:break
        tl.store(X + i, 1.0)


@triton.jit
def k_continue(X, n):
    for i in range(n):
        if i == 2:
            continue  # ERR:continue
        tl.store(X + i, 1.0)


@triton.jit
def k_try(X):
    try:  # ERR:try
        tl.store(X, 1.0)
    except Exception:
        pass


@triton.jit
def k_with(X):
    with tl.static_range(2):  # ERR:with
        tl.store(X, 1.0)


@triton.jit
def k_lambda(X):
    f = lambda v: v + 1  # noqa: E731  # ERR:lambda
    tl.store(X, f(1.0))


@triton.jit
def k_chained_comparison(X):
    x = tl.load(X + tl.arange(0, 4))
    m = 0 < x < 5  # ERR:chained
    tl.store(X + tl.arange(0, 4), x, mask=m)


@triton.jit
def k_return_in_loop(X, n):
    for i in range(n):
        if i == 3:
            return  # ERR:return_loop
        tl.store(X + i, 1.0)


@triton.jit
def k_host_function(X):
    tl.store(X, host_fn_xyz(1.0))  # ERR:host_fn


@triton.jit
def k_other_without_mask(X):
    x = tl.load(X + tl.arange(0, 4), other=0.0)  # ERR:other_no_mask
    tl.store(X + tl.arange(0, 4), x)


@triton.jit
def k_dot_shape(X):
    a = tl.zeros((16, 32), tl.float16)
    b = tl.zeros((16, 16), tl.float16)
    c = tl.dot(a, b)  # ERR:dot_shape
    tl.store(X + tl.arange(0, 16), tl.sum(c, axis=1))


@triton.jit
def k_dot_rank1(X):
    a = tl.zeros((16,), tl.float16)
    c = tl.dot(a, a)  # ERR:dot_rank
    tl.store(X, c)


@triton.jit
def k_program_id_axis3(X):
    pid = tl.program_id(3)  # ERR:pid_axis
    tl.store(X + pid, 1.0)


@triton.jit
def k_static_assert_msg(X, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 3 == 0, "BLOCK must be a multiple of 3")  # ERR:static_assert_msg
    tl.store(X, 1.0)


@triton.jit
def k_static_assert_plain(X, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK > 100)  # ERR:static_assert_plain
    tl.store(X, 1.0)


@triton.jit
def k_bitwise_float(X):
    x = tl.load(X + tl.arange(0, 4))
    y = x & x  # ERR:bitwise_float
    tl.store(X + tl.arange(0, 4), y)


@triton.jit
def k_invert_float(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.store(X + tl.arange(0, 4), ~x)  # ERR:invert_float


@triton.jit
def k_shift_float(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.store(X + tl.arange(0, 4), x << 1)  # ERR:shift_float


@triton.jit
def k_store_to_value(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.store(x, 1.0)  # ERR:store_non_pointer


@triton.jit
def k_load_from_int(X, n):
    v = tl.load(n)  # ERR:load_int
    tl.store(X, v)


@triton.jit
def k_add_pointers(X, Y):
    p = X + Y  # ERR:add_pointers
    tl.store(p, 1.0)


@triton.jit
def k_call_tensor(X):
    x = tl.load(X + tl.arange(0, 4))
    y = x(1)  # ERR:call_tensor
    tl.store(X + tl.arange(0, 4), y)


@triton.jit
def k_callee_too_many(X):
    tl.store(X, _callee2(1.0, 2.0, 3.0))  # ERR:callee_too_many


@triton.jit
def k_callee_too_few(X):
    tl.store(X, _callee2(1.0))  # ERR:callee_too_few


@triton.jit
def k_callee_unknown_keyword(X):
    tl.store(X, _callee2(1.0, 2.0, zz_kw=3))  # ERR:callee_keyword


@triton.jit
def k_recursion(X):
    tl.store(X, _recursive(1.0))


@triton.jit
def k_global_array(X):
    tl.store(X + tl.arange(0, 4), _GLOBAL_ARRAY)  # ERR:global_array


@triton.jit
def k_global_list(X):
    tl.store(X, _GLOBAL_LIST[0])  # ERR:global_list


@triton.jit
def k_subscript_assign(X):
    x = tl.load(X + tl.arange(0, 4))
    x[0] = 1.0  # ERR:subscript_assign
    tl.store(X + tl.arange(0, 4), x)


@triton.jit
def k_del(X):
    x = tl.load(X)
    del x  # ERR:del
    tl.store(X, 1.0)


@triton.jit
def k_global_stmt(X):
    global _GLOBAL_COUNTER  # ERR:global_stmt
    tl.store(X, 1.0)


@triton.jit
def k_fstring_runtime(X):
    x = tl.load(X)
    tl.static_print(f"x = {x}")  # ERR:fstring_runtime


@triton.jit
def k_nested_callee_error(X):
    tl.store(X, _callee_bad_name(1.0))


@triton.jit
def k_nested_callee_runtime_arange(X, n):
    tl.store(X + tl.arange(0, 4), _callee_outer(1.0, n).to(tl.float32))


@triton.jit
def k_walrus(X):
    tl.store(X, (y := 3.0))  # ERR:walrus


@triton.jit
def k_list_comprehension(X):
    vals = [i for i in range(3)]  # ERR:comprehension
    tl.store(X, vals[0])


@triton.jit
def k_import(X):
    import math  # ERR:import
    tl.store(X, math.pi)


@triton.jit
def k_int_literal_too_large(X):
    x = tl.load(X).to(tl.int64)
    tl.store(X, (x + 18446744073709551616).to(tl.float32))  # ERR:int_too_large


@triton.jit
def k_float_floordiv(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.store(X + tl.arange(0, 4), x // x)  # ERR:float_floordiv


@triton.jit
def k_mixed_sign_division(X, Y):
    a = tl.load(X + tl.arange(0, 4))  # int32
    b = tl.load(Y + tl.arange(0, 4))  # uint32
    tl.store(X + tl.arange(0, 4), a // b)  # ERR:mixed_sign_div


@triton.jit
def k_reshape_numel(X):
    x = tl.load(X + tl.arange(0, 16))
    y = tl.reshape(x, (4, 8))  # ERR:reshape_numel
    tl.store(X + tl.arange(0, 4), tl.sum(y, axis=1))


@triton.jit
def k_permute_bad(X):
    x = tl.zeros((4, 8), tl.float32)
    y = tl.permute(x, (0, 0))  # ERR:permute_bad
    tl.store(X + tl.arange(0, 4), tl.sum(y, axis=1))


@triton.jit
def k_split_not_2(X):
    x = tl.zeros((4, 4), tl.float32)
    a, b = tl.split(x)  # ERR:split_not2
    tl.store(X + tl.arange(0, 4), a + b)


@triton.jit
def k_reduce_bad_axis(X):
    x = tl.zeros((4, 8), tl.float32)
    tl.store(X + tl.arange(0, 4), tl.sum(x, axis=2))  # ERR:reduce_axis


@triton.jit
def k_if_on_tile(X):
    x = tl.load(X + tl.arange(0, 4))
    if x > 0:  # ERR:if_tile
        x = x * 2
    tl.store(X + tl.arange(0, 4), x)


@triton.jit
def k_unknown_tl_attribute(X):
    tl.store(X, tl.not_a_builtin_xyz(1.0))  # ERR:unknown_tl


@triton.jit
def k_unknown_method(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.store(X + tl.arange(0, 4), x.frobnicate_xyz())  # ERR:unknown_method


@triton.jit
def k_unpack_mismatch(X):
    a, b = _three_values(1.0)  # ERR:unpack
    tl.store(X, a + b)


@triton.jit
def k_unsigned_negative_literal(X):
    x = tl.load(X + tl.arange(0, 4))  # uint8
    tl.store(X + tl.arange(0, 4), x + (-1))  # ERR:unsigned_negative


@triton.jit
def k_scalar_out_of_range(X):
    x = tl.load(X + tl.arange(0, 4))  # int8
    tl.store(X + tl.arange(0, 4), x + 300)  # ERR:scalar_range


@triton.jit
def k_bitcast_width(X):
    x = tl.load(X + tl.arange(0, 4))
    tl.store(X + tl.arange(0, 4), x.to(tl.int16, bitcast=True))  # ERR:bitcast_width


@triton.jit
def _callee_mixed_returns(x):
    if x > 0:  # ERR:callee_returns/alt
        return 1  # ERR:callee_returns/alt
    return 2.5  # ERR:callee_returns


@triton.jit
def k_defined_in_one_branch(X):
    pid = tl.program_id(0)
    if pid == 0:
        only_then = 1.0  # ERR:one_branch/alt
    tl.store(X, only_then)  # ERR:one_branch


@triton.jit
def k_range_float_bound(X):
    for i in range(2.5):  # ERR:range_float
        tl.store(X + i, 1.0)


@triton.jit
def k_arange_reversed(X):
    tl.store(X + tl.arange(4, 2), 1.0)  # ERR:arange_reversed


@triton.jit
def k_dot_mixed_dtypes(X):
    a = tl.zeros((16, 16), tl.int8)
    b = tl.zeros((16, 16), tl.float16)
    c = tl.dot(a, b)  # ERR:dot_dtypes
    tl.store(X + tl.arange(0, 16), tl.sum(c, axis=1).to(tl.float32))


@triton.jit
def k_static_assert_runtime(X):
    x = tl.load(X)
    tl.static_assert(x > 0)  # ERR:static_assert_runtime


@triton.jit
def k_atomic_and_float(X):
    tl.atomic_and(X, 1.0)  # ERR:atomic_and_float


@triton.jit
def k_callee_mixed_returns(X):
    tl.store(X, _callee_mixed_returns(tl.load(X)))


@triton.jit
def k_mask_shape(X):
    offs = tl.arange(0, 8)
    tl.store(X + offs, 1.0, mask=tl.arange(0, 4) < 2)  # ERR:mask_shape


@triton.jit
def k_broadcast_to_rank(X):
    x = tl.arange(0, 8)
    y = tl.broadcast_to(x, (4, 8))  # ERR:broadcast_to_rank
    tl.store(X + tl.arange(0, 4), tl.sum(y, axis=1).to(tl.float32))



@triton.jit
def k_rand_float_seed(X):
    offs = tl.arange(0, 8)
    tl.store(X + offs, tl.rand(1.5, offs))  # ERR:rand_float_seed


@triton.jit
def k_rand_runtime_rounds(X, n):
    offs = tl.arange(0, 8)
    tl.store(X + offs, tl.rand(3, offs, n))  # ERR:rand_runtime_rounds


@triton.jit
def k_philox_huge_rounds(X):
    offs = tl.arange(0, 8)
    # every round is unrolled: a million would take minutes and gigabytes
    tl.store(X + offs, tl.randint(3, offs, n_rounds=1000000))  # ERR:philox_rounds


@triton.jit
def k_randint_float_offset(X):
    offs = tl.arange(0, 8).to(tl.float32)
    tl.store(X + tl.arange(0, 8), tl.randint(3, offs).to(tl.float32))  # ERR:randint_float_offset



@triton.jit
def k_blockptr_mask(X):
    bp = tl.make_block_ptr(X, (64,), (1,), (0,), (16,), (0,))
    tl.store(X + tl.arange(0, 16), tl.load(bp, mask=tl.arange(0, 16) < 4))  # ERR:bp_mask


@triton.jit
def k_blockptr_nan_int(X, I):
    bp = tl.make_block_ptr(I, (64,), (1,), (0,), (16,), (0,))
    v = tl.load(bp, boundary_check=(0,), padding_option="nan")  # ERR:bp_nan_int
    tl.store(X + tl.arange(0, 16), v.to(tl.float32))


@triton.jit
def k_blockptr_check_dim(X):
    bp = tl.make_block_ptr(X, (8, 8), (8, 1), (0, 0), (8, 8), (1, 0))
    tl.store(bp, 1.0, boundary_check=(2,))  # ERR:bp_check_dim


@triton.jit
def k_blockptr_i64_offset(X, n):
    off = n.to(tl.int64)
    bp = tl.make_block_ptr(X, (64,), (1,), (off,), (16,), (0,))  # ERR:bp_i64
    tl.store(bp, 1.0)


@triton.jit
def k_blockptr_lengths(X):
    bp = tl.make_block_ptr(X, (8, 8), (8,), (0, 0), (8, 8), (1, 0))  # ERR:bp_lengths
    tl.store(bp, 1.0)


@triton.jit
def k_blockptr_order(X):
    bp = tl.make_block_ptr(X, (8, 8), (8, 1), (0, 0), (8, 8), (1, 1))  # ERR:bp_order
    tl.store(bp, 1.0)


@triton.jit
def k_advance_rank(X):
    bp = tl.make_block_ptr(X, (8, 8), (8, 1), (0, 0), (8, 8), (1, 0))
    bp = tl.advance(bp, (8,))  # ERR:bp_advance_rank
    tl.store(bp, 1.0)


@triton.jit
def k_blockptr_loop_shape(X, n):
    bp = tl.make_block_ptr(X, (64,), (1,), (0,), (16,), (0,))
    for i in range(n):  # ERR:bp_loop_shape/alt
        bp = tl.make_block_ptr(X, (64,), (1,), (0,), (32,), (0,))  # ERR:bp_loop_shape
    tl.store(X, 1.0)


@triton.jit
def k_sort_dim0(X):
    x = tl.load(X + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    tl.store(X + tl.arange(0, 8), tl.sum(tl.sort(x, dim=0), axis=0))  # ERR:sort_dim0


@triton.jit
def k_sort_bad_dim(X):
    x = tl.load(X + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    tl.store(X + tl.arange(0, 8), tl.sum(tl.sort(x, 2), axis=0))  # ERR:sort_bad_dim


@triton.jit
def k_sort_scalar(X):
    tl.store(X, tl.sort(tl.load(X)))  # ERR:sort_scalar


@triton.jit
def k_sort_runtime_desc(X, d):
    offs = tl.arange(0, 8)
    tl.store(X + offs, tl.sort(tl.load(X + offs), descending=d))  # ERR:sort_runtime_desc


@triton.jit
def k_topk_too_large(X):
    x = tl.load(X + tl.arange(0, 8))
    tl.store(X + tl.arange(0, 16), tl.topk(x, 16))  # ERR:topk_too_large


@triton.jit
def k_topk_not_pow2(X):
    x = tl.load(X + tl.arange(0, 8))
    tl.store(X + tl.arange(0, 2), tl.topk(x, 3))  # ERR:topk_not_pow2


@triton.jit
def k_merge_dim0(X):
    x = tl.load(X + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :])
    tl.store(X + tl.arange(0, 8), tl.sum(tl.bitonic_merge(x, 0), axis=0))  # ERR:merge_dim0


@triton.jit
def k_sort_pointers(X):
    p = X + tl.arange(0, 8)
    tl.store(tl.sort(p), 1.0)  # ERR:sort_pointers


@triton.jit
def k_add_runtime_sanitize(X, s):
    offs = tl.arange(0, 8)
    tl.store(X + offs, tl.add(tl.load(X + offs), 1.0, s))  # ERR:add_runtime_sanitize


@triton.jit
def k_libdevice_fp16(X):
    x = tl.load(X + tl.arange(0, 8)).to(tl.float16)
    tl.store(X + tl.arange(0, 8), libdevice.tanh(x).to(tl.float32))  # ERR:libdevice_fp16


@triton.jit
def k_libdevice_mixed(X):
    x = tl.load(X + tl.arange(0, 8))
    y = libdevice.pow(x, x.to(tl.float64))  # ERR:libdevice_mixed
    tl.store(X + tl.arange(0, 8), y.to(tl.float32))


@triton.jit
def k_libdevice_int(X):
    i = tl.arange(0, 8)
    tl.store(X + i, libdevice.sin(i).to(tl.float32))  # ERR:libdevice_int


@triton.jit
def k_libdevice_f64_erfinv(X):
    x = tl.load(X + tl.arange(0, 8)).to(tl.float64)
    tl.store(X + tl.arange(0, 8), libdevice.erfinv(x).to(tl.float32))  # ERR:libdevice_f64_erfinv


@triton.jit
def k_libdevice_unknown(X):
    x = tl.load(X + tl.arange(0, 8))
    tl.store(X + tl.arange(0, 8), libdevice.no_such_fn(x))  # ERR:libdevice_unknown


@triton.jit
def k_libdevice_arity(X):
    x = tl.load(X + tl.arange(0, 8))
    tl.store(X + tl.arange(0, 8), tl.extra.cuda.libdevice.atan2(x))  # ERR:libdevice_arity

@triton.jit
def k_gather_float_index(X):
    src = tl.load(X + tl.arange(0, 16))
    tl.store(X + tl.arange(0, 16), tl.gather(src, src, 0))  # ERR:gather_float_index


@triton.jit
def k_gather_rank(X):
    src = tl.load(X + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :])
    tl.store(X + tl.arange(0, 4), tl.gather(src, tl.arange(0, 4), 0))  # ERR:gather_rank


@triton.jit
def k_gather_axis(X):
    src = tl.load(X + tl.arange(0, 16))
    tl.store(X + tl.arange(0, 16), tl.gather(src, tl.arange(0, 16), 1))  # ERR:gather_axis


@triton.jit
def k_gather_other_dim(X):
    src = tl.load(X + tl.arange(0, 4)[:, None] * 4 + tl.arange(0, 4)[None, :])
    idx = tl.zeros((8, 2), tl.int32)
    out = src.gather(idx, axis=0)  # ERR:gather_other_dim
    tl.store(X + tl.arange(0, 16), tl.reshape(out, 16))


@triton.jit
def k_gather_runtime_axis(X, a):
    src = tl.load(X + tl.arange(0, 16))
    tl.store(X + tl.arange(0, 16), tl.gather(src, tl.arange(0, 16), a))  # ERR:gather_rt_axis


@triton.jit
def k_histogram_2d(X):
    x = tl.zeros((4, 4), tl.int32)
    tl.store(X + tl.arange(0, 8), tl.histogram(x, 8).to(tl.float32))  # ERR:hist_2d


@triton.jit
def k_histogram_float(X):
    x = tl.load(X + tl.arange(0, 16))
    tl.store(X + tl.arange(0, 8), tl.histogram(x, 8).to(tl.float32))  # ERR:hist_float


@triton.jit
def k_histogram_bins(X):
    x = tl.arange(0, 16)
    tl.store(X + tl.arange(0, 16), x.histogram(12).to(tl.float32))  # ERR:hist_bins


@triton.jit
def k_histogram_mask(X):
    x = tl.arange(0, 16)
    tl.store(X + tl.arange(0, 8), tl.histogram(x, 8, mask=x).to(tl.float32))  # ERR:hist_mask


@triton.jit
def k_histogram_runtime_bins(X, n):
    x = tl.arange(0, 16)
    tl.store(X + tl.arange(0, 8), tl.histogram(x, n).to(tl.float32))  # ERR:hist_rt_bins


F32 = lambda: np.zeros(64, np.float32)  # noqa: E731

@triton.jit
def k_asm_count(X):
    x = tl.load(X + tl.arange(0, 64))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,r", [x], dtype=tl.float32,  # ERR:asm_count
                                  is_pure=True, pack=1)
    tl.store(X + tl.arange(0, 64), y)


@triton.jit
def k_asm_width(X):
    x = tl.load(X + tl.arange(0, 64))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=h,r", [x], dtype=tl.float32,  # ERR:asm_width
                                  is_pure=True, pack=1)
    tl.store(X + tl.arange(0, 64), y)


@triton.jit
def k_asm_operand(X):
    x = tl.load(X + tl.arange(0, 64))
    y = tl.inline_asm_elementwise("mov.b32 $0, $2;", "=r,r", [x], dtype=tl.float32,  # ERR:asm_operand
                                  is_pure=True, pack=1)
    tl.store(X + tl.arange(0, 64), y)


@triton.jit
def k_asm_bool(X):
    x = tl.load(X + tl.arange(0, 64))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x > 0], dtype=tl.int32,  # ERR:asm_bool
                                  is_pure=True, pack=1)
    tl.store(X + tl.arange(0, 64), y.to(tl.float32))


@triton.jit
def k_asm_byte(X):
    x = tl.load(X + tl.arange(0, 64)).to(tl.int8)
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,h", [x], dtype=tl.int32,  # ERR:asm_byte
                                  is_pure=True, pack=1)
    tl.store(X + tl.arange(0, 64), y.to(tl.float32))


# tensor descriptors: Triton's checks at make_tensor_descriptor and at each access
@triton.jit
def k_desc_block_rank(X, n):
    d = tl.make_tensor_descriptor(X, [n, n], [n, 1], [16])  # ERR:desc_block_rank
    d.store([0, 0], tl.zeros((16, 16), tl.float32))


@triton.jit
def k_desc_strides(X, n):
    d = tl.make_tensor_descriptor(X, [n, n], [n], [16, 16])  # ERR:desc_strides
    d.store([0, 0], tl.zeros((16, 16), tl.float32))


@triton.jit
def k_desc_ndim(X, n):
    d = tl.make_tensor_descriptor(X, [n] * 6, [1] * 6, [4] * 6)  # ERR:desc_ndim
    tl.store(X, 1.0)


@triton.jit
def k_desc_pow2(X, n):
    d = tl.make_tensor_descriptor(X, [n, n], [n, 1], [16, 24])  # ERR:desc_pow2
    tl.store(X, 1.0)


@triton.jit
def k_desc_last_bytes(X, n):
    d = tl.make_tensor_descriptor(X, [n, n], [n, 1], [16, 2])  # ERR:desc_last_bytes
    tl.store(X, 1.0)


@triton.jit
def k_desc_last_stride(X, n):
    d = tl.make_tensor_descriptor(X, [n, n], [1, n], [16, 16])  # ERR:desc_last_stride
    tl.store(X, 1.0)


@triton.jit
def k_desc_nan_int(X, I, n):
    d = tl.make_tensor_descriptor(I, [n], [1], [16], padding_option="nan")  # ERR:desc_nan_int
    tl.store(X, 1.0)


@triton.jit
def k_desc_padding(X, n):
    d = tl.make_tensor_descriptor(X, [n], [1], [16], padding_option="one")  # ERR:desc_padding
    tl.store(X, 1.0)


@triton.jit
def k_desc_bool(X, B, n):
    d = tl.make_tensor_descriptor(B, [n], [1], [16])  # ERR:desc_bool
    tl.store(X, 1.0)


@triton.jit
def k_desc_offsets(X, n):
    d = tl.make_tensor_descriptor(X, [n, n], [n, 1], [16, 16])
    v = d.load([0])  # ERR:desc_offsets
    tl.store(X + tl.arange(0, 16), tl.sum(v, axis=0))


@triton.jit
def k_desc_i64_offset(X, n):
    d = tl.make_tensor_descriptor(X, [n], [1], [16])
    v = d.load([n.to(tl.int64)])  # ERR:desc_i64_offset
    tl.store(X + tl.arange(0, 16), v)


@triton.jit
def k_desc_store_shape(X, n):
    d = tl.make_tensor_descriptor(X, [n, n], [n, 1], [16, 16])
    d.store([0, 0], tl.zeros((16,), tl.float32))  # ERR:desc_store_shape


@triton.jit
def k_desc_atomic_dtype(X, n):
    d = tl.make_tensor_descriptor(X, [n], [1], [16])
    d.atomic_min([0], tl.zeros((16,), tl.float32))  # ERR:desc_atomic_dtype


@triton.jit
def k_desc_attribute(X, n):
    d = tl.make_tensor_descriptor(X, [n], [1], [16])
    tl.store(X, d.order)  # ERR:desc_attribute


@triton.jit
def k_desc_not_a_desc(X, n):
    v = tl.load_tensor_descriptor(X, [0])  # ERR:desc_not_a_desc
    tl.store(X + tl.arange(0, 16), v)


@triton.jit
def k_desc_loop_block(X, n):
    d = tl.make_tensor_descriptor(X, [n], [1], [16])
    for i in range(n):  # ERR:desc_loop_block/alt
        d = tl.make_tensor_descriptor(X, [n], [1], [32])  # ERR:desc_loop_block
    tl.store(X, 1.0)


@triton.jit
def k_desc_gather_rows(X, n):
    d = tl.make_tensor_descriptor(X, [n, n], [n, 1], [2, 16])
    v = d.gather(tl.arange(0, 8), 0)  # ERR:desc_gather_rows
    tl.store(X + tl.arange(0, 16), tl.sum(v, axis=0))


CASES = [
    # (kernel, args, kwargs, tag, regexes the message must match)
    (k_undefined, lambda: [F32()], {}, "undefined", ["undefined_thing_xyz"]),
    (k_builtin_arity, lambda: [F32()], {}, "builtin_arity", ["exp", r"(?i)argument"]),
    (k_builtin_missing_arg, lambda: [F32()], {}, "builtin_missing",
     ["arange", r"(?i)argument|missing|end"]),
    (k_unknown_keyword, lambda: [F32()], {}, "unknown_keyword", ["maskk"]),
    (k_broadcast_1d, lambda: [F32()], {}, "broadcast_1d", ["16", "32"]),
    (k_broadcast_2d, lambda: [F32()], {}, "broadcast_2d",
     [r"(?i)broadcast|shape|compatible"]),
    (k_store_shape_mismatch, lambda: [F32()], {}, "store_shape",
     [r"(?i)broadcast|shape|compatible"]),
    (k_arange_not_pow2, lambda: [F32()], {}, "arange_pow2", [r"(?i)power[ -]of[ -](2|two)"]),
    (k_arange_runtime, lambda: [F32(), 8], {}, "arange_runtime",
     [r"(?i)constexpr|compile[ -]time|constant"]),
    (k_program_id_runtime_axis, lambda: [F32(), 0], {}, "pid_runtime",
     [r"(?i)constexpr|compile[ -]time|constant"]),
    (k_zeros_runtime_shape, lambda: [F32(), 4], {}, "zeros_runtime",
     [r"(?i)constexpr|compile[ -]time|constant"]),
    (k_constexpr_annotation_runtime, lambda: [F32(), 4], {}, "constexpr_local",
     [r"(?i)constexpr|compile[ -]time|constant"]),
    (k_static_range_runtime, lambda: [F32(), 4], {}, "static_range_runtime",
     [r"(?i)constexpr|compile[ -]time|constant"]),
    (k_if_type_mismatch, lambda: [F32()], {}, "if_mismatch", [r"(?i)type", r"\bv\b"]),
    (k_if_shape_mismatch, lambda: [F32()], {}, "if_shape", [r"(?i)type|shape", r"\bv\b"]),
    (k_loop_type_change, lambda: [F32(), 4], {}, "loop_type", [r"(?i)type", "acc"]),
    (k_while_type_change, lambda: [F32(), 4], {}, "while_type", [r"(?i)type", r"\bv\b"]),
    (k_break, lambda: [F32(), 4], {}, "break", [r"(?i)break"]),
    (k_continue, lambda: [F32(), 4], {}, "continue", [r"(?i)continue"]),
    (k_try, lambda: [F32()], {}, "try", [r"(?i)try"]),
    (k_with, lambda: [F32()], {}, "with", [r"(?i)with"]),
    (k_lambda, lambda: [F32()], {}, "lambda", [r"(?i)lambda"]),
    (k_chained_comparison, lambda: [F32()], {}, "chained", [r"(?i)chain|comparison"]),
    (k_return_in_loop, lambda: [F32(), 4], {}, "return_loop", [r"(?i)return"]),
    (k_host_function, lambda: [F32()], {}, "host_fn", ["host_fn_xyz"]),
    (k_other_without_mask, lambda: [F32()], {}, "other_no_mask", ["other", "mask"]),
    (k_dot_shape, lambda: [F32()], {}, "dot_shape",
     [r"(?i)shape|dimension|incompatible|mismatch"]),
    (k_dot_rank1, lambda: [F32()], {}, "dot_rank", [r"(?i)dot|rank|dimension|2-?D|shape"]),
    (k_program_id_axis3, lambda: [F32()], {}, "pid_axis", [r"(?i)axis", "3"]),
    (k_static_assert_msg, lambda: [F32()], {"BLOCK": 16}, "static_assert_msg",
     ["BLOCK must be a multiple of 3"]),
    (k_static_assert_plain, lambda: [F32()], {"BLOCK": 16}, "static_assert_plain",
     [r"(?i)static_assert|assert"]),
    (k_bitwise_float, lambda: [F32()], {}, "bitwise_float",
     [r"(?i)bitwise|&|integer|invalid operand|fp32|float"]),
    (k_invert_float, lambda: [F32()], {}, "invert_float",
     [r"(?i)invert|~|integer|fp32|float"]),
    (k_shift_float, lambda: [F32()], {}, "shift_float",
     [r"(?i)shift|<<|integer|invalid operand|fp32|float"]),
    (k_store_to_value, lambda: [F32()], {}, "store_non_pointer", [r"(?i)pointer"]),
    (k_load_from_int, lambda: [F32(), 4], {}, "load_int", [r"(?i)pointer"]),
    (k_add_pointers, lambda: [F32(), F32()], {}, "add_pointers", [r"(?i)pointer"]),
    (k_call_tensor, lambda: [F32()], {}, "call_tensor", [r"(?i)call"]),
    (k_callee_too_many, lambda: [F32()], {}, "callee_too_many",
     ["_callee2", r"(?i)argument"]),
    (k_callee_too_few, lambda: [F32()], {}, "callee_too_few",
     ["_callee2", r"(?i)argument|missing"]),
    (k_callee_unknown_keyword, lambda: [F32()], {}, "callee_keyword", ["zz_kw"]),
    (k_recursion, lambda: [F32()], {}, "recursion", [r"(?i)recursi", "_recursive"]),
    (k_global_array, lambda: [F32()], {}, "global_array", ["_GLOBAL_ARRAY"]),
    (k_global_list, lambda: [F32()], {}, "global_list", ["_GLOBAL_LIST"]),
    (k_subscript_assign, lambda: [F32()], {}, "subscript_assign",
     [r"(?i)subscript|item|assign"]),
    (k_del, lambda: [F32()], {}, "del", [r"(?i)\bdel\b"]),
    (k_global_stmt, lambda: [F32()], {}, "global_stmt", [r"(?i)global"]),
    (k_fstring_runtime, lambda: [F32()], {}, "fstring_runtime",
     [r"(?i)f-string|constexpr|format|run-?time"]),
    (k_nested_callee_error, lambda: [F32()], {}, "callee_undefined", ["missing_in_callee"]),
    (k_nested_callee_runtime_arange, lambda: [F32(), 4], {}, "callee_arange",
     [r"(?i)constexpr|compile[ -]time|constant"]),
    (k_walrus, lambda: [F32()], {}, "walrus", [r"(?i)support|syntax|:=|named|walrus"]),
    (k_list_comprehension, lambda: [F32()], {}, "comprehension",
     [r"(?i)comprehension|support|syntax"]),
    (k_import, lambda: [F32()], {}, "import", [r"(?i)import"]),
    (k_int_literal_too_large, lambda: [F32()], {}, "int_too_large",
     [r"(?i)integer|large|range|represent"]),
    (k_float_floordiv, lambda: [F32()], {}, "float_floordiv",
     [r"(?i)//|floor|float|fp32|integer"]),
    (k_mixed_sign_division, lambda: [np.zeros(4, np.int32), np.ones(4, np.uint32)], {},
     "mixed_sign_div", [r"(?i)signed|signedness"]),
    (k_reshape_numel, lambda: [F32()], {}, "reshape_numel",
     [r"(?i)reshape|number of elements|numel"]),
    (k_permute_bad, lambda: [F32()], {}, "permute_bad", [r"(?i)permut|order|dims"]),
    (k_split_not_2, lambda: [F32()], {}, "split_not2", [r"(?i)split|2"]),
    (k_reduce_bad_axis, lambda: [F32()], {}, "reduce_axis", [r"(?i)axis"]),
    (k_if_on_tile, lambda: [F32()], {}, "if_tile",
     [r"(?i)scalar|ambiguous|block|tensor|tile"]),
    (k_unknown_tl_attribute, lambda: [F32()], {}, "unknown_tl", ["not_a_builtin_xyz"]),
    (k_unknown_method, lambda: [F32()], {}, "unknown_method", ["frobnicate_xyz"]),
    (k_unpack_mismatch, lambda: [F32()], {}, "unpack", [r"(?i)unpack|values|3|2"]),
    (k_unsigned_negative_literal, lambda: [np.zeros(4, np.uint8)], {}, "unsigned_negative",
     [r"(?i)unsigned"]),
    (k_scalar_out_of_range, lambda: [np.zeros(4, np.int8)], {}, "scalar_range", ["300"]),
    (k_bitcast_width, lambda: [F32()], {}, "bitcast_width", [r"(?i)bitcast|size|width|bits"]),
    (k_defined_in_one_branch, lambda: [F32()], {}, "one_branch", ["only_then"]),
    (k_range_float_bound, lambda: [F32()], {}, "range_float", [r"(?i)int|float|fp32"]),
    (k_arange_reversed, lambda: [F32()], {}, "arange_reversed",
     [r"(?i)arange|start|end|greater"]),
    (k_dot_mixed_dtypes, lambda: [F32()], {}, "dot_dtypes", [r"(?i)type"]),
    (k_static_assert_runtime, lambda: [F32()], {}, "static_assert_runtime",
     [r"(?i)constexpr|compile[ -]time|constant"]),
    (k_atomic_and_float, lambda: [F32()], {}, "atomic_and_float",
     [r"(?i)integer|float|fp32|type"]),
    (k_callee_mixed_returns, lambda: [F32()], {}, "callee_returns", [r"(?i)type|return"]),
    (k_mask_shape, lambda: [F32()], {}, "mask_shape", [r"(?i)broadcast|shape|compatible"]),
    # Triton's broadcast_to does not add leading dimensions ("rank mismatch")
    (k_broadcast_to_rank, lambda: [F32()], {}, "broadcast_to_rank", [r"(?i)rank|broadcast"]),
    (k_rand_float_seed, lambda: [F32()], {}, "rand_float_seed", ["rand", "seed", "integer"]),
    (k_rand_runtime_rounds, lambda: [F32(), 10], {}, "rand_runtime_rounds",
     ["n_rounds", r"(?i)constexpr|compile[ -]time|constant"]),
    (k_philox_huge_rounds, lambda: [F32()], {}, "philox_rounds",
     ["n_rounds = 1000000", "too many rounds", "at most 1024"]),
    (k_randint_float_offset, lambda: [F32()], {}, "randint_float_offset",
     ["randint", "offset", "integer", "fp32"]),
    (k_blockptr_mask, lambda: [F32()], {}, "bp_mask", ["mask", "block pointer"]),
    (k_blockptr_nan_int, lambda: [F32(), np.zeros(64, np.int32)], {}, "bp_nan_int",
     ["nan", "integer"]),
    (k_blockptr_check_dim, lambda: [F32()], {}, "bp_check_dim", ["boundary_check", "2", "rank"]),
    (k_blockptr_i64_offset, lambda: [F32(), 0], {}, "bp_i64", ["32-bit", "offsets"]),
    (k_blockptr_lengths, lambda: [F32()], {}, "bp_lengths", ["strides", "same length"]),
    (k_blockptr_order, lambda: [F32()], {}, "bp_order", ["order", "permutation"]),
    (k_advance_rank, lambda: [F32()], {}, "bp_advance_rank", ["advance", "rank"]),
    (k_blockptr_loop_shape, lambda: [F32(), 2], {}, "bp_loop_shape",
     [r"\bbp\b", r"block pointer to fp32 \[16\]", r"\[32\]"]),
    (k_asm_count, lambda: [F32()], {}, "asm_count", ["3 constraints for 2 registers"]),
    (k_asm_width, lambda: [F32()], {}, "asm_width", ["'=h'", "16-bit", "32-bit"]),
    (k_asm_operand, lambda: [F32()], {}, "asm_operand", [r"'\$2'", "names no register"]),
    (k_asm_bool, lambda: [F32()], {}, "asm_bool", ["boolean", "i1"]),
    (k_asm_byte, lambda: [F32()], {}, "asm_byte", ["'h'. names a 16-bit register",
                                                   "int8, pack=1. is passed in 32-bit"]),
    (k_sort_dim0, lambda: [F32()], {}, "sort_dim0", ["sort", "last dimension", "dim=0"]),
    (k_sort_bad_dim, lambda: [F32()], {}, "sort_bad_dim", ["sort", "axis 2"]),
    (k_sort_scalar, lambda: [F32()], {}, "sort_scalar", ["sort", "scalar"]),
    (k_sort_runtime_desc, lambda: [F32(), 3], {}, "sort_runtime_desc",
     ["descending", r"(?i)constexpr"]),
    (k_topk_too_large, lambda: [F32()], {}, "topk_too_large", ["topk", "k", "8", "16"]),
    (k_topk_not_pow2, lambda: [F32()], {}, "topk_not_pow2", ["topk", "power of two", "3"]),
    (k_merge_dim0, lambda: [F32()], {}, "merge_dim0", ["bitonic_merge", "last dimension"]),
    (k_sort_pointers, lambda: [F32()], {}, "sort_pointers", ["sort", "pointers"]),
    (k_add_runtime_sanitize, lambda: [F32(), 3], {}, "add_runtime_sanitize",
     ["sanitize_overflow", r"(?i)constexpr"]),
    # libdevice takes exactly the dtypes of its forms (Triton: a KeyError on the dtypes)
    (k_libdevice_fp16, lambda: [F32()], {}, "libdevice_fp16",
     [r"libdevice\.tanh", r"\(fp16\)", r"\(fp32\), \(fp64\)"]),
    (k_libdevice_mixed, lambda: [F32()], {}, "libdevice_mixed",
     [r"libdevice\.pow", r"\(fp32, fp64\)", r"\(fp32, int32\)"]),
    (k_libdevice_int, lambda: [F32()], {}, "libdevice_int", [r"libdevice\.sin", r"\(int32\)"]),
    (k_libdevice_f64_erfinv, lambda: [F32()], {}, "libdevice_f64_erfinv",
     [r"libdevice\.erfinv", "fp64", "not supported"]),
    (k_libdevice_unknown, lambda: [F32()], {}, "libdevice_unknown", ["no_such_fn"]),
    (k_libdevice_arity, lambda: [F32()], {}, "libdevice_arity", ["atan2", "arg1"]),
    (k_gather_float_index, lambda: [F32()], {}, "gather_float_index",
     ["gather", "index", "integer", "fp32"]),
    (k_gather_rank, lambda: [F32()], {}, "gather_rank", ["gather", "same rank"]),
    (k_gather_axis, lambda: [F32()], {}, "gather_axis", ["gather", "axis 1"]),
    (k_gather_other_dim, lambda: [F32()], {}, "gather_other_dim",
     ["gather", "index dim 1", r"fp32\[constexpr\[4\], constexpr\[4\]\]",
      r"int32\[constexpr\[8\], constexpr\[2\]\]"]),
    (k_gather_runtime_axis, lambda: [F32(), 0], {}, "gather_rt_axis",
     ["axis", r"(?i)constexpr|compile[ -]time|constant"]),
    (k_histogram_2d, lambda: [F32()], {}, "hist_2d", ["histogram", "1-D"]),
    (k_histogram_float, lambda: [F32()], {}, "hist_float", ["histogram", "integer", "fp32"]),
    (k_histogram_bins, lambda: [F32()], {}, "hist_bins", ["Shape element 0", "power of 2"]),
    (k_histogram_mask, lambda: [F32()], {}, "hist_mask", ["histogram", "mask", "boolean"]),
    (k_histogram_runtime_bins, lambda: [F32(), 8], {}, "hist_rt_bins",
     ["num_bins", r"(?i)constexpr|compile[ -]time|constant"]),
    (k_desc_block_rank, lambda: [F32(), 8], {}, "desc_block_rank",
     ["make_tensor_descriptor", "block_shape", "2 dimensions but got 1"]),
    (k_desc_strides, lambda: [F32(), 8], {}, "desc_strides", ["expected 2 strides but got 1"]),
    (k_desc_ndim, lambda: [F32(), 8], {}, "desc_ndim", [r"1 <= ndim <= 5", "6"]),
    (k_desc_pow2, lambda: [F32(), 8], {}, "desc_pow2", ["Shape element 1",
                                                        "power of 2"]),
    (k_desc_last_bytes, lambda: [F32(), 8], {}, "desc_last_bytes",
     ["at least 16 bytes in the last dimension", r"2 \* 4 = 8 bytes"]),
    (k_desc_last_stride, lambda: [F32(), 8], {}, "desc_last_stride",
     ["last stride", "constant 1", "int32"]),
    (k_desc_nan_int, lambda: [F32(), np.zeros(64, np.int32), 8], {}, "desc_nan_int",
     ["nan", "integer"]),
    (k_desc_padding, lambda: [F32(), 8], {}, "desc_padding", ["padding option 'one'"]),
    (k_desc_bool, lambda: [F32(), np.zeros(64, np.bool_), 8], {}, "desc_bool",
     ["int1", "not supported"]),
    (k_desc_offsets, lambda: [F32(), 8], {}, "desc_offsets",
     ["load", "expected 2 offsets", "got 1"]),
    (k_desc_i64_offset, lambda: [F32(), 8], {}, "desc_i64_offset", ["32-bit", "offsets"]),
    (k_desc_store_shape, lambda: [F32(), 8], {}, "desc_store_shape",
     ["store", r"shape \[16, 16\]", "block shape", r"fp32\[constexpr\[16\]\]"]),
    (k_desc_atomic_dtype, lambda: [F32(), 8], {}, "desc_atomic_dtype",
     ["atomic_min", "fp32", "does not support atomic min"]),
    (k_desc_attribute, lambda: [F32(), 8], {}, "desc_attribute",
     ["'tensor_descriptor' object has no attribute 'order'"]),
    (k_desc_not_a_desc, lambda: [F32(), 8], {}, "desc_not_a_desc",
     ["load_tensor_descriptor", "expected a tensor descriptor", "pointer"]),
    (k_desc_loop_block, lambda: [F32(), 2], {}, "desc_loop_block",
     [r"\bd\b", r"tensordesc<fp32\[16\]>", r"tensordesc<fp32\[32\]>"]),
    (k_desc_gather_rows, lambda: [F32(), 8], {}, "desc_gather_rows",
     ["gather", "one row", r"\[2, 16\]"]),
]


@pytest.mark.parametrize("kernel,args,kwargs,tag,patterns", CASES, ids=[c[3] for c in CASES])
def test_invalid_kernel(kernel, args, kwargs, tag, patterns):
    with pytest.raises(triton.CompilationError) as ei:
        kernel[(1,)](*args(), **kwargs)
    e = ei.value
    text = str(e)
    message = getattr(e, "message", None) or text
    for p in patterns:
        assert re.search(p, message), f"message does not match {p!r}:\n{text}"
    f, line, col = error_location(e)
    assert same_file(f, HERE), f"error is located in {f!r}, not this file:\n{text}"
    assert line in expected_lines(tag), \
        f"error at line {line}, expected {expected_lines(tag)}:\n{text}"
    # str(e) shows the kernel's line (a call, when the error is in a callee); the causes
    # go down the calls to the error itself, whose text has its file:line and source line
    inner = e
    while isinstance(inner.__cause__, triton.CompilationError):
        inner = inner.__cause__
    assert inner.line == line, text
    assert f"{os.path.basename(HERE)}:{line}:" in str(inner), str(inner)
    assert _SOURCE[line - 1].strip() in str(inner), str(inner)
    assert f"{os.path.basename(HERE)}:{line}:" in e.rendered, e.rendered


def _col_of(tag, needle):
    line = expected_lines(tag)[0]
    return _SOURCE[line - 1].index(needle) + 1


@pytest.mark.parametrize("kernel,args,tag,needles", [
    (k_undefined, lambda: [F32()], "undefined", ["undefined_thing_xyz"]),
    (k_host_function, lambda: [F32()], "host_fn", ["host_fn_xyz"]),
    (k_walrus, lambda: [F32()], "walrus", ["y :=", ":=", "(y"]),
    (k_chained_comparison, lambda: [F32()], "chained", ["0 < x", "< 5"]),
])
def test_error_column(kernel, args, tag, needles):
    """Columns are 1-based and point at the offending construct."""
    with pytest.raises(triton.CompilationError) as ei:
        kernel[(1,)](*args())
    _, line, col = error_location(ei.value)
    assert col in [_col_of(tag, n) for n in needles], str(ei.value)


def test_error_in_callee_names_the_callee_line_not_the_call():
    with pytest.raises(triton.CompilationError) as ei:
        k_nested_callee_error[(1,)](F32())
    _, line, _ = error_location(ei.value)
    assert line == expected_lines("callee_undefined")[0]


def test_missing_constexpr_argument_at_launch():
    @triton.jit
    def k(X, BLOCK: tl.constexpr):
        tl.store(X + tl.arange(0, BLOCK), 1.0)

    with pytest.raises(Exception) as ei:
        k[(1,)](F32())
    assert "BLOCK" in str(ei.value)


def test_same_kernel_compiles_after_an_error():
    """A failed specialisation does not poison the kernel: a good one still runs."""
    @triton.jit
    def k(X, BLOCK: tl.constexpr):
        tl.static_assert(BLOCK <= 64, "BLOCK too large")
        tl.store(X + tl.arange(0, BLOCK), 2.0)

    x = F32()
    with pytest.raises(triton.CompilationError, match="BLOCK too large"):
        k[(1,)](x, BLOCK=128)
    k[(1,)](x, BLOCK=64)
    assert (x == 2.0).all()


def test_compilation_error_is_raised_again_on_second_launch():
    for _ in range(2):
        with pytest.raises(triton.CompilationError, match="undefined_thing_xyz"):
            k_undefined[(1,)](F32())


# ---------------------------------------------------------------------------------------
# run-time faults


@triton.jit
def k_oob_load(src, dst, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(src + offs)  # ERR:oob_load
    tl.store(dst + offs, x, mask=offs < 4)


@triton.jit
def k_oob_store(src, dst_buf, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(src + offs)
    tl.store(dst_buf + offs + 2, x)  # ERR:oob_store


@triton.jit
def k_oob_negative(src, dst, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(src + offs - 1)  # ERR:oob_negative
    tl.store(dst + offs, x)


@triton.jit
def k_oob_program(src, dst, N: tl.constexpr):
    offs = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(dst + offs, tl.load(src + offs))  # ERR:oob_program


def _check_fault(exc, tag, arg):
    text = str(exc)
    line = expected_lines(tag)[0]
    assert isinstance(exc, triton.TilecError) or "tilec" in type(exc).__module__, type(exc)
    assert not isinstance(exc, triton.CompilationError)
    assert f"{os.path.basename(HERE)}:{line}" in text, text
    assert re.search(rf"\b{arg}\b", text), text


def test_out_of_bounds_load():
    src = np.arange(8, dtype=np.float32)
    dst = np.zeros(16, np.float32)
    with pytest.raises(Exception) as ei:
        k_oob_load[(1,)](src, dst, N=16)
    _check_fault(ei.value, "oob_load", "src")
    # the process survives, and a good launch of the same kernel works
    k_oob_load[(1,)](src, dst, N=8)
    np.testing.assert_array_equal(dst[:4], src[:4])


def test_out_of_bounds_store():
    src = np.arange(8, dtype=np.float32)
    dst = np.zeros(8, np.float32)
    with pytest.raises(Exception) as ei:
        k_oob_store[(1,)](src, dst, N=8)
    _check_fault(ei.value, "oob_store", "dst_buf")


def test_out_of_bounds_negative_offset():
    src = np.arange(8, dtype=np.float32)
    dst = np.zeros(8, np.float32)
    with pytest.raises(Exception) as ei:
        k_oob_negative[(1,)](src, dst, N=8)
    _check_fault(ei.value, "oob_negative", "src")


def test_out_of_bounds_in_a_later_program():
    src = np.arange(20, dtype=np.float32)
    dst = np.zeros(32, np.float32)
    with pytest.raises(Exception) as ei:
        k_oob_program[(4,)](src, dst, N=8)  # programs 2 and 3 read past src
    _check_fault(ei.value, "oob_program", "src")


def test_masked_out_of_bounds_is_fine():
    @triton.jit
    def k(src, dst, n, N: tl.constexpr):
        offs = tl.arange(0, N)
        m = offs < n
        tl.store(dst + offs, tl.load(src + offs, mask=m, other=0.0), mask=m)

    src = np.arange(5, dtype=np.float32)
    dst = np.zeros(5, np.float32)
    k[(1,)](src, dst, 5, N=8)
    np.testing.assert_array_equal(dst, src)


# ---------------------------------------------------------------------------------------
# real syntax errors: Python cannot import such a file, so they reach tilec through its
# command line (`tilec ir FILE.py:KERNEL`), which parses the file itself


@pytest.mark.parametrize("body,places", [
    ("    x = tl.load(X +)\n", [(6, 20)]),  # the unexpected ')'
    ("    x = tl.load(X + 1) $ 2\n", [(6, 24)]),  # a stray character
    # an unclosed '(': where it opens, or where the next line's tokens break the call
    ("    x = tl.load(X\n    tl.store(X, x)\n", [(6, 16), (7, 5)]),
])
def test_syntax_error_through_cli(tmp_path, body, places):
    import subprocess
    import sys
    src = "import tilec as triton\nimport tilec.language as tl\n\n@triton.jit\ndef k(X):\n"
    src += body + "    tl.store(X, 1.0)\n"
    path = tmp_path / "bad_kernel.py"
    path.write_text(src)
    proc = subprocess.run([sys.executable, "-m", "tilec._cli", "ir", f"{path}:k",
                           "--signature", "*fp32"], capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    m = re.search(r"bad_kernel\.py:(\d+):(\d+): error", out)
    assert m, out
    line, col = int(m.group(1)), int(m.group(2))
    # the offending token, or the character just before it
    assert any(line == ln and abs(col - c) <= 1 for ln, c in places), out
