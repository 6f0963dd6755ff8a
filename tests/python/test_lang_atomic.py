"""Atomics from many programs: atomic_add on ints and floats (and the old values they
return), max / min / and / or / xor / xchg, atomic_cas (first writer wins, a spin lock),
masked atomics."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl

G = 64  # programs


@pytest.mark.parametrize("dt,inc", [(np.int32, 1), (np.int64, 3), (np.uint32, 2),
                                    (np.float32, 0.5), (np.float64, 0.25)])
def test_atomic_add_counter(dt, inc):
    @triton.jit
    def k(C, inc):
        tl.atomic_add(C, inc)

    c = np.zeros(1, dt)
    k[(G,)](c, inc)
    assert c[0] == G * inc


def test_atomic_add_returns_distinct_old_values():
    @triton.jit
    def k(C, Old):
        pid = tl.program_id(0)
        old = tl.atomic_add(C, 1)
        tl.store(Old + pid, old)

    c, old = np.zeros(1, np.int32), np.full(G, -1, np.int32)
    k[(G,)](c, old)
    assert c[0] == G
    np.testing.assert_array_equal(np.sort(old), np.arange(G))


def test_atomic_add_tile_with_repeated_addresses():
    @triton.jit
    def k(C, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.atomic_add(C + offs % 4, offs.to(tl.float32))

    c = np.zeros(4, np.float32)
    k[(8,)](c, N=16)
    # address j gets offsets j, j+4, j+8, j+12 from each of 8 programs
    np.testing.assert_array_equal(c, 8 * np.array([24, 28, 32, 36], np.float32))


def test_atomic_add_tile_old_values_single_program():
    @triton.jit
    def k(C, Old, N: tl.constexpr):
        offs = tl.arange(0, N)
        old = tl.atomic_add(C + offs, offs + 1)
        tl.store(Old + offs, old)

    c = np.arange(8, dtype=np.int32) * 10
    old = np.zeros(8, np.int32)
    k[(1,)](c, old, N=8)
    np.testing.assert_array_equal(old, np.arange(8) * 10)
    np.testing.assert_array_equal(c, np.arange(8) * 10 + np.arange(8) + 1)


def test_atomic_max_min_int():
    @triton.jit
    def k(P):
        pid = tl.program_id(0)
        v = (pid * 37) % 64 - 20
        tl.atomic_max(P, v)
        tl.atomic_min(P + 1, v)

    p = np.array([-1000, 1000], np.int32)
    k[(G,)](p)
    vals = (np.arange(G) * 37) % 64 - 20
    np.testing.assert_array_equal(p, [vals.max(), vals.min()])


def test_atomic_max_min_unsigned():
    @triton.jit
    def k(P):
        pid = tl.program_id(0)
        v = (pid * 5000).to(tl.uint32) + 3000000000
        tl.atomic_max(P, v)
        tl.atomic_min(P + 1, v)

    p = np.array([0, 0xFFFFFFFF], np.uint32)
    k[(G,)](p)
    np.testing.assert_array_equal(p, [3000000000 + 5000 * (G - 1), 3000000000])


def test_atomic_max_min_float_negative_values():
    @triton.jit
    def k(P):
        pid = tl.program_id(0)
        v = -(pid + 1).to(tl.float32) * 0.5
        tl.atomic_max(P, v)
        tl.atomic_min(P + 1, v)
        tl.atomic_max(P + 2, -v)

    p = np.array([-1000.0, 1000.0, -1.0], np.float32)
    k[(G,)](p)
    np.testing.assert_array_equal(p, [-0.5, -G * 0.5, G * 0.5])


def test_atomic_bitwise():
    @triton.jit
    def k(P):
        pid = tl.program_id(0)
        bit = (1 << (pid % 32)).to(tl.int32)
        tl.atomic_or(P, bit)
        tl.atomic_and(P + 1, ~bit)
        tl.atomic_xor(P + 2, pid * 7 + 1)

    p = np.array([0, -1, 5], np.int32)
    k[(32,)](p)
    np.testing.assert_array_equal(p, [-1, 0, 5 ^ np.bitwise_xor.reduce(np.arange(32) * 7 + 1)])


def test_atomic_xchg():
    @triton.jit
    def k(P, Old):
        pid = tl.program_id(0)
        old = tl.atomic_xchg(P, pid + 1)
        tl.store(Old + pid, old)

    p, old = np.zeros(1, np.int32), np.full(G, -1, np.int32)
    k[(G,)](p, old)
    # the exchanges form a chain: every value but the last one is returned once
    np.testing.assert_array_equal(np.sort(np.append(old, p[0])), np.arange(G + 1))


def test_atomic_cas_first_writer_wins():
    @triton.jit
    def k(F, Old):
        pid = tl.program_id(0)
        old = tl.atomic_cas(F, 0, pid + 1)
        tl.store(Old + pid, old)

    f, old = np.zeros(1, np.int32), np.full(G, -1, np.int32)
    k[(G,)](f, old)
    winners = np.nonzero(old == 0)[0]
    assert len(winners) == 1
    assert f[0] == winners[0] + 1
    assert (old[old != 0] == f[0]).all()


def test_atomic_cas_spin_lock():
    @triton.jit
    def k(L, C, Tries, LIMIT: tl.constexpr):
        pid = tl.program_id(0)
        tries = 0
        while (tl.atomic_cas(L, 0, 1) == 1) & (tries < LIMIT):
            tries += 1
        v = tl.load(C)  # critical section: a plain read-modify-write
        tl.store(C, v + 1)
        tl.atomic_xchg(L, 0)
        tl.store(Tries + pid, tries)

    lock, c, tries = np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(G, np.int32)
    k[(G,)](lock, c, tries, LIMIT=1 << 20)
    assert (tries < (1 << 20)).all()
    assert c[0] == G
    assert lock[0] == 0


def test_masked_atomics():
    @triton.jit
    def k(C, M, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.atomic_add(C + offs, 1, mask=offs < 5)
        tl.atomic_max(M + offs, offs * 10, mask=offs % 2 == 0)

    c = np.zeros(8, np.int32)
    m = np.full(8, 3, np.int32)
    k[(4,)](c, m, N=8)
    np.testing.assert_array_equal(c, [4, 4, 4, 4, 4, 0, 0, 0])
    np.testing.assert_array_equal(m, [3, 3, 20, 3, 40, 3, 60, 3])


def test_atomic_sem_scope_keywords():
    @triton.jit
    def k(C):
        tl.atomic_add(C, 1, sem="relaxed")
        tl.atomic_add(C, 1, sem="acq_rel", scope="gpu")
        tl.atomic_max(C + 1, 5, sem="release", scope="cta")
        tl.atomic_cas(C + 2, 0, 9, sem="acquire")

    c = np.zeros(3, np.int32)
    k[(4,)](c)
    np.testing.assert_array_equal(c, [8, 5, 9])


@pytest.mark.parametrize("n_cols", [512, 500])
def test_atomic_add_rows_vectorised(n_cols):
    # An embedding backward: rows of fp32 added into a table at (repeated) indices. On
    # sm_90 each thread's 4 consecutive aligned elements go as one atom.v4.f32 (lowering;
    # the SIMT run of this suite executes it); a mask that may split a group of 4 (n_cols
    # 500, not known to be a multiple of 4) keeps one atom per element. The old values come
    # back per element.
    @triton.jit
    def k(Table, Idx, Src, Old, n_cols, ROW: tl.constexpr):
        pid = tl.program_id(0)
        cols = tl.arange(0, ROW)
        m = cols < n_cols
        row = tl.load(Idx + pid)
        v = tl.load(Src + pid * ROW + cols, mask=m)
        old = tl.atomic_add(Table + row * ROW + cols, v, mask=m, sem="relaxed")
        tl.store(Old + pid * ROW + cols, old, mask=m)

    rng = np.random.default_rng(0)
    rows, row = 48, 512
    idx = rng.integers(0, 5, rows).astype(np.int32)
    src = rng.integers(-8, 8, (rows, row)).astype(np.float32)  # exact sums in any order
    table = np.zeros((5, row), np.float32)
    old = np.full((rows, row), -1.0, np.float32)
    k[(rows,)](table, idx, src, old, n_cols, ROW=row)
    want = np.zeros((5, row), np.float32)
    np.add.at(want, idx, np.where(np.arange(row) < n_cols, src, 0))
    np.testing.assert_array_equal(table, want)
    assert (old[:, n_cols:] == -1).all()
    for r in range(5):  # the programs of one row saw distinct prefixes of its sums
        olds = old[idx == r, :n_cols]
        assert len({tuple(o) for o in olds}) == len(olds)
