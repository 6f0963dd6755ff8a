"""`triton.tools`: host-side helpers: `tensor_descriptor` (TensorDescriptor) and `mxfp`
(microscaling tensors; imported on demand, it needs torch)."""

from . import tensor_descriptor

__all__ = ["tensor_descriptor"]
