"""`triton.tools`: host-side helpers. Only `tensor_descriptor` exists in tilec."""

from . import tensor_descriptor

__all__ = ["tensor_descriptor"]
