"""`triton.runtime`: the active driver (`triton.runtime.driver.active`) and the names user
code imports from Triton's runtime modules (JITFunction, Autotuner, Config, Heuristics,
OutOfResources, reinterpret, ...)."""

from .._tensors import MockTensor, TensorWrapper, reinterpret
from ..autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from ..errors import InterpreterError, OutOfResources
from ..jit import JITFunction, KernelInterface
from . import _allocation, _async_compile, autotuner, cache, errors, jit
from .driver import driver

__all__ = ["driver", "JITFunction", "KernelInterface", "Autotuner", "Config", "Heuristics",
           "autotune", "heuristics", "OutOfResources", "InterpreterError", "MockTensor",
           "TensorWrapper", "reinterpret", "autotuner", "cache", "errors", "jit", "_allocation"]
