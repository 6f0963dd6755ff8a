"""`triton.runtime.errors`: the launch-time errors under Triton's module name."""

from ..errors import CompilationError, OutOfResources, TilecError

__all__ = ["CompilationError", "OutOfResources", "TilecError"]
