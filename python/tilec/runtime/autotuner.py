"""`triton.runtime.autotuner`: tilec's autotuner under Triton's module name."""

from ..autotuner import Autotuner, Config, Heuristics, autotune, heuristics

__all__ = ["Autotuner", "Config", "Heuristics", "autotune", "heuristics"]
