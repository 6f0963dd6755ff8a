"""`triton.language.target_info`: what a kernel is being compiled for, as constexpr
functions a kernel can branch on (`if tl.target_info.cuda_capability_geq(9, 0): ...`) and
host code can call. The answers come from the active driver's current target
(`triton.runtime.driver.active.get_current_target()`): an NVIDIA GPU is backend "cuda" with
its compute capability as `arch`; without one tilec's target is the CPU (backend "cpu"),
where every query here is False."""

from ..jit import constexpr_function

__all__ = ["current_target"]


def current_target():
    """The active driver's GPUTarget, or None when no driver can say."""
    from ..runtime import driver
    try:
        return driver.active.get_current_target()
    except RuntimeError:
        return None


def _backend_is(name):
    target = current_target()
    return target is not None and target.backend == name


@constexpr_function
def is_cuda():
    return _backend_is("cuda")


@constexpr_function
def cuda_capability_geq(major, minor=0):
    """Whether the target is an NVIDIA GPU of compute capability (major, minor) or newer."""
    target = current_target()
    return (target is not None and target.backend == "cuda" and
            int(target.arch) >= major * 10 + minor)


@constexpr_function
def is_hip():
    return _backend_is("hip")


@constexpr_function
def is_hip_cdna3():
    return _backend_is("hip") and current_target().arch == "gfx942"


@constexpr_function
def is_hip_cdna4():
    return _backend_is("hip") and current_target().arch == "gfx950"
