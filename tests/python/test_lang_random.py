"""tl.randint / rand / randn, their 4x forms and philox: Triton's values bit for bit. The
GOLDEN constants were produced by Triton 3.6's interpreter (TRITON_INTERPRET=1) from the
same kernels; an independent numpy Philox4x32-10 below checks larger and 2-D blocks. Also:
the ranges and moments of the distributions and Triton's seeded-dropout tutorial kernel.
On the GPU (gpu_lang_plugin) normals come from approximate log/sqrt/sin/cos, so they are
compared with a tolerance; the integers and uniforms are exact everywhere."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from lang_util import ON_GPU

# seed -> (randint(seed, arange(8)), rand(...), randn(...),
#          randint4x(seed, arange(8) + 1000, n_rounds=7) interleaved, first 8 words)
GOLDEN = {
    0: ([1713891541, 4175744164, 83534633, 3381718825, 4013802324, 1934136315, 3064941560,
         2830310705],
        [0.7980929017066956, 0.055517591536045074, 0.03889884054660797, 0.4252644181251526,
         0.13092762231826782, 0.9006523489952087, 0.5727753043174744, 0.6820338368415833],
        [0.046551529318094254, -0.3883614242076874, -1.6379519701004028, 0.6315314769744873,
         -1.5319279432296753, 0.42992979288101196, -0.7929391860961914, 0.7527517676353455],
        [981306017, 2244748368, 3173973357, 3513541229, 2036072759, 1110710443, 3969009953,
         3271647328]),
    12345: ([3522838145, 11954473, 1814877333, 3057540118, 2504881536, 2001297804, 87656613,
             2667469288],
            [0.3595506250858307, 0.005566734820604324, 0.8451180458068848, 0.5762218832969666,
             0.833573579788208, 0.9319268465042114, 0.040818288922309875, 0.7578627467155457],
            [-0.9862430095672607, -0.7736670970916748, -0.32186657190322876, 0.38707107305526733,
             0.07001818716526031, -0.34459495544433594, -1.170610785484314, -0.7335042357444763],
            [3811312707, 659787504, 957929527, 1369722168, 3080105789, 55437769, 666682726,
             2527919105]),
    -7: ([459167936, 2012679833, 2094867916, 3615158609, 2534394913, 2132393555, 1143769991,
          719251796],
         [0.21381671726703644, 0.9372270107269287, 0.9754988551139832, 0.3165605664253235,
          0.8198303580284119, 0.9929730892181396, 0.5326093435287476, 0.33492767810821533],
         [0.35215410590171814, -0.2535119652748108, 0.03910007327795029, 1.0161556005477905,
          0.6263419389724731, -0.0966607928276062, 0.16635240614414215, 1.3429014682769775],
         [3042468962, 2012786066, 1158138333, 2115414184, 2272625392, 2853397720, 231234528,
          3967334017]),
    2**40 + 5: ([1583081134, 1176386292, 51295228, 2917253889, 1185532207, 1394771272,
                 1825351201, 1026233619],
                [0.7371795177459717, 0.5477975010871887, 0.023886200040578842,
                 0.6415477395057678, 0.5520563721656799, 0.6494909524917603, 0.8499953150749207,
                 0.4778772294521332],
                [-0.11004947870969772, -0.8110886812210083, 2.3934485912323, 0.45535582304000854,
                 -1.0436009168624878, -0.06436887383460999, -0.44824299216270447,
                 -0.9502231478691101],
                [2960442376, 2408737012, 2504213884, 2844465786, 3321356516, 985126313,
                 811391277, 1932406350]),
}
# normals: Triton's own differ from exact math by a few ulp; the GPU's approximate math more
NORMAL_TOL = dict(rtol=2e-4, atol=2e-4) if ON_GPU else dict(rtol=1e-5, atol=1e-6)


@triton.jit
def k_streams(out_i, out_f, out_n, out4, seed, BLOCK: tl.constexpr):
    off = tl.arange(0, BLOCK)
    tl.store(out_i + off, tl.randint(seed, off).to(tl.int32, bitcast=True))
    tl.store(out_f + off, tl.rand(seed, off))
    tl.store(out_n + off, tl.randn(seed, off))
    a, b, c, d = tl.randint4x(seed, off + 1000, 7)
    tl.store(out4 + off * 4, a.to(tl.int32, bitcast=True))
    tl.store(out4 + off * 4 + 1, b.to(tl.int32, bitcast=True))
    tl.store(out4 + off * 4 + 2, c.to(tl.int32, bitcast=True))
    tl.store(out4 + off * 4 + 3, d.to(tl.int32, bitcast=True))


def u32(a):
    return (np.asarray(a).astype(np.int64) & 0xFFFFFFFF).tolist()


@pytest.mark.parametrize("seed", list(GOLDEN))
def test_matches_triton(seed):
    gi, gf, gn, g4 = GOLDEN[seed]
    oi, of, on = np.zeros(8, np.int32), np.zeros(8, np.float32), np.zeros(8, np.float32)
    o4 = np.zeros(32, np.int32)
    k_streams[(1,)](oi, of, on, o4, seed, BLOCK=8)
    assert u32(oi) == gi
    np.testing.assert_array_equal(of, np.array(gf, np.float32))
    np.testing.assert_allclose(on, np.array(gn, np.float32), **NORMAL_TOL)
    assert u32(o4[:8]) == g4


@triton.jit
def k_wide(out, seed, base, BLOCK: tl.constexpr):
    off = tl.arange(0, BLOCK).to(tl.int64) + base
    a, b, c, d = tl.randint4x(seed, off)
    tl.store(out + tl.arange(0, BLOCK), (a ^ b ^ c ^ d).to(tl.int32, bitcast=True))


@triton.jit
def k_philox64(out, seed, BLOCK: tl.constexpr):
    c0 = tl.arange(0, BLOCK).to(tl.uint64)
    a, b, c, d = tl.philox(seed, c0, c0 * 3, c0 + 7, c0 * 0)
    tl.store(out + tl.arange(0, BLOCK), a.to(tl.int64, bitcast=True))
    tl.store(out + BLOCK + tl.arange(0, BLOCK), d.to(tl.int64, bitcast=True))


@triton.jit
def k_floats4x(out, seed, BLOCK: tl.constexpr):
    off = tl.arange(0, BLOCK)
    a, b, c, d = tl.rand4x(seed, off, 5)
    tl.store(out + off, a + b * 2 + c * 4 + d * 8)
    e, f, g, h = tl.randn4x(seed, off)
    tl.store(out + BLOCK + off, e + f * 2 + g * 4 + h * 8)


def test_int64_offsets_use_their_high_word():
    out = np.zeros(8, np.int32)
    k_wide[(1,)](out, 99, 2**33 - 3, BLOCK=8)
    assert out.tolist() == [340477888, -637013369, 1455049914, -463741122, -1188899843,
                            -849575496, 1528877696, -1780209463]


def test_philox_on_64_bit_counters():
    out = np.zeros(16, np.int64)
    k_philox64[(1,)](out, 2**50 + 3, BLOCK=8)
    assert out.tolist() == [
        -4586922477783668791, 5679562600188043854, -8520170895173239660, -3373317087848941176,
        3704708324983149309, 7303632870439718535, 7353697065369155320, -2205264486500510574,
        382774992646771445, -6088187518458613773, 9022075520120143747, 2130494807681225647,
        3302724780179579511, -3408735105707687132, 3940546108071621232, -5391541409849901487]


def test_rand4x_and_randn4x():
    out = np.zeros(16, np.float32)
    k_floats4x[(1,)](out, 4242, BLOCK=8)
    np.testing.assert_allclose(out[:8], [
        10.762823104858398, 5.156072616577148, 5.994467735290527, 4.808976173400879,
        6.5770769119262695, 6.904877662658691, 10.172245025634766, 7.453113555908203],
        rtol=1e-6)
    np.testing.assert_allclose(out[8:], [
        -8.284283638000488, -8.069581031799316, -2.1043241024017334, 14.641921997070312,
        -7.547204971313477, -6.5933918952941895, 1.3251633644104004, 4.916840553283691],
        **{k: v * 10 for k, v in NORMAL_TOL.items()})


# --- an independent reference: Philox4x32-10 on numpy words -----------------------------

def philox_ref(seed, counters, rounds=10):
    m = np.uint64(0xFFFFFFFF)
    c = [np.asarray(x).astype(np.uint64) & m for x in np.broadcast_arrays(*counters)]
    s = seed & 0xFFFFFFFFFFFFFFFF
    k = [np.uint64(s & 0xFFFFFFFF), np.uint64(s >> 32)]
    mul = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
    for _ in range(rounds):
        p0, p2 = mul[0] * c[0], mul[1] * c[2]  # exact: both factors < 2^32
        c = [(p2 >> np.uint64(32)) ^ c[1] ^ k[0], p2 & m, (p0 >> np.uint64(32)) ^ c[3] ^ k[1],
             p0 & m]
        k = [(k[0] + np.uint64(0x9E3779B9)) & m, (k[1] + np.uint64(0xBB67AE85)) & m]
    return [x.astype(np.uint32) for x in c]


def uniform_ref(words):
    x = words.view(np.int32).astype(np.int64)
    return (np.where(x < 0, -x - 1, x).astype(np.float32) *
            np.float32(4.6566127342e-10)).astype(np.float32)


@triton.jit
def k_grid(out, seed, n_rounds: tl.constexpr, R: tl.constexpr, C: tl.constexpr):
    r = tl.program_id(0) * R + tl.arange(0, R)[:, None]
    off = r * C + tl.arange(0, C)[None, :]
    a, b, c, d = tl.randint4x(seed, off, n_rounds)
    base = out + off * 4
    tl.store(base, a.to(tl.int32, bitcast=True))
    tl.store(base + 1, b.to(tl.int32, bitcast=True))
    tl.store(base + 2, c.to(tl.int32, bitcast=True))
    tl.store(base + 3, d.to(tl.int32, bitcast=True))


@pytest.mark.parametrize("seed,n_rounds", [(1, 10), (2**31 - 1, 10), (-123456789, 3),
                                           (2**62 + 11, 0)])
def test_2d_blocks_match_a_numpy_philox(seed, n_rounds):
    R, C, programs = 8, 32, 3
    out = np.zeros(programs * R * C * 4, np.int32)
    k_grid[(programs,)](out, seed, n_rounds, R=R, C=C)
    want = philox_ref(seed, (np.arange(programs * R * C), 0, 0, 0), n_rounds)
    np.testing.assert_array_equal(out.view(np.uint32).reshape(-1, 4), np.stack(want, 1))


@triton.jit
def k_sample(out_u, out_n, seed, BLOCK: tl.constexpr):
    off = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_u + off, tl.rand(seed, off))
    tl.store(out_n + off, tl.randn(seed, off))


def test_distributions():
    n, block = 1 << 14, 1024
    u, z = np.zeros(n, np.float32), np.zeros(n, np.float32)
    k_sample[(n // block,)](u, z, 2024, BLOCK=block)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1.0) < 0.03
    assert len(np.unique(u)) > n - 10
    np.testing.assert_array_equal(u, uniform_ref(philox_ref(2024, (np.arange(n), 0, 0, 0))[0]))


# --- Triton's low-memory dropout tutorial, unchanged -------------------------------------

@triton.jit
def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


def seeded_dropout(x, p, seed):
    output = np.empty_like(x)
    n_elements = x.size
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']),)  # noqa: E731
    _seeded_dropout[grid](x, output, n_elements, p, seed, BLOCK_SIZE=1024)
    return output


def test_seeded_dropout_tutorial():
    x = np.random.default_rng(0).standard_normal(3000).astype(np.float32)
    a, b, c = seeded_dropout(x, 0.5, 123), seeded_dropout(x, 0.5, 123), seeded_dropout(x, 0.5, 512)
    np.testing.assert_array_equal(a, b)
    assert (a != c).any()
    keep = uniform_ref(philox_ref(123, (np.arange(x.size), 0, 0, 0))[0]) > 0.5
    np.testing.assert_allclose(a, np.where(keep, x / np.float32(0.5), 0.0), rtol=1e-6)
    assert 0.45 < keep.mean() < 0.55


def test_language_submodules_in_kernels():
    # Triton defines builtins in tl.random, tl.core and tl.standard; kernels name them so
    @triton.jit
    def k(X, Y, Z):
        o = tl.arange(0, 8)
        x = tl.core.load(X + o)
        tl.store(Y + o, tl.random.uint_to_uniform_float(x))
        tl.store(Z, tl.standard.sum(tl.random.rand(7, o), axis=0))

    x = np.arange(8, dtype=np.int32) * 123456789
    y = np.zeros(8, np.float32)
    y2 = np.zeros(8, np.float32)
    z = np.zeros(1, np.float32)

    @triton.jit
    def ref(X, Y2):
        o = tl.arange(0, 8)
        tl.store(Y2 + o, tl.uint_to_uniform_float(tl.load(X + o)))

    k[(1,)](x, y, z)
    ref[(1,)](x, y2)
    np.testing.assert_array_equal(y, y2)
    assert 0 < z[0] < 8
    import tilec.language.random as tr
    assert "rand" in dir(tr) and "sum" in dir(tl.standard)
