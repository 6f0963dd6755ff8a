"""A user's module of kernel helpers, as Inductor's `triton_helpers` is: kernels read its
@jit functions and constants as attributes (`user_helpers.max2(x, 1)`)."""

import tilec
import tilec.language as tl

import user_helpers_inner as inner  # noqa: F401 - read as user_helpers.inner.twice

SCALE = tl.constexpr(3)
NOT_FOR_KERNELS = [1, 2]


@tilec.jit
def max2(a, dim):
    return tl.max(a, dim)
