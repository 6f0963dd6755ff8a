"""The modules of python/tilec import each other without a cycle.

A cycle held together by a function-level ("late") import works only while nobody
calls that function during the import: it breaks when a module moves or an import is
hoisted, and it hides which module a piece of code belongs to. So every import
statement counts here, at module level or inside a function, and the graph of
tilec-internal edges must be acyclic.

How an import becomes edges (what Python executes for it):
- `from X import y`: X's module (a package: its `__init__`), and `X.y` too when that is a
  module. When X is a package that contains the importing module, its `__init__` is
  already running (a submodule is only imported after its package's `__init__` started),
  so `from . import y` depends on `X.y` alone when y is a submodule, and on X's
  `__init__` only when y is a name defined there.
- `import X.Y.z` and `from X.Y.z import ...` also run the `__init__` of each enclosing
  package (X.Y, X) that does not contain the importer.
- An `__init__` that imports its submodules (to re-export them) depends on them: a real
  edge, like any other.
The compiled extension `_C` is a leaf. `import tilec` inside tilec binds the running
package (no edge); `importlib.import_module` calls (the profiler's lazy viewer) are not seen.
"""

import ast
import os

PKG_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python",
    "tilec")
ROOT = "tilec"
EXTENSIONS = ("tilec._C",)  # compiled: in the source tree only after an editable build


def _modules():
    """{dotted name: path} of every module of the package; a package is named by its
    `__init__`'s dotted name (`tilec.compiler`); a compiled extension (`tilec._C`) has
    the path None."""
    found = dict.fromkeys(EXTENSIONS)
    for dirpath, dirnames, filenames in os.walk(PKG_DIR):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        rel = os.path.relpath(dirpath, PKG_DIR)
        parts = [ROOT] + ([] if rel == "." else rel.split(os.sep))
        for f in sorted(filenames):
            if f.endswith(".py"):
                name = ".".join(parts if f == "__init__.py" else parts + [f[:-3]])
                found[name] = os.path.join(dirpath, f)
            elif f.endswith((".so", ".pyd")):  # the compiled extension: a leaf, no edges
                found[".".join(parts + [f.split(".")[0]])] = None
    return found


def _ancestors(name):
    """The enclosing packages of `name`, innermost first."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


def _edges(name, path, modules):
    """The tilec modules that importing `name` executes, each with a line that imports it."""
    is_pkg = os.path.basename(path) == "__init__.py"
    package = name if is_pkg else name.rpartition(".")[0]
    running = {name} | set(_ancestors(name))  # already executing when `name` runs

    out = {}

    def add(target, line):
        """`target` and the enclosing packages it runs, when tilec modules."""
        if modules.get(target) and target not in running:
            out.setdefault(target, line)
        for anc in _ancestors(target):
            if modules.get(anc) and anc not in running:
                out.setdefault(anc, line)

    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            if source != ROOT and not source.startswith(ROOT + "."):
                continue
            for alias in node.names:
                sub = source + "." + alias.name
                if sub in modules:  # a submodule (and `source`, unless it is running)
                    add(sub, node.lineno)
                elif source in running:  # a name a running __init__ must have defined
                    out.setdefault(source, node.lineno)
                else:  # a name `source` defines (or `*`): it runs
                    add(source, node.lineno)
    out.pop(name, None)
    return out


def _graph():
    modules = _modules()
    return {name: _edges(name, path, modules) for name, path in modules.items() if path}


def _find_cycle(graph):
    """One cycle as a list of modules (first == last), or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(graph, WHITE)
    stack = []

    def visit(node):
        colour[node] = GREY
        stack.append(node)
        for nxt in sorted(graph[node]):
            if colour[nxt] == GREY:
                return stack[stack.index(nxt):] + [nxt]
            if colour[nxt] == WHITE:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        colour[node] = BLACK
        return None

    for node in sorted(graph):
        if colour[node] == WHITE:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def _describe(cycle, graph, modules):
    rel = lambda m: os.path.relpath(modules[m], os.path.dirname(PKG_DIR))  # noqa: E731
    return "\n".join(f"  {a} -> {b}   ({rel(a)}:{graph[a][b]})"
                     for a, b in zip(cycle, cycle[1:]))


def test_the_graph_sees_the_packages_modules():
    """A guard on the test itself: it finds the modules and the edges it should."""
    graph = _graph()
    assert "tilec.jit" in graph and "tilec.compiler" in graph
    assert "tilec.language.core" in graph
    assert "tilec.jit" in graph["tilec"]  # the package re-exports jit: a real edge
    assert "tilec.compiler.compiler" in graph["tilec.compiler"]


def test_tilec_modules_import_each_other_without_a_cycle():
    graph = _graph()
    cycle = _find_cycle(graph)
    assert cycle is None, ("import cycle among tilec's modules (every import counts, "
                           "function-level ones too):\n" + _describe(cycle, graph, _modules()))


def test_cycle_finder_reports_a_cycle():
    assert _find_cycle({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b": 1}, "b": {}}) is None


def _cyclic_components(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            comp = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                comp.append(top)
                if top == node:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return out


if __name__ == "__main__":  # every edge inside a cycle, by component: what to break
    g, mods = _graph(), _modules()
    for comp in _cyclic_components(g):
        print(f"{len(comp)} modules in a cycle:")
        for a in comp:
            for b in sorted(set(g[a]) & set(comp)):
                print(f"  {a} -> {b}   ({os.path.relpath(mods[a], PKG_DIR)}:{g[a][b]})")
