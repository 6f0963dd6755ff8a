"""No module of python/tilec reads a global name it never defines (the kind of slip that
moving code between modules leaves behind, and that only fails when the line runs: stop 32
moved a helper out of a module whose other half still called it, breaking every Inductor
launch on the GPU). Python's own symbol tables decide what each function reads as a
global; a module with a star import is skipped (its names are not known statically)."""

import builtins
import pathlib
import symtable

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "python" / "tilec"
MODULE_NAMES = {"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__",
                "__path__", "__builtins__", "__annotations__", "__dict__"}


def _module_defines(table) -> set:
    return {s.get_name() for s in table.get_symbols()
            if s.is_assigned() or s.is_imported() or s.is_namespace()}


def _global_reads(table):
    """(function or class name, global name) for every global a nested scope reads."""
    for child in table.get_children():
        for s in child.get_symbols():
            if s.is_referenced() and (s.is_global() or s.is_declared_global()) \
                    and not s.is_assigned():
                yield child.get_name(), s.get_name()
        yield from _global_reads(child)


def _sources():
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_global_a_function_reads_is_defined(path):
    text = path.read_text()
    if "import *" in text:
        pytest.skip("a star import: its names are not known statically")
    table = symtable.symtable(text, str(path), "exec")
    known = _module_defines(table) | set(dir(builtins)) | MODULE_NAMES
    missing = sorted({(scope, name) for scope, name in _global_reads(table)
                      if name not in known})
    assert not missing, f"{path.name}: undefined globals (scope, name): {missing}"


def test_the_check_finds_an_undefined_global():
    table = symtable.symtable("import os\n\ndef f():\n    return os.sep + helper(1)\n",
                              "m.py", "exec")
    known = _module_defines(table) | set(dir(builtins))
    assert [n for _, n in _global_reads(table) if n not in known] == ["helper"]
