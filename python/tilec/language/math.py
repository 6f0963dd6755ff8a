"""`tl.math`: the language's math functions (host-side stubs; see tilec.language)."""

from . import _stubs

_top, _math = _stubs.builtin_names()
_stubs.install(globals(), _math, "math.")
del _top, _math
