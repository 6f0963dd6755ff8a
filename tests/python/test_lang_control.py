"""Control flow (if/elif/else on run-time scalars merging values, for over range / tl.range /
tl.static_range with run-time and constexpr bounds, while, nested loops, early return,
constexpr branches) and nested @jit calls (tuples, defaults, constexpr parameters)."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl


def test_if_else_merges_values():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        pid = tl.program_id(0)
        offs = tl.arange(0, N)
        x = tl.load(X + pid * N + offs)
        if pid % 2 == 0:
            y = x * 2
            s = 1
        else:
            y = x - 1
            s = -1
        tl.store(Z + pid * N + offs, y * s)

    x = np.arange(32, dtype=np.int32)
    z = np.zeros(32, np.int32)
    k[(4,)](x, z, N=8)
    want = x.reshape(4, 8).copy()
    want[0::2] *= 2
    want[1::2] = -(want[1::2] - 1)
    np.testing.assert_array_equal(z, want.reshape(-1))


def test_if_without_else_and_elif_chain():
    @triton.jit
    def k(V, Z):
        pid = tl.program_id(0)
        v = tl.load(V + pid)
        r = 0
        if v < 0:
            r = -1
        elif v == 0:
            r = 100
        elif v < 10:
            r = v * 10
        else:
            r = 7
        extra = 0.5
        if v > 5:
            extra = 1.5
        tl.store(Z + pid, r + extra)

    v = np.array([-3, 0, 4, 9, 10, 50], np.int32)
    z = np.zeros(6, np.float32)
    k[(6,)](v, z)
    np.testing.assert_array_equal(z, [-0.5, 100.5, 40.5, 91.5, 8.5, 8.5])


def test_if_on_loaded_scalar_and_compound_condition():
    @triton.jit
    def k(F, X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        x = tl.load(X + offs)
        flag = tl.load(F)
        pid = tl.program_id(0)
        if (flag > 0) and (pid == 0):
            x = x + 100
        if not (flag > 0) or pid != 0:
            x = x - 100
        tl.store(Z + pid * N + offs, x)

    x = np.arange(4, dtype=np.float32)
    for flag, want0 in [(1, x + 100), (0, x - 100)]:
        z = np.zeros(8, np.float32)
        k[(2,)](np.array([flag], np.int32), x, z, N=4)
        np.testing.assert_array_equal(z[:4], want0)
        np.testing.assert_array_equal(z[4:], x - 100)


def test_ternary_expression():
    @triton.jit
    def k(Z, C: tl.constexpr):
        pid = tl.program_id(0)
        a = 3 if C > 0 else 4  # constexpr condition
        b = tl.where(pid > 1, 10, 20)
        tl.store(Z + pid, a + b)

    z = np.zeros(4, np.int32)
    k[(4,)](z, C=1)
    np.testing.assert_array_equal(z, [23, 23, 13, 13])
    k[(4,)](z, C=0)
    np.testing.assert_array_equal(z, [24, 24, 14, 14])


def test_for_runtime_bound_loop_carried_tile():
    @triton.jit
    def k(X, Z, n, N: tl.constexpr):
        offs = tl.arange(0, N)
        acc = tl.zeros([N], dtype=tl.float32)
        for i in range(0, n):
            acc += tl.load(X + i * N + offs)
        tl.store(Z + offs, acc)

    x = np.arange(5 * 8, dtype=np.float32).reshape(5, 8)
    for n in (0, 1, 3, 5):
        z = np.full(8, -1, np.float32)
        k[(1,)](x, z, n, N=8)
        np.testing.assert_array_equal(z, x[:n].sum(0))


@pytest.mark.parametrize("start,stop,step", [(0, 10, 1), (2, 11, 3), (5, 5, 1), (-4, 4, 3),
                                             (7, 3, 1), (0, 100, 7)])
def test_for_runtime_step(start, stop, step):
    @triton.jit
    def k(Z, start, stop, step):
        count = 0
        total = 0
        last = -999
        for i in range(start, stop, step):
            count += 1
            total += i
            last = i
        tl.store(Z + 0, count)
        tl.store(Z + 1, total)
        tl.store(Z + 2, last)

    z = np.zeros(3, np.int32)
    k[(1,)](z, start, stop, step)
    r = list(range(start, stop, step))
    np.testing.assert_array_equal(z, [len(r), sum(r), r[-1] if r else -999])


def test_for_constexpr_bounds_and_tl_range():
    @triton.jit
    def k(Z, K: tl.constexpr, S: tl.constexpr):
        a = 0
        for i in range(K):
            a += i
        b = 0
        for i in range(1, K, S):
            b += i
        c = 0
        for i in tl.range(0, K, 2, num_stages=2):
            c += i
        d = 0
        for i in tl.range(K):
            d += 1
        tl.store(Z + 0, a)
        tl.store(Z + 1, b)
        tl.store(Z + 2, c)
        tl.store(Z + 3, d)

    z = np.zeros(4, np.int32)
    k[(1,)](z, K=10, S=4)
    np.testing.assert_array_equal(z, [45, 1 + 5 + 9, 0 + 2 + 4 + 6 + 8, 10])


def test_tl_range_disable_licm_keeps_invariant_code_in_the_loop():
    # Triton's tl.range(disable_licm=True): the loop-invariant exp stays in the body
    @triton.jit
    def k(X, Z, n, OFF: tl.constexpr):
        x = tl.load(X + tl.arange(0, 16))
        acc = tl.zeros([16], tl.float32)
        for i in tl.range(0, n, disable_licm=OFF):
            acc += tl.exp(x)
        tl.store(Z + tl.arange(0, 16), acc)

    def in_loop(off):
        ir = triton.compile(k, signature="*fp32,*fp32,i32", constexprs={"OFF": off}).asm["ttir"]
        body = ir[ir.index(" for "):]
        return " exp " in body[:body.index("yield")]

    assert not in_loop(False) and in_loop(True)
    x = np.linspace(-1, 1, 16).astype(np.float32)
    z = np.zeros(16, np.float32)
    k[(1,)](x, z, 3, OFF=True)
    np.testing.assert_allclose(z, 3 * np.exp(x), rtol=1e-6)


def test_for_negative_constexpr_step():
    @triton.jit
    def k(Z, n):
        t = 0
        for i in range(10, 0, -3):
            t = t * 100 + i
        u = 0
        for i in range(n, -1, -1):
            u = u * 10 + i
        tl.store(Z, t)
        tl.store(Z + 1, u)

    z = np.zeros(2, np.int32)
    k[(1,)](z, 3)
    np.testing.assert_array_equal(z, [10070401, 3210])


def test_loop_index_after_loop_and_type():
    @triton.jit
    def k(Z, n):
        j = 0
        for i in range(n):
            j = i * 2
        tl.store(Z, j)

    z = np.zeros(1, np.int32)
    k[(1,)](z, 6)
    assert z[0] == 10


def test_static_range_unrolls():
    @triton.jit
    def k(X, Z, N: tl.constexpr, R: tl.constexpr):
        offs = tl.arange(0, N)
        acc = tl.zeros([N], dtype=tl.int32)
        for i in tl.static_range(R):
            tl.static_assert(i < R)  # i is a constexpr
            acc += tl.load(X + i * N + offs) * (i + 1)
        for i in tl.static_range(1, 7, 2):
            acc += i
        tl.store(Z + offs, acc)

    x = np.arange(3 * 4, dtype=np.int32).reshape(3, 4)
    z = np.zeros(4, np.int32)
    k[(1,)](x, z, N=4, R=3)
    np.testing.assert_array_equal(z, (x * np.array([[1], [2], [3]])).sum(0) + 9)


def test_static_range_builds_tuple_of_constexpr_shapes():
    @triton.jit
    def k(Z):
        acc = tl.zeros([4], dtype=tl.int32)
        for i in tl.static_range(4):
            acc += tl.full([4], 1 << i, tl.int32)
        tl.store(Z + tl.arange(0, 4), acc)

    z = np.zeros(4, np.int32)
    k[(1,)](z)
    assert (z == 15).all()


def test_while_loop():
    @triton.jit
    def k(Z, n):
        # Collatz steps of n
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        tl.store(Z, steps)

    for n, want in [(2, 1), (6, 8), (27, 111)]:
        z = np.zeros(1, np.int32)
        k[(1,)](z, n)
        assert z[0] == want, n


def test_while_loop_carried_tile():
    @triton.jit
    def k(Z, N: tl.constexpr):
        x = tl.arange(0, N) + 1
        it = 0
        while tl.max(x, axis=0) < 1000:
            x = x * 2
            it += 1
        tl.store(Z + tl.arange(0, N), x)
        tl.store(Z + N, it)

    z = np.zeros(9, np.int32)
    k[(1,)](z, N=8)
    # 8 * 2**7 = 1024 is the first max >= 1000
    np.testing.assert_array_equal(z[:8], (np.arange(8) + 1) * 128)
    assert z[8] == 7


def test_nested_loops():
    @triton.jit
    def k(Z, n, m):
        total = 0
        for i in range(n):
            for j in range(i, m):
                if (i + j) % 3 == 0:
                    total += i * j
        tl.store(Z, total)

    z = np.zeros(1, np.int32)
    k[(1,)](z, 5, 7)
    assert z[0] == sum(i * j for i in range(5) for j in range(i, 7) if (i + j) % 3 == 0)


def test_early_return():
    @triton.jit
    def k(X, Z, n, N: tl.constexpr):
        pid = tl.program_id(0)
        if pid >= n:
            return
        offs = pid * N + tl.arange(0, N)
        tl.store(Z + offs, tl.load(X + offs) + 1)

    x = np.arange(32, dtype=np.float32)
    z = np.zeros(32, np.float32)
    k[(4,)](x, z, 2, N=8)
    np.testing.assert_array_equal(z[:16], x[:16] + 1)
    np.testing.assert_array_equal(z[16:], 0)


def test_early_return_in_else_and_nested_if():
    @triton.jit
    def k(Z):
        pid = tl.program_id(0)
        if pid < 2:
            tl.store(Z + pid, 10)
        else:
            if pid == 3:
                return
            tl.store(Z + pid, 20)
        tl.store(Z + 4 + pid, 1)

    z = np.zeros(8, np.int32)
    k[(4,)](z)
    np.testing.assert_array_equal(z, [10, 10, 20, 0, 1, 1, 1, 0])


def test_constexpr_branches():
    @triton.jit
    def k(Z, BLOCK: tl.constexpr, MODE: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        if BLOCK > 64:
            v = offs * 2
        else:
            v = offs.to(tl.float32)  # another type: only one branch exists
        if MODE == "neg":
            v = -v
        elif MODE == "sq":
            v = v * v
        tl.store(Z + offs, v)

    z = np.zeros(128, np.int32)
    k[(1,)](z, BLOCK=128, MODE="neg")
    np.testing.assert_array_equal(z, -2 * np.arange(128))
    zf = np.zeros(16, np.float32)
    k[(1,)](zf, BLOCK=16, MODE="sq")
    np.testing.assert_array_equal(zf, np.arange(16) ** 2)


def test_constexpr_none_and_bool():
    @triton.jit
    def k(Z, B, HAS_B: tl.constexpr, FLAG: tl.constexpr):
        offs = tl.arange(0, 4)
        v = offs
        if B is not None:
            v += tl.load(B + offs)
        if HAS_B:
            v += 100
        if FLAG:
            v = v * 2
        tl.store(Z + offs, v)

    z = np.zeros(4, np.int32)
    k[(1,)](z, None, HAS_B=False, FLAG=True)
    np.testing.assert_array_equal(z, np.arange(4) * 2)
    b = np.full(4, 5, np.int32)
    k[(1,)](z, b, HAS_B=True, FLAG=False)
    np.testing.assert_array_equal(z, np.arange(4) + 105)


def test_constexpr_global_and_annotated_local():
    # tilec accepts plain int globals (the spec); Triton 3.x wants tl.constexpr ones
    @triton.jit
    def k(Z):
        C: tl.constexpr = _GLOBAL_BLOCK * 2
        offs = tl.arange(0, C)
        tl.store(Z + offs, offs + _GLOBAL_INT)

    z = np.zeros(8, np.int32)
    k[(1,)](z)
    np.testing.assert_array_equal(z, np.arange(8) + 42)


_GLOBAL_BLOCK = tl.constexpr(4)
_GLOBAL_INT = 42


# ---------------------------------------------------------------------------------------
# nested @jit calls


@triton.jit
def _divmod(a, b):
    return a // b, a % b


@triton.jit
def _scale_shift(x, scale=2, shift: tl.constexpr = 1):
    return x * scale + shift


@triton.jit
def _tile_of(BLOCK: tl.constexpr, start):
    return start + tl.arange(0, BLOCK)


@triton.jit
def _nested_outer(x):
    q, r = _divmod(x, 3)
    return _scale_shift(q, shift=10) + r


@triton.jit
def _no_return(Z, v):
    tl.store(Z, v)


@triton.jit
def _early_exit(x):
    if x > 0:
        return x * 10
    return x - 1


def test_call_returning_tuple():
    @triton.jit
    def k(X, Q, R, N: tl.constexpr):
        offs = tl.arange(0, N)
        q, r = _divmod(tl.load(X + offs), 4)
        t = _divmod(tl.load(X + offs), 4)
        tl.store(Q + offs, q + t[0] * 0)
        tl.store(R + offs, r + t[1] * 0)

    x = np.arange(16, dtype=np.int32)
    q, r = np.zeros(16, np.int32), np.zeros(16, np.int32)
    k[(1,)](x, q, r, N=16)
    np.testing.assert_array_equal(q, x // 4)
    np.testing.assert_array_equal(r, x % 4)


def test_call_defaults_and_keywords():
    @triton.jit
    def k(Z):
        offs = tl.arange(0, 4)
        tl.store(Z + offs, _scale_shift(offs))
        tl.store(Z + 4 + offs, _scale_shift(offs, 3))
        tl.store(Z + 8 + offs, _scale_shift(offs, shift=5))
        tl.store(Z + 12 + offs, _scale_shift(x=offs, scale=-1, shift=0))

    z = np.zeros(16, np.int32)
    k[(1,)](z)
    a = np.arange(4)
    np.testing.assert_array_equal(z, np.concatenate([a * 2 + 1, a * 3 + 1, a * 2 + 5, -a]))


def test_call_with_constexpr_parameter_specialised_per_value():
    @triton.jit
    def k1(Z):
        tl.store(Z + tl.arange(0, 4), _tile_of(4, 10))

    @triton.jit
    def k2(Z, B: tl.constexpr):
        t = _tile_of(B, 0)
        tl.static_assert(t.shape[0] == B)
        tl.store(Z + tl.arange(0, B), t)
        u = _tile_of(2, 5)
        tl.store(Z + B + tl.arange(0, 2), u)

    z = np.zeros(4, np.int32)
    k1[(1,)](z)
    np.testing.assert_array_equal(z, 10 + np.arange(4))
    z = np.zeros(10, np.int32)
    k2[(1,)](z, B=8)
    np.testing.assert_array_equal(z, np.concatenate([np.arange(8), [5, 6]]))
    z = np.zeros(18, np.int32)
    k2[(1,)](z, B=16)
    np.testing.assert_array_equal(z, np.concatenate([np.arange(16), [5, 6]]))


def test_nested_calls_and_void_callee():
    @triton.jit
    def k(X, Z, W, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Z + offs, _nested_outer(tl.load(X + offs)))
        _no_return(W, 77)

    x = np.arange(16, dtype=np.int32)
    z, w = np.zeros(16, np.int32), np.zeros(1, np.int32)
    k[(1,)](x, z, w, N=16)
    np.testing.assert_array_equal(z, (x // 3) * 2 + 10 + x % 3)
    assert w[0] == 77


def test_callee_with_early_return():
    @triton.jit
    def k(V, Z):
        pid = tl.program_id(0)
        tl.store(Z + pid, _early_exit(tl.load(V + pid)))

    v = np.array([3, -3, 0, 1], np.int32)
    z = np.zeros(4, np.int32)
    k[(4,)](v, z)
    np.testing.assert_array_equal(z, [30, -4, -1, 10])


def test_callee_used_by_two_kernels_with_different_types():
    @triton.jit
    def ki(X, Z):
        q, r = _divmod(tl.load(X + tl.arange(0, 4)), 2)
        tl.store(Z + tl.arange(0, 4), q * 10 + r)

    @triton.jit
    def kf(X, Z):
        x = tl.load(X + tl.arange(0, 4))
        y = _scale_shift(x, 0.5)
        tl.static_assert(y.dtype == tl.float32)
        tl.store(Z + tl.arange(0, 4), y)

    zi = np.zeros(4, np.int64)
    ki[(1,)](np.array([-3, 3, 7, 8], np.int64), zi)
    np.testing.assert_array_equal(zi, [-1 * 10 - 1, 10 + 1, 30 + 1, 40])
    zf = np.zeros(4, np.float32)
    kf[(1,)](np.array([1, 2, 3, 4], np.float32), zf)
    np.testing.assert_array_equal(zf, [1.5, 2.0, 2.5, 3.0])


def test_kernel_reused_with_different_argument_types():
    @triton.jit
    def k(X, Z, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Z + offs, tl.load(X + offs) * 2)

    for dt in (np.int8, np.int32, np.float16, np.float64):
        x = np.arange(8).astype(dt)
        z = np.zeros(8, dt)
        k[(1,)](x, z, N=8)
        np.testing.assert_array_equal(z, x * 2)


def test_runtime_ternary():
    @triton.jit
    def k(Z):
        pid = tl.program_id(0)
        a = pid * 10 if pid > 1 else pid - 10  # run-time condition: both sides are int32
        b = tl.arange(0, 4) if pid % 2 == 0 else tl.arange(0, 4) * 2
        tl.store(Z + pid, a)
        tl.store(Z + 4 + pid * 4 + tl.arange(0, 4), b)

    z = np.zeros(20, np.int32)
    k[(4,)](z)
    np.testing.assert_array_equal(z[:4], [-10, -9, 20, 30])
    r = np.arange(4)
    np.testing.assert_array_equal(z[4:], np.concatenate([r, 2 * r, r, 2 * r]))


def test_python_builtins_on_constexprs():
    @triton.jit
    def k(Z, N: tl.constexpr):
        x = tl.zeros((2, N), tl.float32)
        tl.static_assert(len(x.shape) == 2)
        tl.static_assert(x.shape[-1] == N)
        tl.static_assert(int(2.7) == 2)
        tl.static_assert(float(3) == 3.0)
        tl.static_assert((N > 4) and (N < 16))
        tl.static_assert(not (N == 3))
        tl.static_assert(N ** 2 == 64)
        tl.static_assert(-7 // 2 == -4 and 7.5 // 2 == 3.0)
        s = 0
        for i in tl.static_range(N // 2):
            s += i
        tl.store(Z, s)

    z = np.zeros(1, np.int32)
    k[(1,)](z, N=8)
    assert z[0] == 6


def test_isinstance_in_kernel():
    @triton.jit
    def k(Z, N: tl.constexpr, F: tl.constexpr):
        tl.static_assert(isinstance(N, int))
        tl.static_assert(not isinstance(F, int))
        tl.store(Z, N)

    z = np.zeros(1, np.int32)
    k[(1,)](z, N=8, F=1.5)
    assert z[0] == 8


def test_none_indexing_forms():
    @triton.jit
    def k(Z, N: tl.constexpr):
        r = tl.arange(0, N)
        a = r[None]  # [1, N]
        b = r[:, None, None]  # [N, 1, 1]
        tl.static_assert(a.shape[0] == 1)
        tl.static_assert(len(b.shape) == 3)
        c = tl.sum(tl.sum(b, axis=2), axis=1)  # [N]
        tl.store(Z + r[None, :], a + c[None, :])

    z = np.zeros(8, np.int32)
    k[(1,)](z, N=8)
    np.testing.assert_array_equal(z, 2 * np.arange(8))


@triton.jit(noinline=True)
def _noinline_helper(x):
    return x * 3


@triton.jit(do_not_specialize=["n"])
def _dns_kernel(Z, n):
    tl.store(Z, _noinline_helper(n))


def test_jit_decorator_options():
    z = np.zeros(1, np.int32)
    _dns_kernel[(1,)](z, 1)
    assert z[0] == 3
    _dns_kernel[(1,)](z, 16)
    assert z[0] == 48


def test_augmented_assignment_forms():
    @triton.jit
    def k(X, Z):
        p = X + 4
        p -= 2
        v = tl.load(p)  # X[2]
        v *= 3
        v -= 1
        v //= 2
        v %= 7
        v <<= 2
        v |= 1
        v ^= 8
        v &= 0xFF
        v >>= 1
        tl.store(Z, v)

    x = np.arange(8, dtype=np.int32) + 10  # X[2] = 12
    z = np.zeros(1, np.int32)
    k[(1,)](x, z)
    v = 12 * 3 - 1
    v = v // 2
    v = v % 7
    v = ((v << 2) | 1) ^ 8
    v = (v & 0xFF) >> 1
    assert z[0] == v


def test_kernel_defaults_and_keyword_launch():
    @triton.jit
    def k(X, n, scale=2, BLOCK: tl.constexpr = 8):
        offs = tl.arange(0, BLOCK)
        m = offs < n
        tl.store(X + offs, tl.load(X + offs, mask=m) * scale, mask=m)

    x = np.arange(16, dtype=np.float32)
    k[(1,)](x, 5)  # scale and BLOCK take their defaults
    np.testing.assert_array_equal(x, np.r_[np.arange(5) * 2, np.arange(5, 16)])
    x = np.arange(16, dtype=np.float32)
    k[(1,)](n=16, X=x, BLOCK=16, scale=3)
    np.testing.assert_array_equal(x, np.arange(16) * 3)


def test_bool_ops_short_circuit_on_constexprs_as_triton_3_6():
    # a deciding constexpr is the result and stops evaluation (`k is None or x.numel < k`
    # with k None must not compare); the rest combine the tensors; no tensor: Python's value
    @triton.jit
    def k(X, Z, K: tl.constexpr):
        x = tl.load(X + tl.arange(0, 4))
        if K is None or x.numel < K:
            r = 1
        else:
            r = 2
        tl.static_assert(((3, 4) or (5, 6)) == (3, 4))
        tl.static_assert(((3, 4) and ()) == ())
        tl.static_assert(((1, 2) and (3, 4) and (5, 6)) == (5, 6))
        tl.static_assert((() and tl.program_id(0)) == ())
        both = (x > 0) and (x < 3) and True
        tl.store(Z + tl.arange(0, 4), tl.where(both, r, 0))

    x = np.array([0, 1, 2, 3], np.int32)
    for K, r in ((None, 1), (8, 1), (2, 2)):
        z = np.full(4, -1, np.int32)
        k[(1,)](x, z, K)
        np.testing.assert_array_equal(z, [0, r, r, 0])


def test_hasattr_getattr_in_kernels():
    @triton.jit
    def k(X, Z):
        if (X is not None) and hasattr(X, "dtype") and isinstance(X.dtype, tl.pointer_type):
            tl.store(Z, 1)
        elif hasattr(X, "dtype"):
            tl.store(Z, 2)
        else:
            tl.store(Z, 3)
        tl.store(Z + 1, getattr(tl.load(Z), "dtype", None) == tl.int32)
        tl.store(Z + 2, getattr(X, "nope", 7))

    for arg, want in ((np.zeros(1, np.int32), 1), (5, 2), (None, 3)):
        z = np.zeros(3, np.int32)
        k[(1,)](arg, z)
        np.testing.assert_array_equal(z, [want, 1, 7])


def test_runtime_ternary_of_statements():
    # `tl.store(...) if c else tl.store(...)` with a run-time c: an `if` without results
    @triton.jit
    def k(X, Y, Z):
        pid = tl.program_id(0)
        tl.store(Z + pid, tl.load(X)) if pid % 2 == 0 else tl.store(Z + pid, tl.load(Y))

    z = np.zeros(4, np.float32)
    k[(4,)](np.float32([1.5]), np.float32([-2.0]), z)
    np.testing.assert_array_equal(z, [1.5, -2.0, 1.5, -2.0])


def test_callee_constexpr_parameter_takes_tensors():
    # Triton ignores a callee's tl.constexpr annotation for tensor and run-time arguments
    # (tutorial 06's _attn_fwd_inner takes offs_m and N_CTX so)
    @triton.jit
    def inner(x, OFFS: tl.constexpr, N: tl.constexpr):
        return x + OFFS + N

    @triton.jit
    def k(X, n):
        offs = tl.arange(0, 4)
        tl.store(X + offs, inner(tl.load(X + offs), offs, n))

    x = np.arange(4, dtype=np.int32)
    k[(1,)](x, 10)
    np.testing.assert_array_equal(x, [10, 12, 14, 16])


def test_kernel_defined_by_exec_and_patched_source():
    # Triton's tests exec patched kernel text and call _unsafe_update_src: the source of a
    # kernel made by exec() is found among the strings exec compiled
    src = (
        "@triton.jit\n"
        "def made(X, N: tl.constexpr):\n"
        "    o = tl.arange(0, N)\n"
        "    tl.store(X + o, o * 2)\n")
    ns = {}
    exec(src, {"triton": triton, "tl": tl}, ns)
    x = np.zeros(8, np.int32)
    ns["made"][(1,)](x, 8)
    np.testing.assert_array_equal(x, np.arange(8) * 2)
    ns["made"]._unsafe_update_src(ns["made"].src.replace("o * 2", "o * 3"))
    ns["made"][(1,)](x, 8)
    np.testing.assert_array_equal(x, np.arange(8) * 3)


def test_pointer_cast_with_pi32_t():
    @triton.jit
    def k(C, A, B, Out, N: tl.constexpr):
        offs = tl.arange(0, N)
        a = tl.load(A + offs).to(tl.pi32_t)
        b = tl.load(B + offs).to(tl.pi32_t)
        tl.store(Out + offs, tl.where(tl.load(C + offs), a, b))

    a = np.arange(4, dtype=np.int64) + 100
    b = -np.arange(4, dtype=np.int64)
    c = np.array([True, False, True, False])
    out = np.zeros(4, np.int64)
    k[(1,)](c, a, b, out, 4)
    np.testing.assert_array_equal(out, np.where(c, a, b))


def test_isinstance_of_dtype_classes():
    @triton.jit
    def k(X, Z):
        x = tl.load(X + tl.arange(0, 2))
        tl.store(Z + 0, isinstance(X.dtype, tl.pointer_type))
        tl.store(Z + 1, isinstance(x.dtype, tl.pointer_type))
        tl.store(Z + 2, isinstance(x.dtype, tl.dtype))
        tl.store(Z + 3, isinstance(x.type, tl.block_type))
        tl.store(Z + 4, isinstance(3, tl.constexpr))
        tl.store(Z + 5, isinstance(x, tl.constexpr))

    z = np.zeros(6, np.int32)
    k[(1,)](np.zeros(2, np.float32), z)
    np.testing.assert_array_equal(z, [1, 0, 1, 1, 1, 0])
