"""A hand edit of one kernel's PTX against tilec's own, timed in the same run: the way to
learn what a code-generation idea is worth before writing the pass.

    python benchmarks/ptx_edit_ab.py --kernel _attn_bwd \\
        --edit '(\\n(\\s*)ld\\.global\\.v2\\.b32 \\{[^}]*\\}, \\[(%rd\\d+)\\];)=>\\1\\n\\2prefetch.global.L1 [\\3+128];' \\
        [--bench t06-bwd | -- CMD ...] [--rounds 3] [--json PATH]

CMD (default: the preset --bench) is run once with an empty kernel cache A (TILEC_CACHE_DIR),
which it fills; A is copied to B, where every cached kernel whose PTX defines `.entry
KERNEL(` gets the edits (Python regular expressions, PATTERN=>REPLACEMENT, each of which
must match) and a cubin rebuilt by ptxas from the edited PTX (tilec loads a cached entry's
cubin as it is). Then CMD runs from A and from B in alternating order, --rounds times each.
CMD prints, as its last line of output, a JSON object {row name: milliseconds}; the table
gives each row's median from A and from B and their ratio, with every run's value (a
difference is real when the runs of A and B do not overlap).

Presets (--bench): t06-bwd, tutorial 06's backward at D 64, N 1024 and 4096, by GPU time
(calls queued behind a GPU sleep), the tutorial from $TRITON_SRC or .triton, on tilec
(TILEC_AS_TRITON=1). A benchmark: it reports, it never fails on slow numbers.
"""

import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

T06_BWD = r"""
import importlib.util, json, os, statistics, torch
torch.zeros(1, device="cuda")
path = os.path.join(os.environ.get("TRITON_SRC", ".triton"), "python", "tutorials",
                    "06-fused-attention.py")
spec = importlib.util.spec_from_file_location("t06", path)
t06 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t06)
out = {}
for n in (1024, 4096):
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn((4, 32, n, 64), dtype=torch.float16, device="cuda", generator=g,
                           requires_grad=True) for _ in range(3))
    o = t06.attention(q, k, v, True, 1.3, False)
    do = torch.randn_like(o)
    fn = lambda: o.backward(do, retain_graph=True)
    fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    reps, ts = (30 if n > 1024 else 100), []
    for _ in range(5):
        torch.cuda._sleep(50_000_000); s.record()
        for _ in range(reps):
            fn()
        e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) / reps)
    out[f"t06 bwd D64 N{n}"] = statistics.median(ts)
print(json.dumps(out))
"""
PRESETS = {"t06-bwd": ([sys.executable, "-c", T06_BWD],
                       {"TILEC_AS_TRITON": "1", "PYTEST_VERSION": "ptx-edit-ab"})}


def parse_edits(specs):
    edits = []
    for s in specs:
        pat, sep, rep = s.partition("=>")
        if not sep:
            raise SystemExit(f"--edit {s!r}: write PATTERN=>REPLACEMENT")
        edits.append((re.compile(pat), rep))
    return edits


def run(cmd, env, cache):
    r = subprocess.run(cmd, env=dict(env, TILEC_CACHE_DIR=cache, TRITON_CACHE_DIR=cache),
                       capture_output=True, text=True, cwd=ROOT)
    lines = r.stdout.strip().splitlines()
    if r.returncode != 0 or not lines:
        raise SystemExit(f"{' '.join(cmd[:3])}...: exit {r.returncode}\n{r.stderr[-3000:]}")
    return json.loads(lines[-1])


def edit_cache(cache, kernel, edits, ptxas):
    """Applies the edits to every entry of `kernel` in `cache`; returns the entries edited."""
    done = []
    for ptx in sorted(glob.glob(os.path.join(cache, "*", "*", "kernel.ptx"))):
        with open(ptx) as f:
            text = f.read()
        if f".entry {kernel}(" not in text:
            continue
        for pat, rep in edits:
            text, n = pat.subn(rep, text)
            if n == 0:
                raise SystemExit(f"{ptx}: the edit {pat.pattern!r} matches nothing")
        with open(ptx, "w") as f:
            f.write(text)
        arch = re.search(r"^\.target\s+(sm_\w+)", text, re.M).group(1)
        r = subprocess.run([ptxas, f"-arch={arch}", ptx, "-o", ptx[:-3] + "cubin"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"ptxas refused the edited {ptx}:\n{r.stderr[-3000:]}")
        done.append(ptx)
    if not done:
        raise SystemExit(f"no cached kernel defines .entry {kernel}(")
    return done


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True, help="the PTX entry's name")
    ap.add_argument("--edit", action="append", required=True, help="PATTERN=>REPLACEMENT")
    ap.add_argument("--bench", choices=sorted(PRESETS), default="t06-bwd")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("cmd", nargs="*", help="after --: the command to time (see above)")
    args = ap.parse_args()
    edits = parse_edits(args.edit)
    cmd, extra = (args.cmd, {}) if args.cmd else PRESETS[args.bench]
    env = dict(os.environ, **extra)
    ptxas = os.environ.get("TILEC_PTXAS") or shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    work = tempfile.mkdtemp(prefix="ptx-edit-ab-")
    a, b = os.path.join(work, "a"), os.path.join(work, "b")
    try:
        run(cmd, env, a)
        shutil.copytree(a, b)
        for p in edit_cache(b, args.kernel, edits, ptxas):
            print(f"edited {os.path.relpath(p, work)}")
        res = {"A": [], "B": []}
        for i in range(args.rounds):
            for w in ("AB" if i % 2 == 0 else "BA"):
                res[w].append(run(cmd, env, a if w == "A" else b))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = []
    print("| row | A (tilec) ms | B (edited) ms | B / A | A runs | B runs |\n|---|---|---|---|---|---|")
    for key in res["A"][0]:
        ta, tb = ([r[key] for r in res[w]] for w in "AB")
        ma, mb = statistics.median(ta), statistics.median(tb)
        ratio = mb / ma if ma else float("nan")
        rows.append(dict(row=key, a_ms=ma, b_ms=mb, ratio=ratio, a_runs=ta, b_runs=tb))
        print(f"| {key} | {ma:.4f} | {mb:.4f} | {ratio:.4f} | "
              f"{', '.join(f'{t:.4f}' for t in ta)} | {', '.join(f'{t:.4f}' for t in tb)} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(kernel=args.kernel, edits=args.edit, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
