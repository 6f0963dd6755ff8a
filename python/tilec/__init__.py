"""tilec: the Triton kernel language, compiled by a C++ front end.

`import tilec as triton; import tilec.language as tl` runs existing Triton kernels: on
NVIDIA GPUs (torch CUDA tensors and other GPU arrays) through tilec's own code generator,
and on the CPU tile interpreter (numpy arrays, CPU torch tensors)."""

from . import _C
from .errors import CompilationError, CudaError, KernelError, OutOfResources, TilecError
from .jit import JITFunction, KernelInterface, jit
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .compiler import CompiledKernel
from . import backends, language, runtime, testing, tools
from ._allocation import set_allocator
from ._gpu import synchronize
from ._introspect import compile
from ._as_triton import install as install_as_triton

__version__ = _C.__version__


def cdiv(x, y):
    """Ceiling division: the number of blocks of size y that cover x."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    n = int(n)
    if n <= 1:
        return 1
    return 1 << (n - 1).bit_length()


__all__ = ["jit", "JITFunction", "KernelInterface", "Config", "autotune", "Autotuner",
           "heuristics", "Heuristics", "cdiv", "next_power_of_2", "CompilationError",
           "KernelError", "TilecError", "CompiledKernel", "language", "testing",
           "CudaError", "OutOfResources", "synchronize", "compile", "runtime", "backends",
           "tools", "set_allocator", "install_as_triton",
           "__version__"]
