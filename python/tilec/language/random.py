"""`tl.random`: Triton's random-number module (philox, rand, randn, randint, ...). Host-side
stubs: the builtins are compiled from the kernel's source (BuiltinsRandom.cpp)."""

from . import _stubs

_RANDOM = ("philox", "philox_impl", "randint", "randint4x", "rand", "rand4x", "randn", "randn4x",
           "uint_to_uniform_float", "pair_uniform_to_normal")
_stubs.install(globals(), [n for n in _stubs.builtin_names()[0] if n in _RANDOM])
