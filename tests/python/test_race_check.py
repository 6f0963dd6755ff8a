"""TILEC_SANITIZE=race: the CPU executor reports programs of one launch that store the same
byte, or one that stores a byte another loads, with no atomic between them."""

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import KernelError


@tilec.jit
def overlapping_copy(X, Y, N, BLOCK: tl.constexpr):
    # program p writes elements p*(BLOCK-1) ..: neighbours share one (and write it differently)
    pid = tl.program_id(0)
    o = pid * (BLOCK - 1) + tl.arange(0, BLOCK)
    tl.store(Y + o, tl.load(X + o, mask=o < N) + pid, mask=o < N)


@tilec.jit
def disjoint_copy(X, Y, N, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + o, tl.load(X + o, mask=o < N) * 2, mask=o < N)


@tilec.jit
def shift_in_place(X, BLOCK: tl.constexpr):
    # reads the next program's block and writes its own: a write-after-read race
    pid = tl.program_id(0)
    o = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(X + o + BLOCK)
    tl.store(X + o, v)


@tilec.jit
def read_previous(Y, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    o = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + o, pid + 1)
    prev = tl.load(Y + o - BLOCK, mask=pid > 0, other=0)  # the previous program's block
    tl.store(Y + o, prev + pid)


@tilec.jit
def own_block_in_place(X, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(X + o, tl.load(X + o) + 1)


@tilec.jit
def histogram(X, H, BLOCK: tl.constexpr):
    v = tl.load(X + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    tl.atomic_add(H + v, 1)


@tilec.jit
def grid_2d(Y):
    # every program of the 2-D grid stores to Y[0]
    tl.store(Y, tl.program_id(0) * 10 + tl.program_id(1) + 1)


@pytest.fixture
def race(monkeypatch):
    monkeypatch.setenv("TILEC_SANITIZE", "race")


def test_two_programs_storing_one_byte(race):
    x, y = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    with pytest.raises(KernelError) as e:
        overlapping_copy[(4,)](x, y, 64, BLOCK=16)
    msg = str(e.value)
    assert "data race" in msg
    assert "program (0, 0, 0) stored the same byte at" in msg and "in program (1, 0, 0)" in msg
    assert "this store writes argument 'Y' at byte offset 60" in msg  # element 15
    assert msg.count("test_race_check.py:17") == 2  # both accesses: the tl.store line


def test_load_of_a_byte_another_program_stored(race):
    x = np.arange(80, dtype=np.int32)
    # program 0 loads block 1, which program 1 then stores
    with pytest.raises(KernelError, match=r"program \(0, 0, 0\) loaded the same byte .*"
                                          r"this store writes argument 'X' at byte offset 64.*"
                                          r"in program \(1, 0, 0\)"):
        shift_in_place[(4,)](x, BLOCK=16)
    # program 0 stores block 0, which program 1 then loads
    y = np.zeros(48, np.int32)
    with pytest.raises(KernelError, match=r"program \(0, 0, 0\) stored the same byte .*"
                                          r"this load reads argument 'Y' at byte offset 0.*"
                                          r"in program \(1, 0, 0\)"):
        read_previous[(3,)](y, BLOCK=16)


def test_race_in_a_2d_grid_names_both_programs(race):
    y = np.zeros(1, np.int32)
    with pytest.raises(KernelError, match=r"program \(0, 0, 0\) stored.*in program \(1, 0, 0\)"):
        grid_2d[(2, 3)](y)


@tilec.jit
def same_value_everywhere(Y, BLOCK: tl.constexpr):
    # every program stores the same values: the result does not depend on their order
    tl.store(Y + tl.arange(0, BLOCK), tl.arange(0, BLOCK) * 2)


@tilec.jit
def locked_increment(L, C):
    # a spin lock: the plain read-modify-write of C is ordered by the acquire (cas) and
    # release (xchg) atomics around it
    while tl.atomic_cas(L, 0, 1) == 1:
        pass
    tl.store(C, tl.load(C) + 1)
    tl.atomic_xchg(L, 0)


@tilec.jit
def relaxed_lock(L, C):
    # relaxed atomics order nothing: the counter update is a race
    while tl.atomic_cas(L, 0, 1, sem="relaxed") == 1:
        pass
    tl.store(C, tl.load(C) + 1)
    tl.atomic_xchg(L, 0, sem="relaxed")


def test_same_values_and_locks_are_not_races(race):
    y = np.zeros(16, np.int32)
    same_value_everywhere[(4,)](y, BLOCK=16)
    np.testing.assert_array_equal(y, np.arange(16) * 2)
    lock, c = np.zeros(1, np.int32), np.zeros(1, np.int32)
    locked_increment[(8,)](lock, c)
    assert c[0] == 8
    with pytest.raises(KernelError, match=r"data race.*this load reads argument 'C'"):
        relaxed_lock[(8,)](lock, c)


def test_kernels_without_races_run(race):
    x, y = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    disjoint_copy[(4,)](x, y, 64, BLOCK=16)
    np.testing.assert_array_equal(y, 2 * x)
    z = np.arange(64, dtype=np.int32)
    own_block_in_place[(4,)](z, BLOCK=16)  # each program reads and writes only its own block
    np.testing.assert_array_equal(z, np.arange(64) + 1)
    h = np.zeros(8, np.int32)
    histogram[(4,)](np.arange(64, dtype=np.int32) % 8, h, BLOCK=16)  # atomics are exempt
    np.testing.assert_array_equal(h, np.full(8, 8))


def test_off_by_default_and_unknown_checks(monkeypatch):
    x, y = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    monkeypatch.delenv("TILEC_SANITIZE", raising=False)
    overlapping_copy[(4,)](x, y, 64, BLOCK=16)  # racy, but not checked
    np.testing.assert_array_equal(y[:15], x[:15])
    monkeypatch.setenv("TILEC_SANITIZE", "address, race")  # address: always on
    with pytest.raises(KernelError, match="data race"):
        overlapping_copy[(4,)](x, y, 64, BLOCK=16)
    monkeypatch.setenv("TILEC_SANITIZE", "rase")
    with pytest.raises(KernelError, match="TILEC_SANITIZE names an unknown check 'rase'"):
        disjoint_copy[(4,)](x, y, 64, BLOCK=16)


@tilec.jit
def word_then_byte(X, B, k):
    # program 0 stores X[0] (bytes 0-3) as a whole fp32; program 1 loads byte k through B
    pid = tl.program_id(0)
    if pid == 0:
        tl.store(X, 1.0)
    else:
        tl.store(X + 2, tl.load(B + k).to(tl.float32))


def test_races_are_exact_per_byte(race):
    # the shadow keeps a record per fp32 element until a 1-byte access splits it
    x = np.zeros(4, np.float32)
    word_then_byte[(2,)](x, x.view(np.int8), 4)  # byte 4 is X[1]: no conflict
    x[:] = 0  # (a store of the value already there is no access)
    with pytest.raises(KernelError, match=r"program \(0, 0, 0\) stored the same byte.*"
                                          r"this load reads argument '.' at byte offset 3"):
        word_then_byte[(2,)](x, x.view(np.int8), 3)


def test_no_false_report_on_the_language_suites():
    # every language suite and the seed kernels, race-checked: none of them races
    import os
    import subprocess
    import sys
    from pathlib import Path
    here = Path(__file__).resolve().parent
    suites = sorted(str(p) for p in here.glob("test_lang_*.py")) + [str(here / "test_seed_kernels.py")]
    env = dict(os.environ, TILEC_SANITIZE="race")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                        *suites], capture_output=True, text=True, env=env, cwd=here, timeout=1200)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
