"""libdevice (triton.language.extra[.cuda].libdevice) against numpy / Python's math over
dense sweeps with special values (inf, nan, +-0, subnormals, huge and tiny arguments).
Each function states its bound in ulp of the result's dtype; exact functions have 0.
tilec composes them in Sema (fp32 through fp64 formulas), so the interpreter and the SIMT
simulator run the same ops; on the GPU the fp64 exp/log/sin/cos are polynomials, which
stays within the same fp32 bounds."""

import math
import os
from fractions import Fraction

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from lang_util import ON_GPU, jit_from_source

# The GPU's fp32 erf (and so the SIMT simulator's) is a polynomial of about 2 ulp.
APPROX = ON_GPU or os.environ.get("TILEC_SIMT", "0") not in ("", "0")

F32, F64 = np.float32, np.float64
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-30, -1e-30,
           1e30, -1e30, 1e-40, -1e-40, 3.4e38, -3.4e38, 1.17549435e-38, 1.5, -2.5, 3.0]


def sweep(lo, hi, n=1500, signed=True, dt=F32):
    """Log-spaced magnitudes in [lo, hi] (both signs when `signed`) plus the specials."""
    mags = np.geomspace(lo, hi, n)
    vals = np.concatenate([mags, -mags]) if signed else mags
    vals = np.concatenate([vals, np.array(SPECIAL)])
    with np.errstate(over="ignore"):
        return vals.astype(dt)


def lin(lo, hi, n=3000, dt=F32):
    return np.concatenate([np.linspace(lo, hi, n), np.array(SPECIAL)]).astype(dt)


def ulp_diff(a, b):
    """Distance in representable values; NaN vs NaN is 0, NaN vs a number is huge."""
    a = np.asarray(a)
    b = np.asarray(b, dtype=a.dtype)
    it = np.int32 if a.dtype == F32 else np.int64
    mask = np.iinfo(it).max

    def ordered(x):
        i = x.view(it).astype(np.int64 if it == np.int32 else object)
        return np.where(i < 0, -(i & mask), i)

    d = np.abs(ordered(a) - ordered(b)).astype(float)
    both_nan = np.isnan(a) & np.isnan(b)
    one_nan = np.isnan(a) ^ np.isnan(b)
    return np.where(both_nan, 0, np.where(one_nan, 1e30, d))


def check(name, got, x_args, ref, bound):
    d = ulp_diff(got, ref)
    bad = np.nonzero(d > bound)[0]
    if len(bad):
        i = bad[0]
        args = ", ".join(repr(a[i]) for a in x_args)
        raise AssertionError(f"libdevice.{name}({args}) = {got[i]!r}, expected {ref[i]!r} "
                             f"({d[i]:.0f} ulp > {bound}; {len(bad)} of {len(d)} off)")


def run(name, *xs, out=None, extra=""):
    """Runs libdevice.<name> elementwise over 1-D arrays xs (one kernel per signature)."""
    n = len(xs[0])
    block = 1024
    params = ", ".join(f"X{i}" for i in range(len(xs)))
    loads = "\n".join(f"    x{i} = tl.load(X{i} + offs, mask=m)" for i in range(len(xs)))
    args = ", ".join(f"x{i}" for i in range(len(xs)))
    k = jit_from_source(f"""
from tilec.language.extra import libdevice


@triton.jit
def kernel({params}, Z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
{loads}
    tl.store(Z + offs, libdevice.{name}({args}){extra}, mask=m)
""")
    z = np.zeros(n, out if out is not None else xs[0].dtype)
    k[(triton.cdiv(n, block),)](*xs, z, n, BLOCK=block)
    return z


def np_ref(f, *xs, dt):
    with np.errstate(all="ignore"):
        return np.asarray(f(*[x.astype(F64) for x in xs])).astype(dt)


def vec(f):
    def g(*xs):
        out = []
        for args in zip(*xs):
            try:
                out.append(f(*[float(a) for a in args]))
            except (ValueError, OverflowError):
                out.append(math.nan)
        return np.array(out, dtype=F64)
    return g


def _sinpi(x):  # exact argument reductions (x - round(x), 1/2 - |r|) keep fp64 accurate
    n = np.round(x)
    r = x - n
    s = np.where(np.abs(r) <= 0.25, np.sin(np.pi * r),
                 np.sign(r) * np.cos(np.pi * (0.5 - np.abs(r))))
    return s * np.where(np.mod(n, 2) == 0, 1.0, -1.0)


def _cospi(x):
    n = np.round(x)
    r = x - n
    c = np.where(np.abs(r) <= 0.25, np.cos(np.pi * r), np.sin(np.pi * (0.5 - np.abs(r))))
    return c * np.where(np.mod(n, 2) == 0, 1.0, -1.0)


# name: (numpy reference on fp64, fp32 inputs, fp32 bound, fp64 bound or None (not run))
UNARY = {
    "exp": (np.exp, lin(-110, 90), 2, 3),  # fp32 exp and tanh: 2 ulp on the GPU, as CUDA's
    "exp2": (np.exp2, lin(-160, 130), 1, 3),
    "exp10": (lambda x: np.power(10.0, x), lin(-45, 39), 1, 4),
    "expm1": (np.expm1, sweep(1e-12, 90), 1, 4),
    "log": (np.log, sweep(1e-45, 3e38, signed=False), 1, 3),
    "log2": (np.log2, sweep(1e-45, 3e38, signed=False), 1, 3),
    "log10": (np.log10, sweep(1e-45, 3e38, signed=False), 1, 4),
    "log1p": (np.log1p, np.concatenate([sweep(1e-20, 1e30), lin(-1, 1)]), 1, 4),
    "sqrt": (np.sqrt, sweep(1e-45, 3e38), 0, 0),
    "rsqrt": (lambda x: 1 / np.sqrt(x), sweep(1e-45, 3e38), 1, 2),
    "cbrt": (np.cbrt, sweep(1e-45, 3e38), 1, 2),
    "rcbrt": (lambda x: 1 / np.cbrt(x), sweep(1e-30, 3e38), 1, 3),
    "tanh": (np.tanh, np.concatenate([sweep(1e-20, 100), lin(-1.5, 1.5)]), 2, 4),
    "sinh": (np.sinh, sweep(1e-20, 95), 1, 4),
    "cosh": (np.cosh, sweep(1e-20, 95), 1, 4),
    "asinh": (np.arcsinh, sweep(1e-20, 3e38), 1, 4),
    "acosh": (np.arccosh, np.concatenate([sweep(1, 3e38, signed=False), lin(0.5, 3)]), 1, 4),
    "atanh": (np.arctanh, np.concatenate([sweep(1e-20, 1), lin(-1.2, 1.2)]), 1, 4),
    "sin": (np.sin, np.concatenate([lin(-1e4, 1e4), sweep(1e-30, 3e38)]), 1, 4),
    "cos": (np.cos, np.concatenate([lin(-1e4, 1e4), sweep(1e-30, 3e38)]), 1, 4),
    "tan": (np.tan, np.concatenate([lin(-100, 100), sweep(1e-30, 3e38)]), 1, 4),
    "asin": (np.arcsin, lin(-1.1, 1.1), 1, 4),
    "acos": (np.arccos, lin(-1.1, 1.1), 1, 4),
    "atan": (np.arctan, sweep(1e-30, 3e38), 1, 4),
    "sinpi": (_sinpi, lin(-600, 600, 5001), 1, 4),
    "cospi": (_cospi, lin(-600, 600, 5001), 1, 4),
    "erf": (vec(math.erf), lin(-6, 6), 2 if APPROX else 1, 4),
    "erfc": (vec(math.erfc), lin(-5, 10.5), 2, None),
    "normcdf": (vec(lambda x: 0.5 * math.erfc(-x / math.sqrt(2))), lin(-14, 9), 2, None),
    "floor": (np.floor, lin(-50, 50), 0, 0),
    "ceil": (np.ceil, lin(-50, 50), 0, 0),
    "trunc": (np.trunc, lin(-50, 50), 0, 0),
    "rint": (np.rint, np.concatenate([lin(-50, 50, 801), sweep(1, 3e38)]), 0, 0),
    "nearbyint": (np.rint, lin(-50, 50, 801), 0, 0),
    "round": (vec(lambda x: math.copysign(math.floor(abs(x) + 0.5), x)
                  if math.isfinite(x) else x), np.concatenate([lin(-50, 50, 801),
                                                               np.array([0.49999997], F32)]), 0, 0),
    "abs": (np.abs, sweep(1e-45, 3e38), 0, 0),
    "logb": (vec(lambda x: -math.inf if x == 0 else (abs(x) if not math.isfinite(x) else
                                                       float(math.frexp(x)[1] - 1))),
             sweep(1e-45, 3e38), 0, 0),
    "saturatef": (lambda x: np.where(np.isnan(x), 0, np.clip(x, 0, 1)), lin(-2, 2), 0, None),
}

# fp32-only reference for erfinv: invert math.erf by bisection in fp64.
def _erfinv(y):
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    lo, hi = -6.0, 6.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if math.erf(mid) < y:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi) if y != 0 else y


def _erfcinv(y):  # bisection on math.erfc (relative in the tail)
    if math.isnan(y) or not 0 <= y <= 2:
        return math.nan
    if y in (0.0, 1.0, 2.0):
        return {0.0: math.inf, 1.0: 0.0, 2.0: -math.inf}[y]
    lo, hi = -30.0, 30.0
    for _ in range(300):
        mid = 0.5 * (lo + hi)
        if math.erfc(mid) > y:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _lgamma(x):
    if math.isinf(x):
        return math.inf
    if x <= 0 and x == math.floor(x):
        return math.inf
    return math.lgamma(x)


def _tgamma(x):
    if x == 0:
        return math.copysign(math.inf, x)
    if x == math.inf:
        return x
    if x < 0 and x == math.floor(x) or x == -math.inf:
        return math.nan
    try:
        return math.gamma(x)
    except OverflowError:
        return math.inf


def _erfcx(x):
    if x < 25:
        return math.exp(x * x) * math.erfc(x) if x > -26 else math.inf
    # asymptotic series: 1/(x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - 15/(8x^6))
    z = 1 / (2 * x * x)
    return (1 - z + 3 * z * z - 15 * z**3) / (x * math.sqrt(math.pi))


UNARY["erfinv"] = (vec(_erfinv), lin(-1, 1, 2001), 2, None)
# Away from lgamma's zeros below 0 (where any fp64 formula has only absolute accuracy).
UNARY["lgamma"] = (vec(_lgamma), np.concatenate([sweep(1e-30, 3e36, signed=False),
                                                   lin(0.5, 40), lin(-40, 0.5)[::7]]), 2, None)
UNARY["tgamma"] = (vec(_tgamma), np.concatenate([lin(-40, 36), sweep(1e-30, 40)]), 2, None)
UNARY["erfcx"] = (vec(_erfcx), np.concatenate([lin(-9, 30), sweep(1e-20, 1e30)]), 2, None)
UNARY["erfcinv"] = (vec(_erfcinv), np.concatenate([lin(0, 2, 2001), sweep(1e-45, 1, signed=False)]),
                    2, None)
UNARY["normcdfinv"] = (vec(lambda p: -math.sqrt(2) * _erfcinv(2 * p)),
                       np.concatenate([lin(0, 1, 2001), sweep(1e-45, 0.5, signed=False)]), 2, None)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_fp32(name):
    ref, x, bound, _ = UNARY[name]
    x = x.astype(F32)
    check(name, run(name, x), [x], np_ref(ref, x, dt=F32), bound)


@pytest.mark.parametrize("name", [n for n in UNARY if UNARY[n][3] is not None])
def test_unary_fp64(name):
    ref, x, _, bound = UNARY[name]
    x = x.astype(F64)
    # fp64 inputs beyond fp32's range where the function is defined there too.
    if name in ("exp", "exp2", "expm1", "sinh", "cosh", "tanh"):
        x = np.concatenate([x, np.linspace(-700, 700, 1001)])
    if name in ("log", "log2", "log10", "sqrt", "cbrt", "asinh", "atan", "abs", "logb"):
        x = np.concatenate([x, np.geomspace(1e-300, 1e300, 2001)])
    if name in ("sin", "cos", "tan"):  # fp64 reduction: Cody-Waite, |x| <= 2^20 (LANGUAGE.md)
        x = np.concatenate([x[~(np.abs(x) > 2**20)], np.linspace(-1e6, 1e6, 3001)])
    with np.errstate(all="ignore"):
        # numpy 2.4's fp64 cbrt is up to 3 ulp off; x86's long double gives the reference
        want = ref(x.astype(np.longdouble)) if name in ("cbrt", "rcbrt") else ref(x)
    check(name, run(name, x), [x], np.asarray(want, F64), bound)


def _pow_ref(x, y):
    with np.errstate(all="ignore"):
        return np.power(x, y)


GRID = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.1, 10.0, 1e-3,
                 -7.25, 1e10, 1e-10, 1e38, np.inf, -np.inf, np.nan], F32)
YGRID = np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 2.5, 1e-3, 17.0,
                  0.3333, -1e10, 1e10, 1e38, np.inf, -np.inf, np.nan], F32)


def pairs(xs, ys, dt=F32):
    x, y = np.meshgrid(xs.astype(dt), ys.astype(dt))
    return x.ravel(), y.ravel()


BINARY = {
    # name: (reference on fp64, fp32 bound, fp64 bound or None)
    "pow": (_pow_ref, 1, 4),
    "atan2": (np.arctan2, 1, 4),
    "hypot": (np.hypot, 1, 2),
    "rhypot": (lambda x, y: 1 / np.hypot(x, y), 1, 3),
    "copysign": (np.copysign, 0, 0),
    "fmod": (np.fmod, 0, 0),
    "remainder": (vec(math.remainder), 0, 0),
    "fdim": (lambda x, y: np.where(x > y, x - y, np.where(x <= y, 0, np.nan)), 0, 0),
    "nextafter": (np.nextafter, 0, 0),
    "div_rn": (np.divide, 0, 0),
    "add_rn": (np.add, 0, 0),
    "mul_rn": (np.multiply, 0, 0),
    "sub_rn": (np.subtract, 0, 0),
}


def dense_pairs(dt):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(4000) * np.exp(rng.uniform(-20, 20, 4000))
    b = rng.standard_normal(4000) * np.exp(rng.uniform(-20, 20, 4000))
    x, y = pairs(GRID, YGRID, dt)
    return np.concatenate([x, a.astype(dt)]), np.concatenate([y, b.astype(dt)])


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_fp32(name):
    ref, bound, _ = BINARY[name]
    x, y = dense_pairs(F32)
    if name in ("nextafter", "add_rn", "sub_rn", "mul_rn", "div_rn", "fmod", "remainder",
                "copysign", "fdim"):  # exact: the fp64 result rounded once is the answer
        want = np_ref(lambda a, b: ref(a.astype(F32), b.astype(F32)), x, y, dt=F32)
    else:
        want = np_ref(ref, x, y, dt=F32)
    check(name, run(name, x, y), [x, y], want, bound)


@pytest.mark.parametrize("name", [n for n in BINARY if BINARY[n][2] is not None])
def test_binary_fp64(name):
    ref, _, bound = BINARY[name]
    x, y = dense_pairs(F64)
    with np.errstate(all="ignore"):
        want = np.asarray(ref(x, y), F64)
    check(name, run(name, x, y), [x, y], want, bound)


def test_pow_int_exponent():
    x = np.repeat(np.array([0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.1, -3.0, 7.5, 1e-3, np.inf,
                            -np.inf, np.nan], F32), 9)
    n = np.tile(np.array([0, 1, -1, 2, -2, 3, 17, -17, 120], np.int32), 13)
    check("pow", run("pow", x, n), [x, n], np_ref(_pow_ref, x, n, dt=F32), 1)
    x64 = x.astype(F64)
    with np.errstate(all="ignore"):
        want = np.power(x64, n.astype(F64))
    check("pow", run("pow", x64, n), [x64, n], want, 2)


def f32_round(v):
    """The fp32 nearest to the rational v (ties to even)."""
    with np.errstate(over="ignore"):
        f = F32(float(v))
    if not np.isfinite(f):
        return f
    cands = [np.nextafter(f, F32(-np.inf)), f, np.nextafter(f, F32(np.inf))]
    cands = [c for c in cands if np.isfinite(c)]
    return min(cands, key=lambda c: (abs(Fraction(float(c)) - v), int(c.view(np.int32)) & 1))


def test_directed_rounding():
    x, y = dense_pairs(F32)
    fin = np.isfinite(x) & np.isfinite(y) & (y != 0)
    x, y = x[fin], y[fin]
    fx, fy = [Fraction(float(v)) for v in x], [Fraction(float(v)) for v in y]
    exact = {"add": [p + q for p, q in zip(fx, fy)], "sub": [p - q for p, q in zip(fx, fy)],
             "mul": [p * q for p, q in zip(fx, fy)], "div": [p / q for p, q in zip(fx, fy)]}
    z = np.roll(x, 3)
    fz = [Fraction(float(v)) for v in z]
    exact["fma"] = [p * q + r for p, q, r in zip(fx, fy, fz)]
    for op, e in exact.items():
        args = [x, y, z] if op == "fma" else [x, y]
        rn = np.array([f32_round(v) for v in e], F32)
        above = np.array([Fraction(float(r)) > v if np.isfinite(r) else False
                          for r, v in zip(rn, e)])
        below = np.array([Fraction(float(r)) < v if np.isfinite(r) else False
                          for r, v in zip(rn, e)])
        up = np.where(below, np.nextafter(rn, F32(np.inf)), rn)
        down = np.where(above, np.nextafter(rn, F32(-np.inf)), rn)
        big = np.finfo(F32).max
        up = np.where(rn == -np.inf, -big, up)
        down = np.where(rn == np.inf, big, down)
        pos = np.array([v > 0 for v in e])
        tz = np.where(pos, down, up)
        for mode, want in [("rn", rn), ("ru", up), ("rd", down), ("rz", tz)]:
            check(f"{op}_{mode}", run(f"{op}_{mode}", *args), args, want.astype(F32), 0)
    s = np.abs(x) + 1
    r = run("sqrt_ru", s)
    assert np.all(r.astype(F64) ** 2 >= s) and np.all(ulp_diff(r, np.sqrt(s)) <= 1)
    r = run("sqrt_rd", s)
    assert np.all(r.astype(F64) ** 2 <= s)
    d = np.array([1 / 3, -1 / 3, 0.1, -0.1, 2.0, 1e-300, 1e300, -1e300, 1e-40], F64)
    up, down = run("double2float_ru", d, out=F32), run("double2float_rd", d, out=F32)
    tz = run("double2float_rz", d, out=F32)
    big = np.finfo(F32).max
    for i, v in enumerate(d):
        fv = Fraction(float(v))
        assert down[i] == -np.inf or Fraction(float(down[i])) <= fv, (v, down[i])
        assert up[i] == np.inf or Fraction(float(up[i])) >= fv, (v, up[i])
        assert abs(tz[i]) <= min(abs(v), big) and tz[i] in (up[i], down[i]) or abs(tz[i]) == big
    assert up[0] == F32(1 / 3) and down[0] == np.nextafter(F32(1 / 3), F32(0))
    assert up[4] == down[4] == 2.0 and tz[6] == big and tz[7] == -big and down[6] == big
    assert up[5] == np.nextafter(F32(0), F32(1)) and down[5] == 0 and tz[5] == 0


def test_bits_and_ints():
    rng = np.random.default_rng(3)
    i32 = np.concatenate([np.array([0, 1, -1, 2**31 - 1, -2**31, 0x00F0, 0x8000], np.int32),
                          rng.integers(-2**31, 2**31, 3000, dtype=np.int64).astype(np.int32)])
    i64 = np.concatenate([np.array([0, 1, -1, 2**63 - 1, -2**63, 1 << 40], np.int64),
                          rng.integers(-2**63, 2**63 - 1, 3000, dtype=np.int64)])

    def bits(v, w):
        return [int(a) & ((1 << w) - 1) for a in v]

    def popc(v, w):
        return np.array([bin(a).count("1") for a in bits(v, w)], np.int32)

    def clz(v, w):
        return np.array([w - a.bit_length() for a in bits(v, w)], np.int32)

    def ffs(v, w):
        return np.array([(a & -a).bit_length() for a in bits(v, w)], np.int32)

    def brev(v, w, dt):
        out = [int(f"{a:0{w}b}"[::-1], 2) for a in bits(v, w)]
        return np.array([o - (1 << w) if o >> (w - 1) else o for o in out], dt)

    for v, w in [(i32, 32), (i64, 64)]:
        np.testing.assert_array_equal(run("popc", v, out=np.int32), popc(v, w))
        np.testing.assert_array_equal(run("clz", v, out=np.int32), clz(v, w))
        np.testing.assert_array_equal(run("ffs", v, out=np.int32), ffs(v, w))
        np.testing.assert_array_equal(run("brev", v), brev(v, w, v.dtype))
    a, b = i32, np.roll(i32, 1)
    np.testing.assert_array_equal(run("mulhi", a, b),
                                  ((a.astype(np.int64) * b) >> 32).astype(np.int32))
    ua, ub = a.view(np.uint32), b.view(np.uint32)
    np.testing.assert_array_equal(run("mulhi", ua, ub),
                                  ((ua.astype(np.uint64) * ub) >> 32).astype(np.uint32))
    a6, b6 = i64, np.roll(i64, 1)
    want = np.array([(int(p) * int(q)) >> 64 for p, q in zip(a6, b6)], np.int64)
    np.testing.assert_array_equal(run("mulhi", a6, b6), want)
    u6, v6 = a6.view(np.uint64), b6.view(np.uint64)
    want = np.array([(int(p) * int(q)) >> 64 for p, q in zip(u6, v6)], np.uint64)
    np.testing.assert_array_equal(run("mulhi", u6, v6), want)
    s24 = lambda v: ((v.astype(np.int64) << 40) >> 40)  # noqa: E731
    np.testing.assert_array_equal(run("mul24", a, b), (s24(a) * s24(b)).astype(np.int32))
    np.testing.assert_array_equal(run("hadd", a, b),
                                  ((a.astype(np.int64) + b) >> 1).astype(np.int32))
    np.testing.assert_array_equal(run("rhadd", a, b),
                                  ((a.astype(np.int64) + b + 1) >> 1).astype(np.int32))
    c = np.roll(ua, 7)
    np.testing.assert_array_equal(
        run("sad", a, b, c), (np.abs(a.astype(np.int64) - b) + c).astype(np.uint32).view(np.int32))
    sel = np.array([0x3210, 0x7654, 0x0123, 0x4444, 0x7531, 0x0000], np.int32)
    x = np.full(6, 0x33221100, np.int32)
    y = np.full(6, 0x77665544, np.int32)
    got = run("byte_perm", x, y, sel)
    np.testing.assert_array_equal(got, np.array([0x33221100, 0x77665544, 0x00112233,
                                                 0x44444444, 0x77553311, 0x00000000], np.int32))
    np.testing.assert_array_equal(run("abs", i32[2:]), np.abs(i32[2:]))


def test_classify_and_bitcasts():
    x = sweep(1e-45, 3e38)
    np.testing.assert_array_equal(run("isnan", x, out=np.bool_), np.isnan(x))
    np.testing.assert_array_equal(run("isinf", x, out=np.bool_), np.isinf(x))
    np.testing.assert_array_equal(run("finitef", x, out=np.bool_), np.isfinite(x))
    np.testing.assert_array_equal(run("isfinited", x.astype(F64), out=np.bool_), np.isfinite(x))
    np.testing.assert_array_equal(run("signbit", x, out=np.int32), np.signbit(x).astype(np.int32))
    np.testing.assert_array_equal(run("float_as_int", x, out=np.int32), x.view(np.int32))
    np.testing.assert_array_equal(run("int_as_float", x.view(np.int32), out=F32).view(np.int32),
                                  x.view(np.int32))
    np.testing.assert_array_equal(run("float_as_uint", x, out=np.int32), x.view(np.int32))
    d = x.astype(F64)
    np.testing.assert_array_equal(run("double_as_longlong", d, out=np.int64), d.view(np.int64))
    np.testing.assert_array_equal(run("double2hiint", d, out=np.int32),
                                  (d.view(np.int64) >> 32).astype(np.int32))
    np.testing.assert_array_equal(run("double2loint", d, out=np.int32),
                                  d.view(np.int64).astype(np.int32))
    hi = (d.view(np.int64) >> 32).astype(np.int32)
    lo = d.view(np.int64).astype(np.int32)
    np.testing.assert_array_equal(run("hiloint2double", hi, lo, out=F64).view(np.int64),
                                  d.view(np.int64))
    n = np.array([0, 1, -1, 100, -100, 300, -300, -160, 127, -149, 2**31 - 1, -2**31] * 4,
                 np.int32)
    base = np.repeat(np.array([1.0, -1.5, 3e-39, 1e38], F32), 12)
    with np.errstate(over="ignore"):
        want = np.ldexp(base.astype(F64), n).astype(F32)
    check("ldexp", run("ldexp", base, n), [base, n], want, 0)
    b64 = base.astype(F64) * np.repeat(np.array([1, 1, 1e-270, 1e270]), 12)
    n64 = np.clip(n.astype(np.int64) * 4, -2**31, 2**31 - 1).astype(np.int32)
    with np.errstate(all="ignore"):
        want = np.ldexp(b64, np.clip(n64, -5000, 5000))
    check("scalbn", run("scalbn", b64, n64), [b64, n64], want, 0)
    x = sweep(1e-45, 3e38)
    want = np.array([-2**31 if (v == 0 or np.isnan(v)) else (2**31 - 1 if np.isinf(v) else
                     math.frexp(float(v))[1] - 1) for v in x], np.int32)
    np.testing.assert_array_equal(run("ilogb", x, out=np.int32), want)
    np.testing.assert_array_equal(run("ilogb", x.astype(F64), out=np.int32), want)


def test_conversions():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.7, 3.3, 1e9, -1e9, 7.999], F32)
    for mode, f in [("rn", np.rint), ("rz", np.trunc), ("rd", np.floor), ("ru", np.ceil)]:
        np.testing.assert_array_equal(run(f"float2int_{mode}", x, out=np.int32),
                                      f(x).astype(np.int32))
        np.testing.assert_array_equal(run(f"double2ll_{mode}", x.astype(F64), out=np.int64),
                                      f(x).astype(np.int64))
    np.testing.assert_array_equal(run("llrint", x, out=np.int64), np.rint(x).astype(np.int64))
    np.testing.assert_array_equal(run("llround", x, out=np.int64),
                                  np.array([1, 2, 3, -1, -2, -3, 3, 1e9, -1e9, 8], np.int64))
    i = np.array([16777217, -16777217, 2**31 - 1, -2**31, 3, 0], np.int32)
    e = i.astype(F64)
    for mode in ["rn", "rz", "rd", "ru"]:
        got = run(f"int2float_{mode}", i, out=F32).astype(F64)
        if mode == "ru":
            assert np.all(got >= e)
        if mode == "rd":
            assert np.all(got <= e)
        if mode == "rz":
            assert np.all(np.abs(got) <= np.abs(e))
        assert np.all(np.abs(got - e) <= np.abs(e) * 2**-23)
    ll = np.array([2**62 + 1, -(2**62) - 1, 2**53 + 1, 12345], np.int64)
    exact = [int(v) for v in ll]
    up = run("ll2double_ru", ll, out=F64)
    down = run("ll2double_rd", ll, out=F64)
    assert all(int(u) >= v for u, v in zip(up, exact)) and all(int(d) <= v for d, v in zip(down, exact))
    np.testing.assert_array_equal(run("ll2double_rn", ll, out=F64), ll.astype(F64))
    f = run("ll2float_ru", ll, out=F32)
    assert all(int(u) >= v for u, v in zip(f, exact))


def test_fast_math():
    x = lin(-20, 20).astype(F32)
    x = x[np.abs(x) <= 20]
    tol = dict(rtol=2e-5 if ON_GPU else 2e-6, atol=1e-6)
    np.testing.assert_allclose(run("fast_expf", x), np.exp(x.astype(F64)), **tol)
    np.testing.assert_allclose(run("fast_exp10f", x / 4), 10.0 ** (x.astype(F64) / 4), rtol=5e-5 if ON_GPU else 2e-6)
    p = np.abs(x) + 0.01
    np.testing.assert_allclose(run("fast_logf", p), np.log(p.astype(F64)), **tol)
    np.testing.assert_allclose(run("fast_log2f", p), np.log2(p.astype(F64)), **tol)
    np.testing.assert_allclose(run("fast_log10f", p), np.log10(p.astype(F64)), **tol)
    np.testing.assert_allclose(run("fast_powf", p, x / 8), p.astype(F64) ** (x / 8), rtol=5e-5 if ON_GPU else 2e-6)
    np.testing.assert_allclose(run("fast_sinf", x), np.sin(x.astype(F64)), **tol)
    np.testing.assert_allclose(run("fast_cosf", x), np.cos(x.astype(F64)), **tol)
    np.testing.assert_allclose(run("fast_tanf", x / 16), np.tan(x.astype(F64) / 16), **tol)
    np.testing.assert_allclose(run("fast_dividef", x, p), x.astype(F64) / p, rtol=3e-7)


def test_dtype_forms_and_scalars():
    # Python scalars take to_tensor's dtypes: 2 is int32 (powif), 2.0 fp32 (powf).
    k = jit_from_source("""
        from tilec.language.extra.cuda import libdevice


        @triton.jit
        def kernel(X, Z):
            x = tl.load(X + tl.arange(0, 4))
            a = libdevice.pow(x, 2)
            b = libdevice.pow(x, 0.5)
            c = libdevice.pow(2.0, x)
            tl.static_assert(a.dtype == tl.float32 and c.dtype == tl.float32)
            tl.static_assert(libdevice.isnan(x).dtype == tl.int1)
            tl.static_assert(libdevice.signbit(x).dtype == tl.int32)
            tl.static_assert(libdevice.ilogb(x).dtype == tl.int32)
            tl.static_assert(libdevice.llrint(x).dtype == tl.int64)
            tl.store(Z + tl.arange(0, 4), a + b + c)
        """)
    x = np.array([1, 2, 4, 9], F32)
    z = np.zeros(4, F32)
    k[(1,)](x, z)
    np.testing.assert_allclose(z, x**2 + np.sqrt(x) + 2.0**x, rtol=1e-6)


def test_import_spellings():
    import tilec.language.extra.cuda.libdevice as cuda_ld
    import tilec.language.extra.libdevice as ld
    from tilec.language.extra import libdevice as ld2
    from tilec.language.extra.cuda import libdevice as ld3

    assert ld2 is ld and ld3 is cuda_ld
    assert tl.extra.libdevice is ld and tl.extra.cuda.libdevice is cuda_ld
    assert cuda_ld.tanh is ld.tanh and "erfinv" in cuda_ld.__all__
    with pytest.raises(RuntimeError, match="libdevice.tanh can only be called inside"):
        ld.tanh(1.0)
    for spelling in ["tl.extra.cuda.libdevice.tanh(x)", "tl.extra.libdevice.tanh(x)",
                     "libdevice.tanh(x)", "cuda_ld.tanh(x)", "ld_tanh(x)"]:
        k = jit_from_source(f"""
            from tilec.language.extra import libdevice
            import tilec.language.extra.cuda.libdevice as cuda_ld
            from tilec.language.extra.libdevice import tanh as ld_tanh


            @triton.jit
            def kernel(X, Z):
                x = tl.load(X + tl.arange(0, 4))
                tl.store(Z + tl.arange(0, 4), {spelling})
            """)
        x = np.array([-1, 0, 0.5, 3], F32)
        z = np.zeros(4, F32)
        k[(1,)](x, z)
        check("tanh", z, [x], np.tanh(x.astype(F64)).astype(F32), 2)


def test_libdevice_exp_is_not_tl_exp():
    # libdevice.exp is accurate where tl.exp (ex2.approx of x log2 e on the GPU, which
    # loses the product's low bits) is not: e^80 to 2 ulp (CUDA's expf bound).
    x = np.array([80.0, -80.0, 88.5, 1e-8], F32)
    check("exp", run("exp", x), [x], np.exp(x.astype(F64)).astype(F32), 2)


# Bessel functions at points on both sides of the series / asymptotic switch (12 for J and
# Y, 20 for I); reference values from mpmath (50 digits, rounded to double).
BESSEL_X = [0.1, 1.0, 2.5, 7.0, 11.5, 12.5, 30.0]
BESSEL = {
    "j0": [0.99750156206604, 0.7651976865579666, -0.048383776468198, 0.3000792705195556,
           -0.06765394811166522, 0.1468840547004211, -0.08636798358104021],
    "j1": [0.049937526036242, 0.4400505857449335, 0.49709410246427405, -0.004682823482345833,
           -0.22837862066532347, -0.16548380461475973, -0.11875106261662294],
    "y0": [-1.5342386513503667, 0.08825696421567696, 0.4980703596152319,
           -0.025949743967209265, -0.22523211169118787, -0.1712143068446693,
           -0.11729573168666403],
    "y1": [-6.4589510947020266, -0.7812128213002887, 0.1459181379667858, -0.30266723702418485,
           0.057942547143000823, -0.1538382565375012, 0.08442557066174723],
    "cyl_bessel_i0": [1.0025015629340956, 1.2660658777520084, 3.289839144050123,
                      168.5939085102897, 11746.141518920069, 30596.335155785153,
                      781672297823.9775],
    "cyl_bessel_i1": [0.050062526047092694, 0.565159103992485, 2.5167162452886984,
                      156.03909286995545, 11223.209738510568, 29345.74964207113,
                      768532038938.957],
}


@pytest.mark.parametrize("fn", sorted(BESSEL))
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_bessel(fn, dt):
    odd = fn in ("j1", "cyl_bessel_i1")
    pos = np.array(BESSEL_X)
    # x, -x (J and I are even or odd; Y is NaN below 0), 0, +-inf, NaN
    x = np.concatenate([pos, -pos, [0.0, np.inf, -np.inf, np.nan], np.zeros(14)]).astype(dt)
    want = np.array(BESSEL[fn])
    if fn[0] == "y":
        neg = np.full(7, np.nan)
        special = [-np.inf, 0.0, np.nan, np.nan]
    elif fn[0] == "j":
        neg = -want if odd else want
        special = [0.0 if odd else 1.0, 0.0, 0.0, np.nan]
    else:
        neg = -want if odd else want
        special = [0.0 if odd else 1.0, np.inf, -np.inf if odd else np.inf, np.nan]
    y = run(fn, x)
    got, exp = y[:18].astype(np.float64), np.concatenate([want, neg, special])
    rtol = 1e-9 if dt == np.float64 else 2e-6
    np.testing.assert_allclose(got, exp, rtol=rtol, atol=rtol * 1e-2, equal_nan=True)
