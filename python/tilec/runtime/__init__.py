"""`triton.runtime`: the active driver (`triton.runtime.driver.active`) and the names user
code imports from Triton's runtime modules (JITFunction, Autotuner, Config, Heuristics,
OutOfResources, ...)."""

from ..autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from ..errors import OutOfResources
from ..jit import JITFunction, KernelInterface
from . import autotuner, errors, jit
from .driver import driver

__all__ = ["driver", "JITFunction", "KernelInterface", "Autotuner", "Config", "Heuristics",
           "autotune", "heuristics", "OutOfResources", "autotuner", "errors", "jit"]
