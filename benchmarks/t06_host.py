"""Host time of one call of tutorial 06's `attention` (the forward launch path: descriptors,
autotuner, launcher), tilec against Triton 3.6, each in its own process:

    python benchmarks/t06_host.py [--tutorial PATH] [--profile] [--targets "tilec;triton"]

The GPU is kept busy by a sleep queued first, so each call's host time is measured alone
(no wait on the GPU): the median over repeats, in microseconds, for the rows of
tutorial06.py's grid at N 1024 (where tutorial06.py's do_bench-style time is host-bound).
--profile prints cProfile's top functions of tilec's calls.

A benchmark, not a test: it reports, it never fails on slow numbers.
"""

import argparse
import json
import os
import subprocess
import sys

from bench_targets import target_env

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = r"""
import cProfile, importlib.util, io, json, pstats, statistics, sys, time
import torch
args = json.loads(sys.argv[1])
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
spec = importlib.util.spec_from_file_location("tutorial06", args["tutorial"])
t06 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t06)
rows = []
for d in (64, 128):
    for prov in ("fp16", "fp8"):
        for causal, ws in ((False, False), (False, True), (True, False)):
            q, k, v = (torch.randn((4, 32, 1024, d), dtype=torch.float16, device="cuda")
                       for _ in range(3))
            if prov == "fp8":
                q, k = q.to(torch.float8_e5m2), k.to(torch.float8_e5m2)
                v = v.permute(0, 1, 3, 2).contiguous().permute(0, 1, 3, 2).to(torch.float8_e5m2)
            fn = lambda: t06.attention(q, k, v, causal, 1.3, ws)
            fn(); torch.cuda.synchronize()
            ts = []
            for _ in range(5):
                torch.cuda._sleep(50_000_000)
                for _ in range(40):
                    t0 = time.perf_counter(); fn(); ts.append(time.perf_counter() - t0)
                torch.cuda.synchronize()
            row = dict(d=d, dtype=prov, causal=causal, ws=ws, us=round(statistics.median(ts) * 1e6, 1))
            if args["profile"]:
                pr = cProfile.Profile()
                torch.cuda._sleep(50_000_000)
                pr.enable()
                for _ in range(40):
                    fn()
                pr.disable()
                torch.cuda.synchronize()
                s = io.StringIO()
                pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(14)
                row["profile"] = s.getvalue()
            rows.append(row)
print(json.dumps(rows))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tutorial", default=os.path.join(
        os.environ.get("TRITON_SRC", os.path.join(ROOT, ".triton")), "python", "tutorials",
        "06-fused-attention.py"))
    ap.add_argument("--targets", default="tilec;triton")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    res = {}
    for t in args.targets.split(";"):
        kind, env, _ = target_env(t, "t06host")
        env["PYTEST_VERSION"] = "t06-host"  # the tutorial's single config, as tutorial06.py
        spec = dict(tutorial=args.tutorial, profile=args.profile and kind == "tilec")
        r = subprocess.run([sys.executable, "-c", CHILD, json.dumps(spec)], env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{t}: exit {r.returncode}\n{r.stderr[-3000:]}", file=sys.stderr)
            continue
        res[t] = json.loads(r.stdout.strip().splitlines()[-1])
    names = list(res)
    print("| D | dtype | causal | ws | " + " | ".join(f"{t} µs" for t in names) + " |")
    print("|---" * (4 + len(names)) + "|")
    for i, row in enumerate(res[names[0]] if names else []):
        print(f"| {row['d']} | {row['dtype']} | {row['causal']} | {row['ws']} | "
              + " | ".join(str(res[t][i]["us"]) for t in names) + " |")
    for t in names:
        for row in res[t]:
            if "profile" in row:
                print(f"--- {t} D{row['d']} {row['dtype']} causal={row['causal']} ws={row['ws']}")
                print(row["profile"])


if __name__ == "__main__":
    main()
