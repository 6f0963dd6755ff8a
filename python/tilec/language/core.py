"""The objects of the `tl` namespace that exist on the host: dtypes, constexpr, the loop
classes and placeholders. Kernels never execute these: the C++ front end reads the
kernel's source. They exist so that host code (annotations, `tl.constexpr` globals,
dtype arguments, isinstance checks) works as it does with Triton."""

from __future__ import annotations

import enum


class const:
    """Annotates a pointer parameter as pointing to constant data (`in_ptr: tl.const`):
    storing through it, or through a pointer computed from it, is a CompilationError, and
    it does not join with a plain pointer (the two branches of an `if`, a conditional
    expression, a function's returns)."""


class constexpr:
    """Marks a compile-time parameter (`BLOCK: tl.constexpr`) or wraps a compile-time
    value (`ROWS = tl.constexpr(4)` at module level, usable inside kernels)."""

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, other):
        return self.value == (other.value if isinstance(other, constexpr) else other)

    def __bool__(self):
        return bool(self.value)

    def __index__(self):
        return self.value.__index__()

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __str__(self):
        return str(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)


class constexpr_type:
    """The type of a compile-time value (Triton's `tl.constexpr_type`): inside a kernel
    `x.type` of a constexpr `x` is `constexpr_type(x)`, equal to another exactly when the
    values are (`tl.static_assert(x.type == tl.constexpr_type(4))`, `isinstance(x.type,
    tl.constexpr_type)`). The kernel's uses compile to the builtin of that name."""

    _tilec_builtin = "constexpr_type"

    def __init__(self, value):
        self.value = value.value if isinstance(value, constexpr) else value

    def __eq__(self, other):
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self):
        return hash(("constexpr_type", self.value))

    def __repr__(self):
        return f"constexpr_type[{self.value!r}]"


class dtype:
    """A scalar element type. `str(tl.float16) == 'fp16'`, as in Triton. The class lists and
    queries are Triton's, so host code that inspects dtypes runs unchanged. fp8e4b8 and
    fp8e5b16 (AMD's) exist on the host (Triton's tests name them); kernels reject them."""

    SINT_TYPES = ["int8", "int16", "int32", "int64"]
    UINT_TYPES = ["int1", "uint8", "uint16", "uint32", "uint64"]
    FP_TYPES = ["fp8e4b15", "fp8e4nv", "fp8e4b8", "fp8e5", "fp8e5b16", "fp16", "bf16", "fp32",
                "fp64"]
    # Triton's fp8 types of AMD GPUs exist on the host; tilec's compiler has no such
    # element type
    UNSUPPORTED_TYPES = ["fp8e4b8", "fp8e5b16"]
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]

    class SIGNEDNESS(enum.Enum):
        SIGNED = 0
        UNSIGNED = 1

    class KIND(enum.Enum):
        BOOLEAN = 0
        INTEGRAL = 1
        FLOATING = 2

    # Triton name -> (Tile IR name, bit width, mantissa bits, exponent bias)
    _INFO = {
        "int1": ("i1", 1, 0, 0), "int8": ("i8", 8, 0, 0), "int16": ("i16", 16, 0, 0),
        "int32": ("i32", 32, 0, 0), "int64": ("i64", 64, 0, 0), "uint8": ("u8", 8, 0, 0),
        "uint16": ("u16", 16, 0, 0), "uint32": ("u32", 32, 0, 0), "uint64": ("u64", 64, 0, 0),
        "fp8e4b15": ("fp8e4b15", 8, 3, 15), "fp8e4nv": ("fp8e4nv", 8, 3, 7),
        "fp8e4b8": ("fp8e4b8", 8, 3, 8), "fp8e5": ("fp8e5", 8, 2, 15),
        "fp8e5b16": ("fp8e5b16", 8, 2, 16), "fp16": ("fp16", 16, 10, 15),
        "bf16": ("bf16", 16, 7, 127), "fp32": ("fp32", 32, 23, 127),
        "fp64": ("fp64", 64, 52, 1023), "void": ("void", 0, 0, 0),
    }

    def __init__(self, name: str):
        if isinstance(name, constexpr):
            name = name.value
        name = str(name)
        if name not in self._INFO:
            raise ValueError(f"unknown dtype '{name}'")
        self.name = name
        self._ir_name, self.primitive_bitwidth, mantissa, bias = self._INFO[name]
        self.itemsize = self.primitive_bitwidth // 8
        self.fp_mantissa_width = mantissa
        if name in self.FP_TYPES:
            self.exponent_bias = bias
        if self.is_int():
            self.int_bitwidth = self.primitive_bitwidth
            self.int_signedness = (dtype.SIGNEDNESS.SIGNED if name in self.SINT_TYPES
                                   else dtype.SIGNEDNESS.UNSIGNED)

    # kind queries, as Triton names them
    def is_floating(self):
        return self.name in dtype.FP_TYPES

    def is_standard_floating(self):
        return self.name in dtype.STANDARD_FP_TYPES

    def is_int(self):
        return self.name in dtype.SINT_TYPES or self.name in dtype.UINT_TYPES

    def is_int_signed(self):
        return self.name in dtype.SINT_TYPES

    def is_int_unsigned(self):
        return self.name in dtype.UINT_TYPES

    def is_bool(self):
        return self.name == "int1"

    def is_fp8(self):
        return self.name.startswith("fp8")

    def kind(self):
        """BOOLEAN < INTEGRAL < FLOATING, the order Triton's promotion follows."""
        if self.is_bool():
            return dtype.KIND.BOOLEAN
        return dtype.KIND.INTEGRAL if self.is_int() else dtype.KIND.FLOATING

    def get_int_max_value(self):
        if not self.is_int():
            raise TypeError(f"{self} is not an integer type")
        bits = self.int_bitwidth
        return (1 << (bits - 1)) - 1 if self.is_int_signed() else (1 << bits) - 1

    def get_int_min_value(self):
        if not self.is_int():
            raise TypeError(f"{self} is not an integer type")
        return -(1 << (self.int_bitwidth - 1)) if self.is_int_signed() else 0

    @staticmethod
    def is_dtype(type_str) -> bool:
        return type_str in dtype._INFO

    def is_void(self):
        return self.name == "void"

    def is_ptr(self):
        return False

    def is_block(self):
        return False

    def is_const(self):
        return False

    @property
    def scalar(self):
        return self

    def codegen_name(self):
        if self.name.startswith("fp"):
            return "float" + self.name[2:]
        if self.name.startswith("bf"):
            return "bfloat" + self.name[2:]
        return self.name

    def mangle(self) -> str:
        """The short spelling Triton's name mangling uses (i32, u8, fp16, ...)."""
        if self.is_int():
            return ("i" if self.is_int_signed() else "u") + str(self.int_bitwidth)
        return "V" if self.is_void() else self.name

    @property
    def cache_key_part(self) -> str:
        return self.name

    def unsupported_reason(self):
        """Why a kernel cannot use this dtype (Triton's fp8 types of other GPUs), else None."""
        if self.name not in dtype.UNSUPPORTED_TYPES:
            return None
        return (f"type {self.name} not supported in this architecture: tilec's fp8 types are "
                f"fp8e4nv, fp8e5 and fp8e4b15 ({self.name} is Triton's fp8 type of AMD GPUs)")

    @property
    def ir_type(self) -> str:
        """The Tile IR spelling ("fp16", "i32", "ptr<fp32>") handed to the compiler."""
        reason = self.unsupported_reason()
        if reason is not None:
            raise TypeError(reason)
        return self._ir_name

    def __eq__(self, other):
        if isinstance(other, constexpr):
            other = other.value
        return isinstance(other, dtype) and type(other) is type(self) and \
            other.name == self.name

    def __hash__(self):
        return hash((type(self).__name__, self.name))

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"triton.language.{self.codegen_name()}"


# is_fp16(), is_uint8(), is_fp8e4nv(), ...: one query per type, as Triton has them
for _n in dtype._INFO:
    if _n != "void":
        setattr(dtype, "is_" + _n, (lambda n: lambda self: self.name == n)(_n))
del _n


class pointer_type(dtype):
    """A pointer to `element_ty` in global memory (`Out.dtype` of a pointer argument)."""

    def __init__(self, element_ty: dtype, address_space: int = 1, const: bool = False):
        if not isinstance(element_ty, dtype):
            raise TypeError(f"pointer_type expects a dtype, got {element_ty!r}")
        self.element_ty = element_ty
        self.address_space = address_space
        self.const = const
        self.name = f"const_pointer<{element_ty}>" if const else f"pointer<{element_ty}>"
        self.primitive_bitwidth = 64
        self.itemsize = 8
        self.fp_mantissa_width = 0
        self._ir_name = f"ptr<{element_ty.ir_type}>"

    def is_ptr(self):
        return True

    def is_floating(self):
        return False

    def is_int(self):
        return False

    def is_int_signed(self):
        return False

    def is_int_unsigned(self):
        return False

    def is_bool(self):
        return False

    def is_fp8(self):
        return False

    def is_standard_floating(self):
        return False

    def is_const(self):
        return self.const

    def __eq__(self, other):
        return isinstance(other, pointer_type) and other.element_ty == self.element_ty and \
            other.const == self.const

    def __hash__(self):
        return hash(("pointer_type", self.element_ty.name, self.const))

    def __repr__(self):
        return self.name


class block_type(dtype):
    """A tile type: element type and shape (host-side description only)."""

    def __init__(self, element_ty: dtype, shape):
        self.element_ty = element_ty
        self.shape = tuple(int(s) for s in shape)
        self.numel = 1
        for s in self.shape:
            self.numel *= s
        self.name = f"<{self.shape}, {element_ty}>"
        self.primitive_bitwidth = element_ty.primitive_bitwidth
        self.itemsize = element_ty.itemsize
        self.fp_mantissa_width = element_ty.fp_mantissa_width
        self._ir_name = "tile<" + "x".join(map(str, self.shape)) + f"x{element_ty.ir_type}>"

    def is_block(self):
        return True

    @property
    def scalar(self):
        return self.element_ty

    def __eq__(self, other):
        return isinstance(other, block_type) and other.element_ty == self.element_ty and \
            other.shape == self.shape

    def __hash__(self):
        return hash(("block_type", self.element_ty.name, self.shape))


void = dtype("void")
int1 = dtype("int1")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float8e4b15 = dtype("fp8e4b15")
float8e4nv = dtype("fp8e4nv")
float8e4b8 = dtype("fp8e4b8")
float8e5 = dtype("fp8e5")
float8e5b16 = dtype("fp8e5b16")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
pi32_t = pointer_type(int32)

DTYPES = (int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float8e4nv, float8e5,
          float16, bfloat16, float32, float64)


# -- host helpers Triton's language module has ---------------------------------------------

def _unwrap_if_constexpr(o):
    """The value of a constexpr (element-wise in lists and tuples); anything else as is."""
    if isinstance(o, list):
        return [_unwrap_if_constexpr(x) for x in o]
    if isinstance(o, tuple):
        return tuple(_unwrap_if_constexpr(x) for x in o)
    return o.value if isinstance(o, constexpr) else o


def get_int_dtype(bitwidth: int, signed: bool) -> dtype:
    """int1, int8..int64 or uint8..uint64."""
    if bitwidth == 1:
        return int1
    name = f"{'' if signed else 'u'}int{bitwidth}"
    if name not in dtype._INFO:
        raise ValueError(f"no {'signed' if signed else 'unsigned'} integer type of "
                         f"{bitwidth} bits")
    return dtype(name)


def builtin(fn):
    """Marks a function as a builtin of the language (Triton's decorator). tilec's builtins
    are compiled from the C++ table; a Python function marked here is not one of them, and
    calling it on the host runs it."""
    fn.__triton_builtin__ = True
    return fn


def must_use_result(x, s=True):
    """Marks a @jit function whose result must be used: a call of it as a statement of its
    own (its value dropped) is a compile error, "The result of f is not being used.", followed
    by `s` when it is a string (Triton's decorator)."""
    if isinstance(x, str):
        return lambda fn: must_use_result(fn, x)
    x._must_use_result = s
    return x


# Triton's signature type names -> dtypes ("u1" and "i1" are both int1)
_SIGNATURE_TYPES = {"i1": "int1", "u1": "int1", "B": "int1", "i8": "int8", "i16": "int16",
                    "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16",
                    "u32": "uint32", "u64": "uint64", "fp8e4nv": "fp8e4nv", "fp8e5": "fp8e5",
                    "fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "fp64": "fp64"}


def str_to_ty(name: str, c=None) -> dtype:
    """The dtype of a Triton signature type: "fp32" -> float32, "*fp16" -> pointer to
    float16 ("*k" a const one). `c` is Triton's constexpr value for "constexpr", which tilec
    has no host type for."""
    if name.startswith("*"):
        const = name.startswith("*k")
        return pointer_type(str_to_ty(name[2 if const else 1:], c), const=const)
    if name not in _SIGNATURE_TYPES:
        raise KeyError(f"no tilec dtype for the signature type {name!r}")
    return dtype(_SIGNATURE_TYPES[name])


def _dtype_from_ir(ir_name: str) -> dtype:
    """The dtype the compiler spells `ir_name` ("fp16", "i32", "ptr<fp32>"): Tile IR's
    element names are the signature's, a pointer "ptr<T>" is "*T"."""
    if ir_name.startswith("ptr<") and ir_name.endswith(">"):
        return pointer_type(_dtype_from_ir(ir_name[4:-1]))
    return str_to_ty(ir_name)


def is_constexpr_annotation(annotation) -> bool:
    """True for `tl.constexpr` (also spelled as a string under `from __future__ import
    annotations`, e.g. "tl.constexpr" or "triton.language.constexpr")."""
    if annotation is constexpr:
        return True
    if isinstance(annotation, str):
        return annotation.strip().split(".")[-1] == "constexpr"
    return False


class PropagateNan:
    """How tl.maximum / tl.minimum treat NaN: NONE (the non-NaN operand wins) or ALL."""

    NONE = 0x0000
    ALL = 0xFFFF


class tensor:
    """The type of a value inside a kernel. On the host it is only a name: kernels are
    compiled from source, never executed by Python."""

    def __init__(self, *args, **kwargs):
        raise TypeError("tl.tensor values exist only inside a @jit function")


class tensor_descriptor_base:
    """The type of a tensor descriptor inside a kernel (`tl.make_tensor_descriptor`, or a
    parameter given a host `TensorDescriptor`). On the host it is only a name, for
    `isinstance(x, tl.tensor_descriptor)` in kernels."""

    def __init__(self, *args, **kwargs):
        raise TypeError(f"tl.{type(self).__name__} values exist only inside a @jit function "
                        "(make one with tl.make_tensor_descriptor, or pass a "
                        "triton.tools.tensor_descriptor.TensorDescriptor)")


class tensor_descriptor(tensor_descriptor_base):
    """A descriptor of a tensor in global memory (see tensor_descriptor_base)."""


class _LoopRange:
    _name = "range"

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 **kwargs):
        if arg2 is None:
            self.start, self.end = 0, arg1
        else:
            self.start, self.end = arg1, arg2
        self.step = 1 if step is None else step
        self.num_stages = num_stages
        self.loop_unroll_factor = loop_unroll_factor

    def __iter__(self):
        raise RuntimeError(f"tl.{self._name} can only be iterated inside a @jit function")


class range(_LoopRange):  # noqa: A001 - Triton's name
    """`for i in tl.range(lo, hi, step, num_stages=...)`: a run-time loop in a kernel."""

    _name = "range"


class static_range(_LoopRange):
    """`for i in tl.static_range(lo, hi, step)`: a loop unrolled at compile time."""

    _name = "static_range"


# The language's builtins (tl.load, tl.tuple, ...) as `tl.core.<name>`, filled by the
# package; looked up only for names this module does not define.
_BUILTINS = {}


def __getattr__(name):
    try:
        return _BUILTINS[name]
    except KeyError:
        raise AttributeError(f"module 'tilec.language.core' has no attribute '{name}'") from None
