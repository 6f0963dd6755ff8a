"""tl.map_elementwise(scalar_fn, *args, pack=1): a @jit function on scalars, its `if`s and
early returns included, over every element of the broadcast inputs (Sema rewrites its code
on tiles: BuiltinsMapElementwise.cpp). On the CPU interpreter, the SIMT simulator (the GPU
lowering) and, when there is one, the GPU."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.errors import CompilationError
from gpu_util import sm90_torch


@triton.jit
def compare(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@triton.jit
def k_compare(X, Y, Z, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.load(Y + tl.arange(0, BLOCK))
    tl.store(Z + tl.arange(0, BLOCK), tl.map_elementwise(compare, x, y))


@triton.jit
def divmod_(a, b):
    return a // b, a % b


@triton.jit
def divmod2(a0, a1, b0, b1):  # pack=2: two elements of each input, two of each result
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@triton.jit
def k_divmod(A, B, C, D, BLOCK: tl.constexpr, PACK: tl.constexpr):
    a = tl.load(A + tl.arange(0, BLOCK))
    b = tl.load(B + tl.arange(0, BLOCK))
    if PACK == 1:
        c, d = tl.map_elementwise(divmod_, a, b)
    else:
        c, d = tl.map_elementwise(divmod2, a, b, pack=2)
    tl.store(C + tl.arange(0, BLOCK), c)
    tl.store(D + tl.arange(0, BLOCK), d)


@triton.jit
def safe_div(a, b):  # the division runs only where b != 0
    if b != 0:
        return a // b
    return -1


@triton.jit
def pair(a0, a1, a2, a3):  # pack=4: which neighbours a call gets
    return a0 * 1000 + a1, a1 * 1000 + a2, a2 * 1000 + a3, a3 * 1000 + a0


@triton.jit
def k_unary(X, Y, BLOCK: tl.constexpr, FN: tl.constexpr, PACK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.store(Y + tl.arange(0, BLOCK), tl.map_elementwise(FN, x, pack=PACK))


@triton.jit
def k_binary(X, Y, Z, BLOCK: tl.constexpr, FN: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.load(Y + tl.arange(0, BLOCK))
    tl.store(Z + tl.arange(0, BLOCK), tl.map_elementwise(FN, x, y))


@triton.jit
def selu_scalar(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@triton.jit
def k_selu(X, Y, alpha, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.store(Y + tl.arange(0, BLOCK), tl.map_elementwise(selu_scalar, x, alpha))


@triton.jit
def power(x, n):  # a loop to a scalar input: the same trip count everywhere
    r = x * 0 + 1
    for _ in range(n):
        r = r * x
    return r


@triton.jit
def k_power(X, Y, n, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.store(Y + tl.arange(0, BLOCK), tl.map_elementwise(power, x, n))


@triton.jit
def clamp_sum(x, y):  # nested ifs, a jit call, a value set in one branch
    s = x + y
    if s > 10:
        s = 10
        if x > y:
            s = s + 1
    return compare(s, 5) * s


@triton.jit
def k_outer(X, Y, Z, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(X + tl.arange(0, M))
    y = tl.load(Y + tl.arange(0, N))
    z = tl.map_elementwise(clamp_sum, x[:, None], y[None, :])
    tl.store(Z + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], z)


def _ref_clamp_sum(x, y):
    s = x + y
    s = np.where(s > 10, 10 + (x > y), s)
    return np.sign(s - 5) * s


@pytest.fixture(params=["interpreter", "simt"])
def backend(request, monkeypatch):
    if request.param == "simt":
        monkeypatch.setenv("TILEC_SIMT", "1")
        monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    return request.param


def test_if_elif_else_returns(backend):
    rs = np.random.RandomState(17)
    x = rs.randint(-3, 4, 128).astype(np.int32)
    y = rs.randint(-3, 4, 128).astype(np.int32)
    z = np.zeros(128, np.int32)
    k_compare[(1,)](x, y, z, BLOCK=128)
    np.testing.assert_array_equal(z, np.sign(x - y))


@pytest.mark.parametrize("pack", [1, 2])
def test_several_results_and_pack(backend, pack):
    rs = np.random.RandomState(17)
    a = rs.randint(0, 1 << 31, 256).astype(np.uint32)
    b = rs.randint(1, 1 << 20, 256).astype(np.uint32)
    c, d = np.zeros_like(a), np.zeros_like(a)
    k_divmod[(1,)](a, b, c, d, BLOCK=256, PACK=pack)
    np.testing.assert_array_equal(c, a // b)
    np.testing.assert_array_equal(d, a % b)


def test_a_branch_not_taken_does_not_divide(backend):
    x = np.arange(64, dtype=np.int32) - 20
    y = np.array([0, 3, -2, 0] * 16, np.int32)
    z = np.zeros(64, np.int32)
    k_binary[(1,)](x, y, z, BLOCK=64, FN=safe_div)
    safe = np.where(y == 0, 1, y)
    np.testing.assert_array_equal(z, np.where(y == 0, -1, np.trunc(x / safe).astype(np.int32)))


@triton.jit
def uniform_div(x, n, m):  # n // m is the same everywhere; m is 0 and the branch not taken
    if x > 100:
        return n // m
    return x


@triton.jit
def k_uniform_div(X, Y, n, m, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.store(Y + tl.arange(0, BLOCK), tl.map_elementwise(uniform_div, x, n, m))


def test_a_branch_not_taken_does_not_divide_by_a_scalar(backend):
    x = np.arange(64, dtype=np.int32)
    y = np.zeros_like(x)
    k_uniform_div[(1,)](x, y, 7, 0, BLOCK=64)
    np.testing.assert_array_equal(y, x)


def test_pack_takes_neighbours_along_the_last_dim(backend):
    x = np.arange(32, dtype=np.int32)
    y = np.zeros(32, np.int32)
    k_unary[(1,)](x, y, BLOCK=32, FN=pair, PACK=4)
    g = x.reshape(8, 4)
    want = np.stack([g[:, 0] * 1000 + g[:, 1], g[:, 1] * 1000 + g[:, 2],
                     g[:, 2] * 1000 + g[:, 3], g[:, 3] * 1000 + g[:, 0]], axis=1)
    np.testing.assert_array_equal(y, want.reshape(-1))


def test_math_and_a_scalar_input(backend):
    x = np.linspace(-3, 3, 128).astype(np.float32)
    y = np.zeros_like(x)
    k_selu[(1,)](x, y, 1.5, BLOCK=128)
    np.testing.assert_allclose(y, np.where(x > 0, x, 1.5 * (np.exp(x) - 1)), rtol=1e-6,
                               atol=1e-6)


def test_a_loop_to_a_scalar_input(backend):
    x = (np.arange(64) % 5 - 2).astype(np.int32)
    y = np.zeros_like(x)
    k_power[(1,)](x, y, 3, BLOCK=64)
    np.testing.assert_array_equal(y, x ** 3)


def test_broadcast_inputs_nested_ifs_and_calls(backend):
    x = np.arange(16, dtype=np.int32) - 4
    y = np.arange(8, dtype=np.int32) * 2 - 3
    z = np.zeros((16, 8), np.int32)
    k_outer[(1,)](x, y, z, M=16, N=8)
    np.testing.assert_array_equal(z, _ref_clamp_sum(x[:, None], y[None, :]))


@triton.jit
def count_to(x):  # a trip count of the element's own: x iterations (none for x <= 0)
    r = 0
    for i in range(x):
        r += i + 1
    return r


@triton.jit
def count_down_by(x, s):  # per-element bounds and step, counting down
    r = 0
    for i in range(x, 0, -s):
        r = r * 2 + i
    return r


@triton.jit
def log2_floor(x):  # a while loop with a per-element condition
    n = 0
    while x > 1:
        x = x // 2
        n += 1
    return n


@triton.jit
def collatz_steps(x):  # a loop inside a branch; the branch not taken runs no steps
    n = -1
    if x > 0:
        n = 0
        while x != 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            n += 1
    return n


def test_per_element_trip_counts(backend):
    x = (np.arange(64) % 9 - 2).astype(np.int32)
    y = np.zeros_like(x)
    k_unary[(1,)](x, y, BLOCK=64, FN=count_to, PACK=1)
    np.testing.assert_array_equal(y, np.where(x > 0, x * (x + 1) // 2, 0))
    s = (np.arange(64) % 3 + 1).astype(np.int32)
    k_binary[(1,)](x, s, y, BLOCK=64, FN=count_down_by)

    def ref(a, b):
        r = 0
        for i in range(a, 0, -b):
            r = r * 2 + i
        return r
    np.testing.assert_array_equal(y, [ref(a, b) for a, b in zip(x, s)])


def test_while_loops(backend):
    x = np.array([1, 2, 3, 4, 7, 8, 1000, 1 << 30] * 4, np.int32)
    y = np.zeros_like(x)
    k_unary[(1,)](x, y, BLOCK=32, FN=log2_floor, PACK=1)
    np.testing.assert_array_equal(y, np.floor(np.log2(x)).astype(np.int32))
    x = (np.arange(32) - 3).astype(np.int32)
    k_unary[(1,)](x, y, BLOCK=32, FN=collatz_steps, PACK=1)

    def steps(v):
        if v <= 0:
            return -1
        n = 0
        while v != 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            n += 1
        return n
    np.testing.assert_array_equal(y, [steps(int(v)) for v in x])


# -- what the mapped function may not do ----------------------------------------------------

@triton.jit
def stores(x, out):
    tl.store(out, x)
    return x


@triton.jit
def k_stores(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.store(Y + tl.arange(0, BLOCK), tl.map_elementwise(stores, x, Y))


def test_side_effects_are_a_clear_error():
    x = np.zeros(16, np.float32)
    with pytest.raises(CompilationError, match=r"tl.map_elementwise: `store` in the mapped "
                                               r"function: the function may only compute"):
        k_stores[(1,)](x, np.zeros_like(x), BLOCK=16)


def test_pack_must_divide_the_last_dim():
    x = np.arange(16, dtype=np.int32)
    with pytest.raises(CompilationError, match="pack=4 must divide the inputs' last dimension"):
        k_unary[(1,)](x, np.zeros_like(x), BLOCK=2, FN=pair, PACK=4)
    with pytest.raises(CompilationError, match="pack must be a power of 2, got 3"):
        k_unary[(1,)](x, np.zeros_like(x), BLOCK=16, FN=pair, PACK=3)


@pytest.mark.gpu
def test_on_the_gpu():
    torch = sm90_torch()
    x = torch.randint(-3, 4, (1024,), dtype=torch.int32, device="cuda")
    y = torch.randint(-3, 4, (1024,), dtype=torch.int32, device="cuda")
    z = torch.empty_like(x)
    k_compare[(1,)](x, y, z, BLOCK=1024)
    assert torch.equal(z, torch.sign(x - y))
    a = torch.randint(0, 1 << 30, (512,), dtype=torch.int32, device="cuda")
    b = torch.randint(1, 1 << 16, (512,), dtype=torch.int32, device="cuda")
    c, d = torch.empty_like(a), torch.empty_like(a)
    k_divmod[(1,)](a, b, c, d, BLOCK=512, PACK=2)
    assert torch.equal(c, a // b) and torch.equal(d, a % b)
    v = torch.linspace(-3, 3, 256, device="cuda")
    w = torch.empty_like(v)
    k_selu[(1,)](v, w, 1.5, BLOCK=256)
    torch.testing.assert_close(w, torch.where(v > 0, v, 1.5 * (torch.exp(v) - 1)))
