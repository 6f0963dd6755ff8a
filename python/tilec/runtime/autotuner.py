"""`triton.runtime.autotuner`: tilec's autotuner under Triton's module name, with the errors
Triton's module exports beside it."""

from ..autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from ..errors import AutotunerError, OutOfResources, PTXASError
from ..jit import KernelInterface

__all__ = ["Autotuner", "Config", "Heuristics", "autotune", "heuristics", "OutOfResources",
           "PTXASError", "AutotunerError", "KernelInterface"]
