"""`tl.standard`: where Triton defines its library functions written in the language (sum,
max, argmax, cdiv, sigmoid, softmax, sort, ...). In tilec every builtin is one name in the
language namespace; this module offers the same stubs under Triton's module name."""

from . import _stubs

_stubs.install(globals(), _stubs.builtin_names()[0])
