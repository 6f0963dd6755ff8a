"""tilec: the Triton kernel language, compiled by a C++ front end.

`import tilec as triton; import tilec.language as tl` runs existing Triton kernels: on
NVIDIA GPUs (torch CUDA tensors and other GPU arrays) through tilec's own code generator,
and on the CPU tile interpreter (numpy arrays, CPU torch tensors). `__version__` is the
Triton release whose surface tilec follows (libraries check it); tilec's own version is
`__tilec_version__`."""

from . import _C
from ._version import TILEC_VERSION as __tilec_version__, TRITON_VERSION as __version__
from .errors import (CompilationError, CudaError, InterpreterError, KernelError, OutOfResources,
                     TilecError, TritonError)
from .jit import JITFunction, KernelInterface, constexpr_function, jit
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .compiler import CompiledKernel, compile
from ._tensors import MockTensor, TensorWrapper, reinterpret
from . import backends, knobs, language, runtime, testing, tools

must_use_result = language.core.must_use_result
from .runtime._allocation import set_allocator
from ._async_compile import AsyncCompileMode, FutureKernel
from ._gpu import synchronize
from ._as_triton import install as install_as_triton


def cdiv(x, y):
    """Ceiling division: the number of blocks of size y that cover x."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    if n <= 1:
        return 1
    return 1 << (n - 1).bit_length()


__all__ = ["jit", "constexpr_function", "JITFunction", "KernelInterface", "Config", "autotune",
           "Autotuner",
           "heuristics", "Heuristics", "cdiv", "next_power_of_2", "CompilationError",
           "KernelError", "TilecError", "TritonError", "InterpreterError", "CompiledKernel",
           "language", "testing", "must_use_result", "CudaError", "OutOfResources", "synchronize", "compile",
           "runtime", "backends", "knobs", "tools", "set_allocator", "install_as_triton",
           "MockTensor", "TensorWrapper", "reinterpret", "__version__", "__tilec_version__",
           "AsyncCompileMode", "FutureKernel"]
