"""What profiling adds to a launch (issue 20 asks <= 2 us on, zero off): the host time per
launch of a tiny kernel in a plain loop, with no session, in a tilec.profiler session, and
in one with hook="triton", each `--count` launches back to back, then synchronised; the
median of `--repeat` rounds. These launches keep the C++ fast path (the profiler samples
them there). The last row is a kernel with a `launch_metadata` callback under
hook="triton", which goes through Python to call it (beside the same kernel unprofiled).
Needs a GPU and torch.

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


def _meta(grid, kernel, args):
    return {"name": "add_one_md", "bytes": 8 * args["n"]}


@tilec.jit(launch_metadata=_meta)
def add_one_md(X, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(X + o, tl.load(X + o, mask=o < n) + 1, mask=o < n)


def per_launch_us(count, x, kernel=add_one):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(count):
        kernel[(1,)](x, 128, B=128)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / count * 1e6


def _launches_in(path, kernel_name):
    """The launches of `kernel_name` a hatchet file counts (every frame of that name)."""
    with open(path) as f:
        root = json.load(f)[0]
    total, todo = 0, [root]
    while todo:
        node = todo.pop()
        if node["frame"]["name"] == kernel_name and not any(
                c["frame"]["name"] == kernel_name for c in node["children"]):
            total += node["metrics"].get("count", 0)
        todo += node["children"]
    return total


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args(argv)
    x = torch.zeros(128, device="cuda")
    per_launch_us(100, x)  # compile, warm caches
    per_launch_us(100, x, add_one_md)
    tmp = tempfile.mkdtemp()
    rows = {}
    modes = {"off": (None, add_one), "session": ("session", add_one),
             "hook=triton": ("triton", add_one), "off again": (None, add_one),
             "md off": (None, add_one_md), "md hook=triton": ("triton", add_one_md)}
    for mode, (session, kernel) in modes.items():
        times = []
        for r in range(a.repeat):
            if session:
                proton.start(os.path.join(tmp, f"p{r}"),
                             hook="triton" if session == "triton" else None)
            times.append(per_launch_us(a.count, x, kernel))
            if session:
                proton.finalize()
                sampled = _launches_in(os.path.join(tmp, f"p{r}.hatchet"), kernel.__name__)
                assert sampled == a.count, f"{mode}: {sampled} of {a.count} launches sampled"
        rows[mode] = statistics.median(times)
    base = (rows["off"] + rows["off again"]) / 2
    added = {"session": rows["session"] - base, "hook=triton": rows["hook=triton"] - base,
             "md hook=triton": rows["md hook=triton"] - rows["md off"]}
    print(f"{'mode':16} {'us/launch':>10} {'added':>8}")
    for mode, us in rows.items():
        extra = f"{added[mode]:8.2f}" if mode in added else ""
        print(f"{mode:16} {us:10.2f} {extra}")
    result = {"device": torch.cuda.get_device_name(), "count": a.count, "us_per_launch": rows,
              "added_us": added}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
