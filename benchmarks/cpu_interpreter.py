"""Speed of the CPU tile interpreter on the seed kernels (issue 2's targets).

    python benchmarks/cpu_interpreter.py [--reps N] [--json PATH]

Then the cost of the race checker (TILEC_SANITIZE=race, which runs a launch's programs on
one thread): each seed kernel timed with it, against the interpreter on one thread and on
all cores (target: at most 3 x the interpreter).

Times each launch with the wall clock (median of --reps runs after a warm-up launch that
compiles), prints a table against the targets and writes the numbers as JSON. This is a
benchmark, not a test: it never fails on a slow machine, it reports.
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "data"))  # the seed kernels

import tilec as triton  # noqa: E402
import seed_kernels as sk  # noqa: E402


def timeit(fn, reps):
    fn()  # warm-up: compiles and fills caches
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def bench_vector_add(reps):
    n = 1 << 20
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = np.empty_like(x)
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    run = lambda: sk.add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    t = timeit(run, reps)
    assert np.array_equal(out, x + y)
    return t


def bench_softmax(reps):
    rows, cols = 256, 1024
    x = np.random.default_rng(1).standard_normal((rows, cols)).astype(np.float32)
    y = np.empty_like(x)
    run = lambda: sk.softmax_kernel[(rows,)](x, y, cols, cols, cols, BLOCK_SIZE=1024)
    t = timeit(run, reps)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert np.allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    return t


def bench_matmul(reps):
    M = N = K = 256
    rng = np.random.default_rng(2)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.empty((M, N), dtype=np.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) *
                         triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    run = lambda: sk.matmul_kernel[grid](a, b, c, M, N, K, K, 1, N, 1, N, 1, GROUP_SIZE_M=8)
    run()  # autotunes once; the timed launches use the chosen config
    t = timeit(run, reps)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    assert np.allclose(c.astype(np.float32), ref, rtol=2e-2, atol=5e-2)
    return t


def bench_launch_overhead(reps):
    x = np.zeros(16, dtype=np.float32)
    run = lambda: sk.add_kernel[(1,)](x, x, x, 16, BLOCK_SIZE=16)
    return timeit(run, max(reps, 200))


CASES = [
    # name, function, target seconds (None: informational)
    ("vector add, 2^20 fp32", bench_vector_add, 0.1),
    ("softmax, 256x1024 fp32", bench_softmax, 0.05),
    ("matmul (autotuned), 256^3 fp16", bench_matmul, None),
    ("launch of a 1-program kernel", bench_launch_overhead, None),
]


def race_costs(reps):
    """(case, interpreter on 1 thread, interpreter on all cores, race checking) medians."""
    saved = {k: os.environ.get(k) for k in ("TILEC_NUM_THREADS", "TILEC_SANITIZE")}
    out = []
    try:
        for name, fn, _ in CASES[:3]:
            os.environ.pop("TILEC_SANITIZE", None)
            os.environ.pop("TILEC_NUM_THREADS", None)
            every = fn(reps)[0]
            os.environ["TILEC_NUM_THREADS"] = "1"
            one = fn(reps)[0]
            os.environ["TILEC_SANITIZE"] = "race"
            race = fn(reps)[0]
            out.append({"case": name, "one_thread_s": one, "all_cores_s": every, "race_s": race,
                        "race_over_one_thread": race / one, "race_over_all_cores": race / every})
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--json", default=os.path.join(HERE, "results", "cpu_interpreter.json"))
    args = ap.parse_args()

    rows = []
    for name, fn, target in CASES:
        median, best = fn(args.reps)
        ok = None if target is None else median <= target
        rows.append({"case": name, "median_s": median, "min_s": best, "target_s": target,
                     "meets_target": ok})

    print(f"{'case':34} {'median':>11} {'min':>11} {'target':>9}  verdict")
    for r in rows:
        target = "-" if r["target_s"] is None else f"<= {r['target_s']:g} s"
        verdict = "" if r["meets_target"] is None else ("ok" if r["meets_target"] else "SLOW")
        print(f"{r['case']:34} {r['median_s'] * 1e3:9.3f}ms {r['min_s'] * 1e3:9.3f}ms "
              f"{target:>9}  {verdict}")

    race = race_costs(args.reps)
    print(f"\n{'race checking (TILEC_SANITIZE=race)':34} {'1 thread':>11} {'all cores':>11} "
          f"{'race':>11}  race/1 thread, race/all cores (target <= 3)")
    for r in race:
        print(f"{r['case']:34} {r['one_thread_s'] * 1e3:9.3f}ms {r['all_cores_s'] * 1e3:9.3f}ms "
              f"{r['race_s'] * 1e3:9.3f}ms  {r['race_over_one_thread']:.2f} x, "
              f"{r['race_over_all_cores']:.2f} x")

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    if load is not None and load > (os.cpu_count() or 1):
        print(f"note: load average {load:.1f} on {os.cpu_count()} cores: other work shares the "
              "machine, so these times are pessimistic")
    report = {"machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                          "python": platform.python_version(), "load_average": load},
              "tilec": triton.__tilec_version__, "reps": args.reps,
              "threads": os.environ.get("TILEC_NUM_THREADS", "0 (all cores)"),
              "results": rows, "race_checking": race}
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(report, f, indent=2)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
