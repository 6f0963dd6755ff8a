"""libdevice (`triton.language.extra.libdevice`): CUDA's math library as kernel builtins.
Host-side stubs; the functions are composed by the C++ front end (docs/LANGUAGE.md), and
their names come from its table (`_C.builtin_names()`, prefix "libdevice.")."""

from .. import _stubs

_stubs.install(globals(), _stubs.libdevice_names(), "libdevice.")

__all__ = [n for n in globals() if not n.startswith("_")]
