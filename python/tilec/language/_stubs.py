"""Host-side stand-ins for the language's builtins. The list of names comes from the C++
builtin table (`_C.builtin_names()`), so it lives in one place."""

from __future__ import annotations


# builtins with a namespace of their own (prefix of their C++ table name -> shown as)
_OWN_NAMESPACES = {"libdevice.": "libdevice.", "cuda.": "tl.extra.cuda."}


def _display(qualified: str) -> str:
    for prefix, shown in _OWN_NAMESPACES.items():
        if qualified.startswith(prefix):
            return shown + qualified[len(prefix):]
    return "tl." + qualified


def has_own_namespace(qualified: str) -> bool:
    """Whether the C++ table knows this builtin by its prefixed name ("libdevice.exp")."""
    return qualified.startswith(tuple(_OWN_NAMESPACES))


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


def prefixed_names(prefix: str):
    """The builtins of the C++ table in namespace `prefix` ("libdevice.", "cuda."), unprefixed."""
    from .. import _C

    return [n[len(prefix):] for n in _C.builtin_names() if n.startswith(prefix)]


def libdevice_names():
    """The libdevice functions of the C++ builtin table (their own namespace)."""
    return prefixed_names("libdevice.")


def install(namespace: dict, names, prefix: str = "") -> None:
    for name in names:
        if name not in namespace and name.isidentifier():
            namespace[name] = make_stub(prefix + name)
