"""Helpers for the language suites (test_lang_*.py, test_invalid_kernels.py).

- dtype tables and Triton's type-promotion rules, written out so that numpy references
  can compute the dtype a kernel's expression must have;
- bf16 and fp16 conversions with explicit rounding (numpy has no bf16: bf16 values are
  held as float32 arrays and passed to kernels as uint16 bit patterns);
- kernels generated from source text (one per dtype combination), imported from real
  files so that @jit can read their source;
- locating the line of a `# ERR:<tag>` marker and checking a CompilationError's place.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import textwrap

import numpy as np

import tilec as triton  # noqa: F401  (generated kernels import it themselves)

# The suites run on the GPU (gpu_lang_plugin, test_gpu_lang_suites.py): GPU semantics where
# Triton's differ from the exact ones (fp32 `/` is div.full.f32, within 2 ulp).
ON_GPU = os.environ.get("TILEC_TEST_ON_GPU", "0") not in ("", "0")

SINT = ["int8", "int16", "int32", "int64"]
UINT = ["uint8", "uint16", "uint32", "uint64"]
INTS = SINT + UINT
FLOATS = ["float16", "bfloat16", "float32", "float64"]
ALL_DTYPES = INTS + FLOATS

# Triton's short names (str(tl.float16) == 'fp16'), for messages only.
SHORT = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64"}


class PromotionError(Exception):
    """Triton rejects the operand types (e.g. // on floats, / on mixed signedness)."""


def is_int(name: str) -> bool:
    return name in INTS or name == "int1"


def is_signed(name: str) -> bool:
    return name in SINT


def is_float(name: str) -> bool:
    return name in FLOATS


def bitwidth(name: str) -> int:
    if name == "int1":
        return 1
    if name == "bfloat16":
        return 16
    return np.dtype(name).itemsize * 8


def _kind(name: str) -> int:
    # bool < integer < floating, as Triton's dtype.kind() orders them
    if name == "int1":
        return 0
    return 1 if is_int(name) else 2


def integer_promote(a: str, b: str) -> str:
    """C's usual arithmetic conversions between two integer types."""
    ra, rb = bitwidth(a), bitwidth(b)
    sa, sb = is_signed(a), is_signed(b)
    if sa == sb:
        return a if ra > rb else b
    if not sa:  # a unsigned
        return a if ra >= rb else b
    return b if rb >= ra else a


def computation_type(a: str, b: str, div_or_mod: bool = False, a_scalar: bool = False,
                     b_scalar: bool = False) -> str:
    """The dtype both operands of a binary operator are converted to (Triton's rules).
    A "scalar" here is a Python number (a literal or a constexpr), not a scalar tensor."""
    if a_scalar != b_scalar:
        s, t = (a, b) if a_scalar else (b, a)
        if _kind(s) <= _kind(t):
            if div_or_mod and t in ("float16", "bfloat16"):
                return "float32"
            return t
    if "float64" in (a, b):
        return "float64"
    if "float32" in (a, b):
        return "float32"
    if "float16" in (a, b):
        return "float32" if div_or_mod else "float16"
    if a == "bfloat16" and b == "bfloat16":
        return "float32" if div_or_mod else "bfloat16"
    if "bfloat16" in (a, b):
        return "float32"
    if div_or_mod and is_signed(a) != is_signed(b):
        raise PromotionError(f"/, // or % between {a} and {b} (different signedness)")
    return integer_promote(a, b)


def literal_dtype(v) -> str:
    """The dtype Triton gives a Python number that becomes a tensor."""
    if isinstance(v, bool):
        return "int1"
    if isinstance(v, int):
        if -2**31 <= v < 2**31:
            return "int32"
        if 2**31 <= v < 2**32:
            return "uint32"
        if -2**63 <= v < 2**63:
            return "int64"
        if 2**63 <= v < 2**64:
            return "uint64"
        raise ValueError(v)
    return "float32"


ARITH = ["+", "-", "*"]
DIVMOD = ["/", "//", "%"]
BITWISE = ["&", "|", "^", "<<", ">>"]
COMPARE = ["<", "<=", ">", ">=", "==", "!="]


def result_dtype(op: str, a: str, b: str, a_scalar: bool = False, b_scalar: bool = False) -> str:
    """Result dtype of `a op b` in Triton, or PromotionError where Triton rejects it."""
    if op in BITWISE:
        if not (is_int(a) and is_int(b)):
            raise PromotionError(f"bitwise {op} on {a} and {b}")
        ct = computation_type(a, b, False, a_scalar, b_scalar)
        return ct
    if op in COMPARE:
        computation_type(a, b, False, a_scalar, b_scalar)
        return "int1"
    ct = computation_type(a, b, op in DIVMOD, a_scalar, b_scalar)
    if op == "/":
        return "float32" if is_int(ct) else ct
    if op == "//" and not is_int(ct):
        raise PromotionError(f"// on {a} and {b}")
    return ct


# ---------------------------------------------------------------------------------------
# bf16 / fp16 conversions with explicit rounding


def f32_to_bf16_bits(a, rounding: str = "rtne") -> np.ndarray:
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    if rounding == "rtz":
        r = u >> 16
    else:
        r = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    r = np.where(np.isnan(np.asarray(a, np.float32)), 0x7FC0, r)
    return r.astype(np.uint16)


def bf16_bits_to_f32(b) -> np.ndarray:
    return (np.asarray(b, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def round_bf16(a, rounding: str = "rtne") -> np.ndarray:
    return bf16_bits_to_f32(f32_to_bf16_bits(a, rounding))


def f32_to_f16(a, rounding: str = "rtne") -> np.ndarray:
    a = np.asarray(a, dtype=np.float32)
    with np.errstate(over="ignore"):
        h = a.astype(np.float16)  # numpy rounds to nearest even
    if rounding == "rtz":
        over = np.abs(h.astype(np.float32)) > np.abs(a)
        h = np.where(over, np.nextafter(h, np.float16(0)), h).astype(np.float16)
    return h


def fp8_bits_to_f64(bits, fmt: str) -> np.ndarray:
    """The values of fp8 codes: "e4m3" (float8e4nv: bias 7, no infinities, 0x7f/0xff NaN)
    or "e5m2" (float8e5: bias 15, IEEE-like)."""
    b = np.asarray(bits, dtype=np.uint8).astype(np.int64)
    mb, bias = (3, 7) if fmt == "e4m3" else (2, 15)
    e, m = (b >> mb) & ((1 << (7 - mb)) - 1), b & ((1 << mb) - 1)
    mag = np.where(e == 0, m * 2.0 ** (1 - bias - mb), (1 + m / 2.0 ** mb) * 2.0 ** (e - bias))
    return np.where(b & 0x80, -mag, mag)


def f64_to_fp8_bits(a, fmt: str) -> np.ndarray:
    """The fp8 codes of values fp8 holds exactly (a test's small integers)."""
    codes = np.arange(256, dtype=np.uint8)
    vals = fp8_bits_to_f64(codes, fmt)
    table = {float(v): int(c) for v, c in zip(vals[::-1], codes[::-1]) if np.isfinite(v)}
    flat = np.asarray(a, dtype=np.float64).ravel()
    missing = [v for v in flat if float(v) not in table]
    assert not missing, f"not exact in {fmt}: {missing[:4]}"
    return np.array([table[float(v)] for v in flat], np.uint8).reshape(np.shape(a))


# ---------------------------------------------------------------------------------------
# values, storage and numpy references


def np_storage(name: str):
    """numpy dtype of the array a kernel receives for a tensor of `name`."""
    return np.dtype(np.uint16) if name == "bfloat16" else np.dtype(name)


def np_compute(name: str):
    """numpy dtype holding values of `name` (bf16 values live in float32)."""
    if name == "bfloat16":
        return np.dtype(np.float32)
    if name == "int1":
        return np.dtype(np.bool_)
    return np.dtype(name)


def values(name: str, n: int, rng, nonzero: bool = False, small: bool = False) -> np.ndarray:
    """Values every dtype of the suite represents exactly (ints of int8 range, floats
    that are multiples of 1/4 in [-16, 16]); returned in np_compute(name)."""
    if is_signed(name):
        v = rng.integers(-100 if not small else -8, 101 if not small else 9, n)
    elif is_int(name):
        v = rng.integers(0, 201 if not small else 9, n)
    else:
        v = rng.integers(-64, 65, n) / 4.0
    if nonzero:
        v = np.where(v == 0, 3, v)
    return np.asarray(v).astype(np_compute(name))


def to_storage(v: np.ndarray, name: str) -> np.ndarray:
    if name == "bfloat16":
        return f32_to_bf16_bits(v)
    return np.ascontiguousarray(v, dtype=np_storage(name))


def from_storage(a: np.ndarray, name: str) -> np.ndarray:
    if name == "bfloat16":
        return bf16_bits_to_f32(a)
    return a


def convert(v: np.ndarray, src: str, dst: str) -> np.ndarray:
    """Triton's cast of values `v` of dtype `src` to `dst` (for in-range values), as
    np_compute(dst). Floats to ints truncate; ints wrap."""
    if src == dst:
        return v.astype(np_compute(dst))
    if dst == "int1":
        return v != 0
    if is_int(dst) and is_float(src):
        return np.trunc(v.astype(np.float64)).astype(np.int64).astype(np_compute(dst))
    if dst == "bfloat16":
        return round_bf16(v.astype(np.float32))
    if src == "int1":
        return v.astype(np.uint8).astype(np_compute(dst))
    return v.astype(np_compute(dst))


def _c_floordiv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = a // b
    fix = (a % b != 0) & ((a < 0) != (b < 0))
    return np.where(fix, q + 1, q).astype(a.dtype)


def ref_binary(op: str, a: np.ndarray, an: str, b: np.ndarray, bn: str,
               a_scalar: bool = False, b_scalar: bool = False) -> np.ndarray:
    """numpy reference of `a op b` with Triton's conversions; bf16 results are rounded."""
    out = result_dtype(op, an, bn, a_scalar, b_scalar)
    ct = computation_type(an, bn, op in DIVMOD, a_scalar, b_scalar)
    x, y = convert(np.asarray(a), an, ct), convert(np.asarray(b), bn, ct)
    with np.errstate(all="ignore"):
        if op == "+":
            r = x + y
        elif op == "-":
            r = x - y
        elif op == "*":
            r = x * y
        elif op == "/":
            if is_int(ct):
                x, y = x.astype(np.float32), y.astype(np.float32)
            r = x / y
        elif op == "//":
            r = _c_floordiv(x, y)
        elif op == "%":
            r = np.fmod(x, y)
        elif op == "&":
            r = x & y
        elif op == "|":
            r = x | y
        elif op == "^":
            r = x ^ y
        elif op == "<<":
            r = np.left_shift(x, y)
        elif op == ">>":
            # Triton shifts arithmetically or logically by the signedness of the tensor
            # operand before promotion (the left one, unless it is a scalar)
            self_n = bn if a_scalar and not b_scalar else an
            signed = self_n.startswith("int") and self_n != "int1"
            if is_int(ct) and signed != np.issubdtype(x.dtype, np.signedinteger):
                twin = np.dtype(("int" if signed else "uint") + str(x.dtype.itemsize * 8))
                r = np.right_shift(x.view(twin), y.view(twin)).view(x.dtype)
            else:
                r = np.right_shift(x, y)
        else:
            r = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                 "==": np.equal, "!=": np.not_equal}[op](x, y)
    if out == "bfloat16":
        r = round_bf16(r)
    return np.asarray(r).astype(np_compute(out))


# ---------------------------------------------------------------------------------------
# kernel source snippets for generated kernels


def tl_name(name: str) -> str:
    return "tl." + name


def load_src(ptr: str, name: str, extra: str = "") -> str:
    """Source of a load of a tensor of dtype `name` (bf16 is stored as uint16 bits)."""
    s = f"tl.load({ptr}{extra})"
    if name == "bfloat16":
        s += ".to(tl.bfloat16, bitcast=True)"
    return s


def store_src(ptr: str, val: str, name: str, extra: str = "") -> str:
    if name == "bfloat16":
        val = f"({val}).to(tl.uint16, bitcast=True)"
    elif name == "int1":
        val = f"({val}).to(tl.int8)"
    return f"tl.store({ptr}, {val}{extra})"


def out_storage(name: str):
    """Output array dtype for a result of dtype `name` (int1 results are stored as int8)."""
    return np.dtype(np.int8) if name == "int1" else np_storage(name)


_GEN_DIR = tempfile.mkdtemp(prefix="tilec_langtests_")
atexit.register(shutil.rmtree, _GEN_DIR, ignore_errors=True)
_GEN_CACHE: dict = {}
_HEADER = "import tilec as triton\nimport tilec.language as tl\n\n\n"


def jit_from_source(src: str, name: str = "kernel"):
    """Import `src` (dedented, with the tilec imports prepended) from a real file and
    return its attribute `name`. Identical sources share one module (and compilation)."""
    text = _HEADER + textwrap.dedent(src)
    key = hashlib.sha1(text.encode()).hexdigest()[:20]
    mod = _GEN_CACHE.get(key)
    if mod is None:
        path = os.path.join(_GEN_DIR, f"gen_{key}.py")
        with open(path, "w") as f:
            f.write(text)
        spec = importlib.util.spec_from_file_location(f"tilec_langgen_{key}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        _GEN_CACHE[key] = mod
    return getattr(mod, name)


# ---------------------------------------------------------------------------------------
# diagnostics


def marker_line(path: str, tag: str) -> int:
    """Line (1-based) of the unique line of `path` that ends with `# ERR:<tag>`."""
    hits = []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if line.rstrip().endswith(f"# ERR:{tag}"):
                hits.append(i)
    assert len(hits) == 1, f"marker ERR:{tag} found {len(hits)} times in {path}"
    return hits[0]


_LOC_RE = re.compile(r"([^\s:]+\.py):(\d+):(\d+): error")


def error_location(e):
    """(file, line, col) of a tilec error: its attributes, else parsed from str(e)."""
    f, line, col = getattr(e, "file", None), getattr(e, "line", None), getattr(e, "col", None)
    if f is None or line is None:
        m = _LOC_RE.search(str(e))
        if m:
            f, line, col = m.group(1), int(m.group(2)), int(m.group(3))
    return f, line, col


def same_file(a, b) -> bool:
    return a is not None and os.path.realpath(a) == os.path.realpath(b)


# ---- arrays for tensor descriptors (test_lang_tensordesc*.py)

def aligned(shape, dtype, fill=0):
    """A C-contiguous array whose data starts on a 64-byte boundary (a descriptor's base
    must be 16-byte aligned; numpy only promises its dtype's alignment)."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape)) * dtype.itemsize
    raw = np.empty(n + 64, np.uint8)
    start = (-raw.ctypes.data) % 64
    a = raw[start:start + n].view(dtype).reshape(shape)
    a[...] = fill
    return a


def rand(shape, dtype=np.float32, seed=0):
    a = aligned(shape, dtype)
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        a[...] = (rng.integers(-64, 65, shape) / 4.0).astype(dtype)
    else:
        a[...] = rng.integers(-100, 101, shape).astype(dtype)
    return a
