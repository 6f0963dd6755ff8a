"""Inductor's generated kernels one by one, tilec beside Triton 3.6, on one GPU, in one run.

torch.compile's step time hides its Triton kernels behind cuBLAS and attention; this
benchmark isolates them. A workload of benchmarks/torch_compile.py is compiled once with
Inductor's `benchmark_kernel` option (each kernel module then carries `get_args()` and
`call(args)`); every kernel module is then loaded and timed in one process with `triton`
resolving to tilec and in one with the real Triton (each autotunes its own configs, as in
a real run). Times are CUDA-event medians; the table lists the kernels by the time tilec
loses or gains, with the total.

  python benchmarks/inductor_kernels.py [--workload gpt2] [--json FILE] [--keep DIR]
Without a GPU or torch it prints why and exits 0."""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _time_module(path: str, name: str, torch) -> list:
    """[median ms of one launch, the config autotuning chose] for the kernel module at
    `path` (its first calls autotune)."""
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    args = mod.get_args()
    for _ in range(3):
        mod.call(args)
    torch.cuda.synchronize()
    times = []
    for _ in range(7):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(10):
            mod.call(args)
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 10)
    launchers = getattr(getattr(mod, name, None), "launchers", None) or [None]
    cfg = getattr(launchers[0], "config", None)
    return [sorted(times)[len(times) // 2], str(cfg)]


def time_all(cache: str) -> dict:
    """{kernel name: [ms, config]} for every benchmarkable kernel module under `cache`."""
    import torch

    out = {}
    for path in sorted(glob.glob(os.path.join(cache, "**", "*.py"), recursive=True)):
        with open(path) as f:
            src = f.read()
        if "@triton.jit" not in src or "def get_args():" not in src:
            continue
        name = next((ln.split("(")[0][4:] for ln in src.splitlines()
                     if ln.startswith("def triton_")), os.path.basename(path))
        print(f"timing {name} ({path})", file=sys.stderr, flush=True)  # a crash names it
        try:
            out[name] = _time_module(path, name, torch)
        except Exception as e:  # a kernel that fails on one compiler is reported, not fatal
            out[name] = f"{type(e).__name__}: {str(e)[:200]}"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", default="gpt2")
    ap.add_argument("--json")
    ap.add_argument("--keep", help="copy the generated kernel sources to this folder")
    ap.add_argument("--time-cache", help=argparse.SUPPRESS)  # the child: time one cache
    a = ap.parse_args(argv)
    if a.time_cache:
        print("RESULT " + json.dumps(time_all(a.time_cache)), flush=True)
        return 0
    try:
        import torch
    except ImportError:
        print("torch is not installed: nothing to measure")
        return 0
    if not torch.cuda.is_available():
        print("no CUDA GPU: nothing to measure")
        return 0
    with tempfile.TemporaryDirectory(prefix="ind-kernels-") as tmp:
        base = dict(os.environ, TORCHINDUCTOR_BENCHMARK_KERNEL="1")
        base.pop("TILEC_AS_TRITON", None)
        gen = dict(base, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "gen"),
                   TRITON_CACHE_DIR=os.path.join(tmp, "gen-triton"))
        p = subprocess.run([sys.executable, os.path.join(HERE, "torch_compile.py"), "--child",
                            a.workload], env=gen, capture_output=True, text=True)
        if p.returncode:
            print(p.stderr[-3000:])
            return 1
        if a.keep:
            subprocess.run(["cp", "-r", os.path.join(tmp, "gen"), a.keep], check=False)
        results = {}
        for target in ("tilec", "triton"):
            env = dict(base, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, f"t-{target}"),
                       TRITON_CACHE_DIR=os.path.join(tmp, f"t-{target}-triton"),
                       TILEC_CACHE_DIR=os.path.join(tmp, f"t-{target}-tilec"))
            if target == "tilec":
                env["TILEC_AS_TRITON"] = "1"
            p = subprocess.run([sys.executable, __file__, "--time-cache",
                                os.path.join(tmp, "gen")], env=env, capture_output=True,
                               text=True)
            line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
            if not line:
                print(f"{target}: no result (exit status {p.returncode})\n{p.stderr[-3000:]}")
                return 1
            results[target] = json.loads(line[-1][7:])
    rows = []
    for k in results["tilec"]:
        x, y = results["tilec"][k], results["triton"].get(k)
        if isinstance(x, list) and isinstance(y, list):
            rows.append((k, x[0], y[0], x[1], y[1]))
        else:
            print(f"  {k}: tilec {x} / Triton {y}")
    rows.sort(key=lambda r: r[2] - r[1])
    device = torch.cuda.get_device_name()
    print(f"device: {device}; {a.workload}: {len(rows)} kernels, tilec / Triton ms")
    for k, x, y, cx, cy in rows:
        print(f"  {k[:80]:80} {x * 1e3:9.1f} us {y * 1e3:9.1f} us  {x / y:5.2f} x")
        print(f"      tilec: {cx}\n      Triton: {cy}")
    tx, ty = sum(r[1] for r in rows), sum(r[2] for r in rows)
    if rows:
        print(f"  total {tx * 1e3:.1f} us / {ty * 1e3:.1f} us = {tx / ty:.3f} x")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": {"device": device}, "workload": a.workload,
                       "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
