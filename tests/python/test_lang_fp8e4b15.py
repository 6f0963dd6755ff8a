"""fp8e4b15, Triton's software fp8 (support/FloatFormats.h): every byte's value, every fp16
and a spread of fp32 values encoded as Triton's CUDA backend encodes them, the sign
operations on the sign bit, and tl.dot upcasting to fp16; on the tile interpreter and on
the GPU lowering (the SIMT simulator), against a numpy model written from the format."""

import warnings

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from gpu_util import HAVE_GPU, torch


def decode(b):
    """uint8 bits -> float32: the fp16 with the same sign and eeee mmm << 7."""
    b = b.astype(np.uint16)
    h = ((b & 0x80) << 8) | ((b & 0x7F) << 7)
    return h.astype(np.uint16).view(np.float16).astype(np.float32)


def encode_f16(h):
    """fp16 bits -> fp8e4b15 bits: magnitude clamped to 1.75, ties away from zero."""
    h = h.astype(np.uint32)
    mag = np.minimum(h & 0x7FFF, 0x3F00)
    return (((h & 0x8000) | (mag * 2 + 0x80)) >> 8).astype(np.uint8)


def f32_to_f16_toward_zero(x):
    """float32 -> fp16 bits, toward zero; a NaN keeps its sign."""
    with np.errstate(over="ignore"):
        h = x.astype(np.float16)
    bits = h.view(np.uint16).copy()
    away = np.abs(h.astype(np.float64)) > np.abs(x.astype(np.float64))
    bits[away] -= 1  # one step toward zero (+-inf from a finite overflow: the largest)
    nan = np.isnan(x)
    bits[nan] = (np.signbit(x[nan]).astype(np.uint16) << 15) | 0x7E00
    return bits


@pytest.fixture(params=["interpreter", "simt", pytest.param("gpu", marks=pytest.mark.gpu)])
def mode(request, monkeypatch):
    if request.param == "simt":
        monkeypatch.setenv("TILEC_SIMT", "1")
    if request.param == "gpu" and not HAVE_GPU:
        pytest.skip("needs a GPU and torch")
    return request.param


def launch(mode, kernel, grid, arrays, fp8, **kw):
    """kernel[grid] on the numpy `arrays` (those indexed in `fp8` as fp8e4b15), on the host
    or, in gpu mode, through CUDA copies written back into them."""
    args = [torch.from_numpy(a).cuda() if mode == "gpu" else a for a in arrays]
    kernel[grid](*[triton.reinterpret(a, tl.float8e4b15) if i in fp8 else a
                   for i, a in enumerate(args)], **kw)
    if mode == "gpu":
        for a, t in zip(arrays, args):
            a[...] = t.cpu().numpy()


@triton.jit
def upcast(X, F32, F16, BF16, F64, NEG, ABS, N: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(X + o)
    tl.store(F32 + o, x.to(tl.float32))
    tl.store(F16 + o, x.to(tl.float16).to(tl.uint16, bitcast=True))
    tl.store(BF16 + o, x.to(tl.bfloat16).to(tl.uint16, bitcast=True))
    tl.store(F64 + o, x.to(tl.float64))
    tl.store(NEG + o, -x)
    tl.store(ABS + o, tl.abs(x))


def test_every_byte_upcasts_exactly_and_sign_ops_touch_the_sign_bit(mode):
    k = triton.jit(upcast.fn)  # its own caches: TILEC_SIMT is read when compiling
    bits = np.arange(256, dtype=np.uint8)
    f32, f64 = np.zeros(256, np.float32), np.zeros(256, np.float64)
    f16, bf16 = np.zeros(256, np.uint16), np.zeros(256, np.uint16)
    neg, ab = np.zeros(256, np.uint8), np.zeros(256, np.uint8)
    launch(mode, k, (1,), [bits, f32, f16, bf16, f64, neg, ab], {0, 5, 6}, N=256)
    want = decode(bits)
    np.testing.assert_array_equal(f32, want)
    np.testing.assert_array_equal(f16.view(np.float16).astype(np.float32), want)
    np.testing.assert_array_equal((bf16.astype(np.uint32) << 16).view(np.float32), want)
    np.testing.assert_array_equal(f64, want.astype(np.float64))
    assert want[0x7F] == 1.875 and want[0x08] == 2.0 ** -14 and want[0x01] == 2.0 ** -17
    np.testing.assert_array_equal(neg, bits ^ 0x80)  # 0x7f stays 1.875, not re-encoded
    np.testing.assert_array_equal(ab, bits & 0x7F)


@triton.jit
def from_f16(X, Y, N: tl.constexpr):
    o = tl.program_id(0) * N + tl.arange(0, N)
    x = tl.load(X + o).to(tl.float16, bitcast=True)
    tl.store(Y + o, x.to(tl.float8e4b15))


def test_every_fp16_encodes_as_triton_does(mode):
    k = triton.jit(from_f16.fn)
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    y = np.zeros(65536, np.uint8)
    launch(mode, k, (64,), [h, y], {1}, N=1024)
    want = encode_f16(h)
    bad = np.nonzero(y != want)[0]
    assert bad.size == 0, [(hex(h[i]), hex(y[i]), hex(want[i])) for i in bad[:5]]
    # round trip of every byte but +-1.875 (above the 1.75 the encoding clamps to)
    keep = (np.arange(256) & 0x7F) != 0x7F
    np.testing.assert_array_equal(
        encode_f16(decode(np.arange(256, dtype=np.uint8)).astype(np.float16).view(np.uint16))
        [keep], np.arange(256, dtype=np.uint8)[keep])


@triton.jit
def from_f32(X, Y, N: tl.constexpr):
    o = tl.program_id(0) * N + tl.arange(0, N)
    tl.store(Y + o, tl.load(X + o).to(tl.float8e4b15))


def test_fp32_goes_to_fp16_toward_zero_first(mode):
    k = triton.jit(from_f32.fn)
    rng = np.random.default_rng(7)
    special = np.array([0.0, -0.0, 1.75, 1.8, 1.875, 2.0, 1e6, 7e4, -7e4, np.inf, -np.inf, np.nan,
                        -np.nan, 2.0 ** -18, -(2.0 ** -18), 2.0 ** -19, 3 * 2.0 ** -18,
                        1.0 + 2.0 ** -4, 1.0 + 2.0 ** -4 - 2.0 ** -20, 1e-30], np.float32)
    # fp32 values just around fp16 and fp8e4b15 rounding points, and a spread of magnitudes
    near = decode(np.arange(256, dtype=np.uint8))
    near = np.concatenate([near, np.nextafter(near, np.float32(np.inf)),
                           np.nextafter(near, np.float32(-np.inf))]).astype(np.float32)
    spread = (rng.standard_normal(3072) * np.exp2(rng.integers(-24, 4, 3072))).astype(np.float32)
    x = np.concatenate([special, near, spread]).astype(np.float32)
    x = np.resize(x, 4096).astype(np.float32)
    y = np.zeros(4096, np.uint8)
    launch(mode, k, (4,), [x, y], {1}, N=1024)
    want = encode_f16(f32_to_f16_toward_zero(x))
    bad = np.nonzero(y != want)[0]
    assert bad.size == 0, [(float(x[i]), hex(y[i]), hex(want[i])) for i in bad[:5]]
    assert y[3] == 0x7E and y[4] == 0x7E and y[6] == 0x7E and y[9] == 0x7E and y[10] == 0xFE


@triton.jit
def dot_kernel(X, Y, Z):
    o = tl.arange(0, 16)
    x = tl.load(X + o[:, None] * 16 + o[None, :])
    y = tl.load(Y + o[:, None] * 16 + o[None, :])
    tl.store(Z + o[:, None] * 16 + o[None, :], tl.dot(x, y))


def test_dot_upcasts_to_fp16(mode):
    k = triton.jit(dot_kernel.fn)
    rng = np.random.default_rng(3)
    # signs and mantissas at random, exponents 12-15 (1/8 to 1.875): every sum of products
    # is exact in fp32 whatever its order (the GPU's mma adds in its own)
    xb, yb = ((rng.integers(0, 2, (2, 16, 16)) << 7) | (rng.integers(12, 16, (2, 16, 16)) << 3) |
              rng.integers(0, 8, (2, 16, 16))).astype(np.uint8)
    z = np.zeros((16, 16), np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        launch(mode, k, (1,), [xb, yb, z], {0, 1})
    want = decode(xb) @ decode(yb)  # products of 4-bit significands: exact in fp32
    np.testing.assert_array_equal(z, want)
    deprecated = [w for w in caught if "fp8e4b15 is deprecated on Hopper" in str(w.message)]
    # as Triton: compiled for a GPU, it warns
    assert len(deprecated) == (0 if mode == "interpreter" else 1), [str(w.message) for w in caught]


@triton.jit
def custom_kernel(X, F32, F16, BACK):
    o = tl.arange(0, 256)
    x = tl.load(X + o)
    tl.store(F32 + o, tl.extra.cuda.convert_custom_float8_sm80(x, tl.float32))
    h = tl.extra.cuda.convert_custom_float8_sm70(x, tl.bfloat16)  # fp16 whatever dst_ty says
    tl.static_assert(h.dtype == tl.float16)
    tl.store(F16 + o, h.to(tl.uint16, bitcast=True))
    tl.store(BACK + o, tl.extra.cuda.convert_custom_float8_sm80(h, tl.float16))


def test_triton_conversion_functions_of_extra_cuda(mode):
    k = triton.jit(custom_kernel.fn)
    bits = np.arange(256, dtype=np.uint8)
    f32, f16, back = np.zeros(256, np.float32), np.zeros(256, np.uint16), np.zeros(256, np.uint8)
    launch(mode, k, (1,), [bits, f32, f16, back], {0, 3})
    np.testing.assert_array_equal(f32, decode(bits))
    np.testing.assert_array_equal(f16.view(np.float16).astype(np.float32), decode(bits))
    np.testing.assert_array_equal(back, encode_f16(f16))


def test_triton_conversion_function_rejects_other_types():
    @triton.jit
    def k(X):
        x = tl.load(X + tl.arange(0, 16))
        tl.store(X + tl.arange(0, 16), tl.extra.cuda.convert_custom_float8_sm80(x, tl.float16))
    with pytest.raises(triton.CompilationError, match="arg must be fp8e4b15, float16 or float32"):
        k[(1,)](np.zeros(16, np.int32))
