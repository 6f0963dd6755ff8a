"""Reads a profile in Proton's hatchet format and prints its tree:

    python -m tilec.profiler.viewer -m time/ms,tflop/s FILE.hatchet
    proton-viewer -m time/ms FILE.hatchet          (the same, as a console script)

or from Python: `tree, metrics = viewer.parse(["time/ms"], FILE)`, then
`viewer.print_tree(tree, metrics)`. Every metric is inclusive (a frame's value sums its
children's). Metrics: time/s, time/ms, time/us, time/ns and avg_time/<unit> (per launch),
time/% (of ROOT's time), count, cpu_time/<unit>, flop/s, gflop/s, tflop/s (all flops*
metrics) and flopN/s, gflopN/s, tflopN/s (one width), byte/s, gbyte/s, tbyte/s, and any
raw metric of the file by its name (bytes, flops16, ...). Needs no hatchet or pandas."""

from __future__ import annotations

import argparse
import json
import math
import sys

TIME = "time (ns)"
CPU_TIME = "cpu_time (ns)"
_TIME_UNITS = {"s": 1e-9, "ms": 1e-6, "us": 1e-3, "ns": 1.0}  # ns -> unit
_RATE_PREFIX = {"": 1.0, "g": 1e9, "t": 1e12}
_WIDTHS = (8, 16, 32, 64)


class Node:
    """A frame: its own metrics, the inclusive sums, its children, derived values."""

    def __init__(self, name: str, metrics: dict, children: list):
        self.name = name
        self.metrics = metrics
        self.children = children
        self.inc = {}
        self.values = {}

    def walk(self, depth=0):
        yield self, depth
        for c in self.children:
            yield from c.walk(depth + 1)


def _load(literal: dict) -> Node:
    frame = literal.get("frame", {})
    return Node(str(frame.get("name", "?")), dict(literal.get("metrics", {})),
                [_load(c) for c in literal.get("children", [])])


def _numeric(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _inclusive(n: Node) -> dict:
    inc = {k: v for k, v in n.metrics.items() if _numeric(v)}
    for c in n.children:
        for k, v in _inclusive(c).items():
            inc[k] = inc.get(k, 0) + v
    n.inc = inc
    return inc


def _flops(inc: dict, width=None) -> float:
    if width is not None:
        return inc.get(f"flops{width}", 0)
    return sum(inc.get(f"flops{w}", 0) for w in _WIDTHS) + inc.get("flops", 0)


def _value(metric: str, inc: dict, root_time: float):
    """A derived metric of one frame (None where it cannot be computed)."""
    t = inc.get(TIME, 0)
    if metric.startswith(("time/", "avg_time/", "cpu_time/", "avg_cpu_time/")):
        base, unit = metric.split("/", 1)
        if unit == "%" and base == "time":
            return 100.0 * t / root_time if root_time else None
        if unit not in _TIME_UNITS:
            return None
        raw = inc.get(CPU_TIME if "cpu_time" in base else TIME)
        if raw is None:
            return None
        if base.startswith("avg_"):
            count = inc.get("count", 0)
            raw = raw / count if count else None
        return None if raw is None else raw * _TIME_UNITS[unit]
    secs = t * 1e-9
    for prefix, scale in _RATE_PREFIX.items():
        if metric == f"{prefix}byte/s":
            return inc.get("bytes", 0) / secs / scale if secs else None
        if metric == f"{prefix}flop/s":
            return _flops(inc) / secs / scale if secs else None
        for w in _WIDTHS:
            if metric == f"{prefix}flop{w}/s":
                return _flops(inc, w) / secs / scale if secs else None
    if metric in inc:
        return inc[metric]
    return None


def derivable(tree: Node) -> list:
    """The metric names this tree can show."""
    raw = sorted({k for n, _ in tree.walk() for k in n.inc})
    out = [f"time/{u}" for u in _TIME_UNITS] + ["time/%"] + [f"avg_time/{u}" for u in _TIME_UNITS]
    if CPU_TIME in raw:
        out += [f"cpu_time/{u}" for u in _TIME_UNITS]
    if any(k.startswith("flops") for k in raw):
        out += [f"{p}flop/s" for p in _RATE_PREFIX]
        out += [f"{p}flop{w}/s" for w in _WIDTHS if f"flops{w}" in raw for p in _RATE_PREFIX]
    if "bytes" in raw:
        out += [f"{p}byte/s" for p in _RATE_PREFIX]
    return out + raw


def parse(metrics, filename: str):
    """(tree, metric names) of a hatchet file; the tree's frames carry the metrics' values
    (`node.values[name]`). An unknown metric is a ValueError naming the ones there are."""
    if isinstance(metrics, str):
        metrics = [m.strip() for m in metrics.split(",") if m.strip()]
    with open(filename) as f:
        database = json.load(f)
    if not isinstance(database, list) or not database or "frame" not in database[0]:
        raise ValueError(f"{filename}: not a profile in Proton's hatchet format")
    tree = _load(database[0])
    _inclusive(tree)
    known = derivable(tree)
    for m in metrics:
        if m not in known:
            raise ValueError(f"metric {m!r} is not in {filename}; available: {', '.join(known)}")
    root_time = tree.inc.get(TIME, 0)
    for n, _ in tree.walk():
        n.values = {m: _value(m, n.inc, root_time) for m in metrics}
    return tree, list(metrics)


def _fmt(v, fmt: str | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if fmt:
        return format(v, fmt)
    if isinstance(v, int):
        return str(v)
    return f"{v:.3f}"


def print_tree(tree: Node, metrics, depth: int = 100, format: str | None = None,  # noqa: A002
               file=None) -> None:
    """Prints the tree (hatchet's layout): each frame's metric values, then its name."""
    out = file or sys.stdout

    def rec(n: Node, prefix: str, branch: str, d: int):
        vals = " ".join(_fmt(n.values.get(m), format) for m in metrics)
        print(f"{prefix}{branch}{vals} {n.name}", file=out)
        if d >= depth:
            return
        kids = n.children
        for i, c in enumerate(kids):
            last = i == len(kids) - 1
            ext = "" if not branch else ("   " if branch.startswith("└") else "│  ")
            rec(c, prefix + ext, "└─ " if last else "├─ ", d + 1)

    rec(tree, "", "", 0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="proton-viewer",
                                 description="Print a profile's tree (Proton's hatchet format).")
    ap.add_argument("file", help="the NAME.hatchet file")
    ap.add_argument("-m", "--metrics", default="time/s",
                    help="comma-separated metrics (default time/s)")
    ap.add_argument("-l", "--list", action="store_true", help="list the metrics the file has")
    ap.add_argument("-d", "--depth", type=int, default=100, help="levels of frames to print")
    ap.add_argument("-f", "--format", default=None, help="a format spec for values, e.g. .2f")
    a = ap.parse_args(argv)
    try:
        if a.list:
            tree, _ = parse([], a.file)
            print("\n".join(derivable(tree)))
            return 0
        tree, metrics = parse(a.metrics, a.file)
    except (OSError, ValueError) as e:
        print(f"proton-viewer: {e}", file=sys.stderr)
        return 2
    print_tree(tree, metrics, depth=a.depth, format=a.format)
    return 0


if __name__ == "__main__":
    sys.exit(main())
