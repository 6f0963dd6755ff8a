"""Summarises conformance runs: per test file, what Triton passed, what tilec passed of
those, and the top failure reasons grouped by message.

    python tests/conformance/summarize.py --tilec OUT/tilec [--triton OUT/triton]
        [--triton-src DIR] [--json benchmarks/results/conformance-DATE.json] [--top 30]

Each run folder holds the results.jsonl the plugin wrote. Without a Triton run the table
has tilec's counts only. Tests whose body reads Triton's MLIR or LLVM text (`asm["ttir"]`,
`"ttgir"`, `"llir"`) are counted apart: tilec has no such text (docs/CONFORMANCE.md)."""

from __future__ import annotations

import argparse
import ast
import collections
import gzip
import json
import os
import re
import sys

_FAILED = ("failed", "error", "collection-error", "xpassed")
_MLIR_KEYS = re.compile(r"""["'](ttir|ttgir|llir|amdgcn)["']""")


def load(run):
    """{nodeid: record} from a run folder's results.jsonl, or from a results file itself
    (.jsonl or .jsonl.gz, e.g. a baseline kept under benchmarks/results/); a later line for
    the same test wins (a rerun of a file)."""
    out = {}
    path = run if os.path.isfile(run) else os.path.join(run, "results.jsonl")
    if not os.path.exists(path):
        return out
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut by a time cap
            out[rec["test"]] = rec
    return out


def file_of(nodeid: str) -> str:
    return os.path.basename(nodeid.split("::", 1)[0])


def function_of(nodeid: str) -> str:
    parts = nodeid.split("::")
    return parts[-1].split("[", 1)[0] if len(parts) > 1 else ""


def mlir_readers(src_dir, files):
    """{file: set of test function names whose source reads MLIR/LLVM text}."""
    out = {}
    for fname in files:
        path = None
        for sub in ("python/test/unit/language", "python/tutorials"):
            p = os.path.join(src_dir, sub, fname)
            if os.path.exists(p):
                path = p
        if path is None:
            continue
        text = open(path, encoding="utf-8").read()
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.name.startswith("test"):
                seg = ast.get_source_segment(text, node) or ""
                if _MLIR_KEYS.search(seg):
                    names.add(node.name)
        out[fname] = names
    return out


_NORMALISE = [
    (re.compile(r"0x[0-9a-fA-F]+"), "0x…"),
    (re.compile(r"/[^\s:'\"]+/"), "…/"),
    (re.compile(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b"), "N"),
    (re.compile(r"\s+"), " "),
]


def reason(message: str) -> str:
    """A failure message with numbers, addresses and paths blanked, for grouping."""
    m = (message or "").strip().splitlines()
    m = m[0] if m else "(no message)"
    for pat, rep in _NORMALISE:
        m = pat.sub(rep, m)
    return m[:160]


def load_collected(run):
    """The tests a run selected (collected.txt beside its results.jsonl), or an empty set."""
    path = os.path.join(run, "collected.txt") if os.path.isdir(run) else ""
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {line.strip() for line in f if line.strip()}


def summarise(tilec, triton, readers, collected=frozenset()):
    files = sorted({file_of(t) for t in tilec} | {file_of(t) for t in triton})
    table = {}
    fails = collections.Counter()
    examples = {}
    failing = {}
    for fname in files:
        row = collections.Counter()
        for nodeid, rec in tilec.items():
            if file_of(nodeid) != fname:
                continue
            mlir = function_of(nodeid) in readers.get(fname, ())
            row["tilec_" + rec["outcome"]] += 1
            base = triton.get(nodeid)
            base_ok = base is not None and base["outcome"] == "passed"
            if triton and not base_ok:
                continue
            key = "mlir_" if mlir else ""
            row[key + "base_passed"] += 1
            if rec["outcome"] == "passed":
                row[key + "both_passed"] += 1
            elif not mlir and rec["outcome"] in _FAILED:
                r = reason(rec["message"])
                fails[r] += 1
                examples.setdefault(r, nodeid)
                failing[nodeid] = rec["outcome"] + ": " + (rec["message"] or "")[:200]
        for nodeid, rec in triton.items():
            if file_of(nodeid) != fname:
                continue
            row["triton_" + rec["outcome"]] += 1
            # A test Triton passed that has no tilec result did not finish before the time
            # cap: it counts against tilec, never silently out of the denominator.
            if rec["outcome"] == "passed" and nodeid in collected and nodeid not in tilec:
                mlir = function_of(nodeid) in readers.get(fname, ())
                key = "mlir_" if mlir else ""
                row[key + "base_passed"] += 1
                row["unfinished"] += 1
                if not mlir:
                    failing[nodeid] = "unfinished: no result before the time cap"
        table[fname] = dict(row)
    return table, fails, examples, failing


def print_report(table, fails, examples, top, have_triton):
    cols = ("file", "triton pass", "tilec pass", "tilec fail+err", "unfinished", "skip",
            "of base", "rate", "mlir")
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    tot = collections.Counter()
    for fname, row in table.items():
        fail = sum(v for k, v in row.items()
                   if k in ("tilec_failed", "tilec_error", "tilec_collection-error"))
        base = row.get("base_passed", 0)
        both = row.get("both_passed", 0)
        rate = f"{100.0 * both / base:.1f} %" if base else "-"
        mlir = f"{row.get('mlir_both_passed', 0)}/{row.get('mlir_base_passed', 0)}"
        print(f"| {fname} | {row.get('triton_passed', '-') if have_triton else '-'} | "
              f"{row.get('tilec_passed', 0)} | {fail} | {row.get('unfinished', 0)} | "
              f"{row.get('tilec_skipped', 0)} | {both}/{base} | {rate} | {mlir} |")
        for k, v in row.items():
            tot[k] += v
        tot["fail"] += fail
    base = tot["base_passed"]
    rate = f"{100.0 * tot['both_passed'] / base:.1f} %" if base else "-"
    print(f"| **all** | {tot['triton_passed'] if have_triton else '-'} | {tot['tilec_passed']} "
          f"| {tot['fail']} | {tot['unfinished']} | {tot['tilec_skipped']} | "
          f"{tot['both_passed']}/{base} | "
          f"**{rate}** | {tot['mlir_both_passed']}/{tot['mlir_base_passed']} |")
    print(f"\nTop failure reasons (tilec, on tests {'Triton passed' if have_triton else 'run'};"
          " MLIR-reading tests apart):")
    for r, n in fails.most_common(top):
        print(f"{n:6d}  {r}\n        e.g. {examples[r]}")
    return tot


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilec", required=True)
    ap.add_argument("--triton")
    ap.add_argument("--triton-src", default=os.environ.get("TRITON_SRC"))
    ap.add_argument("--json")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--label", default="")
    a = ap.parse_args(argv)
    tilec = load(a.tilec)
    triton = load(a.triton) if a.triton else {}
    if not tilec:
        print(f"no results in {a.tilec}", file=sys.stderr)
        return 1
    files = sorted({file_of(t) for t in tilec})
    readers = mlir_readers(a.triton_src, files) if a.triton_src else {}
    table, fails, examples, failing = summarise(tilec, triton, readers,
                                                load_collected(a.tilec))
    tot = print_report(table, fails, examples, a.top, bool(triton))
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as f:
            json.dump({"label": a.label, "files": table, "total": dict(tot),
                       "top_reasons": [[n, r, examples[r]] for r, n in
                                       fails.most_common(a.top)],
                       "failing": failing}, f, indent=1, sort_keys=True)
        print(f"\nwrote {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
