"""tl.inline_asm_elementwise: the user's PTX per element or per `pack` elements, with
results first ($0..) then arguments, sub-32-bit elements packed into registers (low element
first) and several results as a tuple. On the GPU (gpu_lang_plugin) results are checked
against numpy; the tile interpreter and the SIMT simulator cannot run PTX and must say so.
The constraint and operand errors are caught before any PTX exists."""

import re

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from lang_util import ON_GPU

NO_PTX = "inline_asm_elementwise runs PTX"


def run(kernel, *args, **kw):
    """Launches on one program; off the GPU, checks the error instead and returns False."""
    if ON_GPU:
        kernel[(1,)](*args, **kw)
        return True
    with pytest.raises(triton.TilecError, match=NO_PTX):
        kernel[(1,)](*args, **kw)
    return False


@triton.jit
def k_rotl(X, Y, N: tl.constexpr):
    off = tl.arange(0, N)
    x = tl.load(X + off)
    y = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $1, 8;", "=r,r", [x],
                                  dtype=tl.uint32, is_pure=True, pack=1)
    tl.store(Y + off, y)


def test_one_register_each():
    x = np.random.default_rng(0).integers(0, 2**32, 256, dtype=np.uint32)
    y = np.zeros_like(x)
    if run(k_rotl, x, y, N=256):
        np.testing.assert_array_equal(y, (x << np.uint32(8)) | (x >> np.uint32(24)))


@triton.jit
def k_bytes(A, B, C, D, N: tl.constexpr):
    off = tl.arange(0, N)
    a = tl.load(A + off)  # uint8: four to a register
    b = tl.load(B + off)  # float32: one each
    c, d = tl.inline_asm_elementwise(
        """
        bfe.u32 $0, $8, 0, 8;
        bfe.u32 $1, $8, 8, 8;
        bfe.u32 $2, $8, 16, 8;
        bfe.u32 $3, $8, 24, 8;
        cvt.rn.f32.u32 $4, $0;
        cvt.rn.f32.u32 $5, $1;
        cvt.rn.f32.u32 $6, $2;
        cvt.rn.f32.u32 $7, $3;
        max.f32 $4, $4, $9;
        max.f32 $5, $5, $10;
        max.f32 $6, $6, $11;
        max.f32 $7, $7, $12;
        """,
        "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r", [a, b], dtype=(tl.int32, tl.float32),
        is_pure=True, pack=4)
    tl.store(C + off, c)
    tl.store(D + off, d)


def test_pack4_two_results_from_bytes():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 256, 512, dtype=np.uint8)
    b = rng.uniform(0, 300, 512).astype(np.float32)
    c = np.zeros(512, np.int32)
    d = np.zeros(512, np.float32)
    if run(k_bytes, a, b, c, d, N=512):
        np.testing.assert_array_equal(c, a.astype(np.int32))
        np.testing.assert_array_equal(d, np.maximum(a.astype(np.float32), b))


@triton.jit
def k_xor_bytes(X, Y, N: tl.constexpr):
    off = tl.arange(0, N)
    y = tl.inline_asm_elementwise("xor.b32 $0, $1, 0x5a5a5a5a;", "=r,r", [tl.load(X + off)],
                                  dtype=tl.int8, is_pure=True, pack=4)
    tl.store(Y + off, y)


def test_int8_results_are_unpacked_signed():
    x = np.tile(np.arange(-128, 128, dtype=np.int8), 2)  # 4 elements a thread on 4 warps
    y = np.zeros_like(x)
    if run(k_xor_bytes, x, y, N=512):
        np.testing.assert_array_equal(y, x ^ np.int8(0x5a))


@triton.jit
def k_byte_alone(X, Y, N: tl.constexpr):
    off = tl.arange(0, N)
    # pack 1: each int8 travels alone in the low byte of a 32-bit register (`r`), as in
    # Triton's test_inline_asm_with_pointers; the result is read back from its low byte
    y = tl.inline_asm_elementwise("xor.b32 $0, $1, 0x15a;", "=r,r", [tl.load(X + off)],
                                  dtype=tl.int8, is_pure=True, pack=1)
    tl.store(Y + off, y)


def test_int8_alone_in_a_32_bit_register():
    x = np.tile(np.arange(-128, 128, dtype=np.int8), 2)
    y = np.zeros_like(x)
    if run(k_byte_alone, x, y, N=512):  # 0x100 lands above the byte: only 0x5a stays
        np.testing.assert_array_equal(y, x ^ np.int8(0x5a))
    ptx = triton.compile(k_byte_alone, signature="*i8:16,*i8:16", constexprs={"N": 512},
                         target="cuda:90").asm["ptx"]
    body = ptx.split("{ // inline asm", 1)[1]
    assert re.match(r"\s*xor\.b32 %r\d+, %r\d+, 0x15a;", body)
    assert "and.b32" in body.split("}", 1)[1].split("inline asm", 1)[0]  # the low byte


@triton.jit
def k_half2(X, Y, Z, N: tl.constexpr):
    off = tl.arange(0, N)
    z = tl.inline_asm_elementwise("add.rn.f16x2 $0, $1, $2;", "=r,r,r",
                                  [tl.load(X + off), tl.load(Y + off)], dtype=tl.float16,
                                  is_pure=True, pack=2)
    tl.store(Z + off, z)


def test_fp16_pairs_share_a_register():
    rng = np.random.default_rng(2)
    x = rng.integers(-500, 500, 256).astype(np.float16)
    y = rng.integers(-500, 500, 256).astype(np.float16)
    z = np.zeros_like(x)
    if run(k_half2, x, y, z, N=256):
        np.testing.assert_array_equal(z, x + y)


@triton.jit
def k_i64(X, Y, N: tl.constexpr):
    off = tl.arange(0, N)
    # a scalar argument is broadcast to the tile; $$ would be a literal dollar
    y = tl.inline_asm_elementwise("mad.lo.s64 $0, $1, 3, $2;", "=l,l,l",
                                  [tl.load(X + off), tl.full((), 7, tl.int64)], dtype=tl.int64,
                                  is_pure=True, pack=1)
    tl.store(Y + off, y)


def test_64_bit_registers_and_broadcast_scalars():
    x = np.arange(-64, 64, dtype=np.int64) * (1 << 40)
    y = np.zeros_like(x)
    if run(k_i64, x, y, N=128):
        np.testing.assert_array_equal(y, x * 3 + 7)


def test_ptx_holds_the_text_with_registers():
    ptx = triton.compile(k_rotl, signature="*u32:16,*u32:16", constexprs={"N": 256},
                         target="cuda:90").asm["ptx"]
    assert "{ // inline asm" in ptx
    assert "shf.l.wrap.b32 %r" in ptx and "$" not in ptx.split("inline asm", 1)[1].split("}")[0]


@triton.jit
def k_pack_too_big(X, Y, N: tl.constexpr):
    off = tl.arange(0, N)
    y = tl.inline_asm_elementwise("mov.b32 $0, $4;", "=r,=r,=r,=r,r,r,r,r", [tl.load(X + off)],
                                  dtype=tl.float32, is_pure=True, pack=4)
    tl.store(Y + off, y)


def test_pack_larger_than_a_threads_elements_is_a_compile_error():
    # 32 elements over 128 threads: one (replicated) element a thread, not 4
    with pytest.raises(triton.TilecError, match="pack=4 needs a multiple of 4 elements"):
        triton.compile(k_pack_too_big, signature="*fp32:16,*fp32:16", constexprs={"N": 32},
                       target="cuda:90")


@triton.jit
def k_no_args(T):
    (t,) = tl.inline_asm_elementwise(asm="mov.u64 $0, %globaltimer;", constraints="=l",
                                     args=[], dtype=(tl.uint64,), is_pure=False, pack=1)
    s = tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [], dtype=tl.int32,
                                  is_pure=True, pack=1)
    tl.store(T, t.to(tl.int64))
    tl.store(T + 1, s.to(tl.int64))


def test_no_arguments_give_scalars():
    """args=[]: one scalar per result (a common way to read %globaltimer or %smid)."""
    ptx = triton.compile(k_no_args, signature="*i64:16", target="cuda:90").asm["ptx"]
    assert re.search(r"mov\.u64 %rd\d+, %globaltimer;", ptx) and "%smid;" in ptx
    t = np.zeros(2, np.int64)
    if run(k_no_args, t):
        assert t[0] > 0 and 0 <= t[1] < 1024
