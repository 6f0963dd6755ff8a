"""Host-side stand-ins for the language's builtins. The list of names comes from the C++
builtin table (`_C.builtin_names()`), so it lives in one place."""

from __future__ import annotations


def _display(qualified: str) -> str:
    return qualified if qualified.startswith("libdevice.") else "tl." + qualified


def make_stub(qualified: str):
    """A function named like the builtin that explains it only works inside kernels."""

    def stub(*args, **kwargs):
        raise RuntimeError(f"{_display(qualified)} can only be called inside a @jit function")

    stub.__name__ = qualified.rsplit(".", 1)[-1]
    stub.__qualname__ = qualified
    stub.__doc__ = f"{_display(qualified)}: a builtin of the kernel language (see docs/LANGUAGE.md)."
    stub._tilec_builtin = qualified
    return stub


def builtin_names():
    """(top-level names, math names) of the C++ builtin table."""
    from .. import _C

    top, math = [], []
    for name in _C.builtin_names():
        if name.startswith("math."):
            math.append(name[len("math."):])
        elif "." not in name:
            top.append(name)
    return top, math


def libdevice_names():
    """The libdevice functions of the C++ builtin table (their own namespace)."""
    from .. import _C

    p = "libdevice."
    return [n[len(p):] for n in _C.builtin_names() if n.startswith(p)]


def install(namespace: dict, names, prefix: str = "") -> None:
    for name in names:
        if name not in namespace and name.isidentifier():
            namespace[name] = make_stub(prefix + name)
