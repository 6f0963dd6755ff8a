"""`triton.runtime.errors`: the run-time errors under Triton's module name (defined once, in
tilec/errors.py)."""

from ..errors import (AutotunerError, CompilationError, InterpreterError, OutOfResources,
                      PTXASError, TilecError, TritonError)

__all__ = ["AutotunerError", "CompilationError", "InterpreterError", "OutOfResources",
           "PTXASError", "TilecError", "TritonError"]
