"""What profiling adds to a launch (issue 20 asks <= 2 us on, zero off): the host time per
launch of a tiny kernel in a plain loop, with no session, in a tilec.profiler session, and
in one with hook="triton" (launch metadata), each `--count` launches back to back, then
synchronised; the median of `--repeat` rounds. Needs a GPU and torch.

    python benchmarks/gpu_profiler_overhead.py [--json PATH] [--count N] [--repeat R]
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import torch

import tilec
import tilec.language as tl
import tilec.profiler as proton


@tilec.jit
def add_one(X, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(X + o, tl.load(X + o, mask=o < n) + 1, mask=o < n)


def per_launch_us(count, x):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(count):
        add_one[(1,)](x, 128, B=128)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / count * 1e6


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args(argv)
    x = torch.zeros(128, device="cuda")
    per_launch_us(100, x)  # compile, warm caches
    tmp = tempfile.mkdtemp()
    rows = {}
    for mode in ("off", "session", "hook=triton", "off again"):
        times = []
        for r in range(a.repeat):
            if mode in ("session", "hook=triton"):
                proton.start(os.path.join(tmp, f"p{r}"),
                             hook="triton" if mode == "hook=triton" else None)
            times.append(per_launch_us(a.count, x))
            if mode in ("session", "hook=triton"):
                proton.finalize()
        rows[mode] = statistics.median(times)
    base = (rows["off"] + rows["off again"]) / 2
    print(f"{'mode':14} {'us/launch':>10} {'added':>8}")
    for mode, us in rows.items():
        print(f"{mode:14} {us:10.2f} {us - base:8.2f}")
    result = {"device": torch.cuda.get_device_name(), "count": a.count, "us_per_launch": rows,
              "added_us": {m: rows[m] - base for m in ("session", "hook=triton")}}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
