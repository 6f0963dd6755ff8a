"""The drop-in switch: `import triton...` resolves to tilec.

`install()` puts a finder first on `sys.meta_path` that answers every `triton` and
`triton.X.Y` import with the module `tilec.X.Y` itself (one object under two names, so
`triton.language is tilec.language` and isinstance checks agree). A `triton` module
already imported is left alone in sys.modules only if it is tilec; a real Triton imported
before the switch is an error (its objects would mix with tilec's).

The start-up hook (`tilec-as-triton.pth`, installed beside the package) calls `install()`
in every Python process whose environment has `TILEC_AS_TRITON` set to a true value, so
child processes (Inductor's compile workers, pytest-xdist workers) follow their parent.
With the variable unset the hook does nothing, and a real Triton installed beside tilec is
untouched. The hook loads this file alone, as the module `_tilec_as_triton`, so that a
process which never imports triton does not pay for importing tilec: this file imports
nothing from tilec, and the finder is recognised by a marker attribute, not by identity,
since the file may be loaded under both names."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_PREFIX = "triton"
_NATIVE = "triton._C.libtriton"
_FALSE = ("", "0", "false", "off", "no")


def env_requests_switch(environ=None) -> bool:
    """Whether TILEC_AS_TRITON asks for the switch (the flag rule of docs/ENV.md)."""
    v = (environ if environ is not None else os.environ).get("TILEC_AS_TRITON", "")
    return v.strip().lower() not in _FALSE


class _TritonAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `triton[.X...]` as `tilec[.X...]`; every other name is not ours."""

    tilec_triton_alias = True

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _PREFIX and not fullname.startswith(_PREFIX + "."):
            return None
        real = "tilec" + fullname[len(_PREFIX):]
        if fullname == _NATIVE or fullname.startswith(_NATIVE + "."):
            # Triton's native module: its Python-facing parts (the cuBLAS binding of
            # tutorial 09) live in tilec._libtriton
            real = "tilec._libtriton" + fullname[len(_NATIVE):]
        try:
            found = importlib.util.find_spec(real)
        except ModuleNotFoundError:
            found = None
        if found is None:
            return None  # an ImportError naming triton.X, as with a module Triton lacks
        spec = importlib.machinery.ModuleSpec(fullname, self, origin=found.origin,
                                              is_package=found.submodule_search_locations
                                              is not None)
        spec.loader_state = real
        return spec

    def create_module(self, spec):
        module = importlib.import_module(spec.loader_state)
        native = sys.modules.get("tilec._C")
        if native is not None and not hasattr(native, "__path__"):
            native.__path__ = []  # a package, so that triton._C.libtriton imports below it
        # Alias the tilec submodules already loaded too: importing one later under its
        # triton name would make the import system set it as an attribute of its parent,
        # over a name the parent binds to something else (triton.runtime.driver is the
        # DriverConfig object, not the module).
        real, n = spec.loader_state, len(spec.loader_state)
        for name, m in list(sys.modules.items()):
            if name.startswith(real + "."):
                sys.modules.setdefault(spec.name + name[n:], m)
        return module

    def exec_module(self, module):
        pass  # the tilec module ran when create_module imported it


_finder = _TritonAlias()


def _ours(f) -> bool:
    return getattr(f, "tilec_triton_alias", False) is True


def installed() -> bool:
    return any(_ours(f) for f in sys.meta_path)


def install() -> None:
    """Makes later `import triton...` statements in this process resolve to tilec, and
    puts TILEC_AS_TRITON=1 in os.environ so that processes it starts do the same."""
    already = sys.modules.get(_PREFIX)
    if already is not None and not getattr(already, "__name__", "").startswith("tilec"):
        raise RuntimeError(
            "tilec.install_as_triton(): a real 'triton' module was imported before the switch "
            f"({getattr(already, '__file__', already)!r}); call it (or set TILEC_AS_TRITON=1) "
            "before anything imports triton")
    if not installed():
        sys.meta_path.insert(0, _finder)
    os.environ["TILEC_AS_TRITON"] = "1"


def uninstall() -> None:
    """Undoes install(): removes the finder and forgets the `triton` modules it made (tests
    use it; code that already holds those modules keeps them)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not _ours(f)]
    for name in [n for n in sys.modules if n == _PREFIX or n.startswith(_PREFIX + ".")]:
        if getattr(sys.modules[name], "__name__", "").startswith("tilec"):
            del sys.modules[name]
    os.environ.pop("TILEC_AS_TRITON", None)


def startup_hook() -> None:
    """What tilec-as-triton.pth runs at interpreter start-up."""
    if env_requests_switch():
        install()
