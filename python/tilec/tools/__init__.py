"""`triton.tools`: host-side helpers: `tensor_descriptor` (TensorDescriptor), `mxfp`
(microscaling tensors; imported on demand, it needs torch) and `access_map` (which program
touched each element, from the interpreter; imported on demand)."""

from . import tensor_descriptor

__all__ = ["tensor_descriptor"]
