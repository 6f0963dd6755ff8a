"""`triton.runtime.interpreter`: Triton's interpreter mode wraps @jit functions in an
InterpretedFunction that runs their Python body. tilec interprets the compiled Tile IR of an
ordinary JITFunction instead (TRITON_INTERPRET / TILEC_INTERPRET), so no function is an
InterpretedFunction; the class exists for code that tests for it."""

from ..jit import JITFunction


class InterpretedFunction(JITFunction):
    """Never made by tilec's @jit (see the module's docstring)."""


__all__ = ["InterpretedFunction"]
