"""Whether the GPU tests can run: torch (None on the CPU-only CI image) and HAVE_GPU (torch
with CUDA, and tilec's driver layer finding a GPU)."""

import tilec._C as _C

try:
    import torch
except ImportError:  # the CPU-only CI image
    torch = None


def _have_gpu():
    if torch is None or not hasattr(_C, "gpu_driver_available"):
        return False
    ok, _ = _C.gpu_driver_available()
    return ok and _C.gpu_device_count() > 0 and torch.cuda.is_available()


HAVE_GPU = _have_gpu()
