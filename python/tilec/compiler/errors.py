"""`triton.compiler.errors`: the compile errors (defined once, in tilec/errors.py)."""

from ..errors import (CompilationError, CompileTimeAssertionFailure, TritonError,
                      UnsupportedLanguageConstruct)

__all__ = ["CompilationError", "CompileTimeAssertionFailure", "TritonError",
           "UnsupportedLanguageConstruct"]
