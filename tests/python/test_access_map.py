"""tilec.tools.access_map: which program loaded or stored each element, from the
interpreter, and its PNG picture."""

import numpy as np

import tilec
import tilec.language as tl
from tilec.tools.access_map import access_map, render


@tilec.jit
def scale(X, Y, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + o, tl.load(X + o, mask=o < n) * 2, mask=o < n)


@tilec.jit
def copy2d(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    rn = tl.program_id(1) * BN + tl.arange(0, BN)[None, :]
    mask = (rm < M) & (rn < N)
    tl.store(Y + rm * N + rn, tl.load(X + rm * N + rn, mask=mask), mask=mask)


@tilec.jit
def histogram(X, H, BLOCK: tl.constexpr):
    v = tl.load(X + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK))
    tl.atomic_add(H + v, 1)


def test_blocks_and_masked_lanes(tmp_path):
    x, y = np.arange(48, dtype=np.float32), np.zeros(48, np.float32)
    maps = access_map(scale, (3,), x, y, 40, BLOCK=16, path=tmp_path / "map.png")
    assert set(maps) == {"X", "Y"}
    want = np.where(np.arange(48) < 40, np.arange(48) // 16, -1)
    np.testing.assert_array_equal(maps["X"].loaded_by, want)
    np.testing.assert_array_equal(maps["Y"].stored_by, want)
    assert (maps["X"].stored_by == -1).all() and (maps["Y"].loaded_by == -1).all()
    # program 2's lanes 8..15 are masked off: they point at elements 40..47
    np.testing.assert_array_equal(maps["X"].masked, np.arange(48) >= 40)
    np.testing.assert_array_equal(y[:40], 2 * x[:40])  # the kernel really ran
    png = (tmp_path / "map.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and b"IDAT" in png


def test_a_2d_grid_keeps_the_array_shape():
    x = np.arange(12 * 20, dtype=np.float32).reshape(12, 20)
    maps = access_map(copy2d, (3, 3), x, np.zeros_like(x), 12, 20, BM=4, BN=8)
    rows, cols = np.indices((12, 20))
    np.testing.assert_array_equal(maps["X"].loaded_by, rows // 4 + 3 * (cols // 8))
    img = render(maps, cell=4)
    assert img.shape == (2 * 12 * 4 + 4, 2 * 20 * 4 + 4, 3)


def test_elements_touched_by_several_programs():
    x = (np.arange(32) % 4).astype(np.int32)
    h = np.zeros(4, np.int32)
    maps = access_map(histogram, (2,), x, h, BLOCK=16)
    np.testing.assert_array_equal(maps["H"].store_count, [2, 2, 2, 2])  # atomics: stores
    np.testing.assert_array_equal(h, [8, 8, 8, 8])
