"""A module reached through another user module (user_helpers.inner)."""

import tilec


@tilec.jit
def twice(x):
    return x * 2
