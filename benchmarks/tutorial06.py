"""Triton's tutorial 06 (fused attention) on tilec and on Triton 3.6, one after the other on
the same GPU, with torch's SDPA beside them (issue 22's attention rows):

    python benchmarks/tutorial06.py [--tutorial PATH] [--json PATH] [--n 1024,4096,16384]
                                    [--dims 64,128] [--modes fwd,bwd] [--autotune]
                                    [--targets "tilec;triton;tilec:TILEC_WGMMA_DEFER=0"]

Each target runs in a fresh process with an empty kernel cache (TILEC_AS_TRITON=1 makes
the tutorial's `import triton` resolve to tilec). The rows are the tutorial's own grid
(BATCH 4, 32 heads, fp16 forward with and without causal masking and, non-causal, with
warp_specialize as Hopper runs it; backward; the FP8 (e5m2) forward), timed the same way
for every target, as triton.testing.do_bench does (the L2 flushed before each call, CUDA
events around it, no sync between calls; the median of repeats after a warm-up), plus the
GPU's own time (calls queued behind a GPU sleep: no host time) and the time of a call
followed by a sync (host time before the kernel included).
By default the tutorial's single test configuration (BLOCK_M 128, BLOCK_N 64, 2 stages,
4 warps; what its pytest mode runs) is used, so both compilers build the same kernel;
--autotune keeps the tutorial's 21 Hopper configurations and its autotuner. The first
call of each autotuning key (compile, autotune when on, and the launch) is reported as
first_call_s.

A benchmark, not a test: it reports, it never fails on slow numbers.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench_targets import target_env

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = r"""
import importlib.util, json, os, statistics, sys, time, traceback
import torch
args = json.loads(sys.argv[1])
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
# torch's first backward with a given gradient imports sympy (torch.fx's symbolic shapes,
# about 3 s on the H200 host): no part of either compiler's first call, so it is done here
_x = torch.ones(4, device="cuda", requires_grad=True)
(_x * 2).backward(torch.ones(4, device="cuda")); torch.cuda.synchronize()
spec = importlib.util.spec_from_file_location("tutorial06", args["tutorial"])
t06 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(t06)
import triton
seen = set()

flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")

def timed(fn, budget=0.6):
    # (ms, gpu_ms, synced_ms) of one call. ms: as triton.testing.do_bench takes it (the L2
    # flushed before each call, CUDA events around it, no host sync between calls), the
    # median; gpu_ms: calls queued behind a GPU sleep, so that no host time shows (the
    # GPU's own time, L2 warm); synced_ms: events around a call followed by a sync, so
    # that the host time before the kernel starts counts too (this benchmark's measure
    # before 2026-11-29).
    fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); fn(); e.record(); torch.cuda.synchronize()
    reps = max(5, min(100, int(budget / max(s.elapsed_time(e) * 1e-3, 1e-6))))
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
          for _ in range(reps)]
    for a, b in ev:
        flush.zero_(); a.record(); fn(); b.record()
    torch.cuda.synchronize()
    ms = statistics.median(a.elapsed_time(b) for a, b in ev)
    torch.cuda._sleep(100_000_000); s.record()
    for _ in range(reps):
        fn()
    e.record(); torch.cuda.synchronize()
    gpu_ms = s.elapsed_time(e) / reps
    ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    return ms, gpu_ms, statistics.median(ts)

def flops(n, d, causal, mode):
    f = 4.0 * 4 * 32 * n * n * d * (0.5 if causal else 1.0)
    return f * (2.5 if mode == "bwd" else 1.0)

for d in args["dims"]:
    for mode in args["modes"]:
        for causal in (True, False):
            for ws in ((False, True) if mode == "fwd" and not causal else (False,)):
                for prov in (("fp16", "fp8", "sdpa") if mode == "fwd" else ("fp16", "sdpa")):
                    if prov == "sdpa" and (ws or not args["sdpa"]):
                        continue
                    for n in args["n"]:
                        row = dict(d=d, mode=mode, causal=causal, ws=ws, provider=prov, n=n)
                        try:
                            g = torch.Generator(device="cuda").manual_seed(0)
                            q, k, v = (torch.randn((4, 32, n, d), dtype=torch.float16, device="cuda",
                                                   generator=g, requires_grad=True) for _ in range(3))
                            if prov == "fp8":
                                q, k = q.to(torch.float8_e5m2), k.to(torch.float8_e5m2)
                                v = v.permute(0, 1, 3, 2).contiguous().permute(0, 1, 3, 2).to(torch.float8_e5m2)
                            if prov == "sdpa":
                                fn = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=1.3)
                            else:
                                fn = lambda: t06.attention(q, k, v, causal, 1.3, ws)
                            key = (prov, n, d, ws)
                            t0 = time.perf_counter()
                            o = fn(); torch.cuda.synchronize()
                            if key not in seen and prov != "sdpa":
                                row["first_call_s"] = round(time.perf_counter() - t0, 3)
                                seen.add(key)
                            if mode == "bwd":
                                do = torch.randn_like(o)
                                fwd = fn
                                fn = lambda: o.backward(do, retain_graph=True)
                                t0 = time.perf_counter(); fn(); torch.cuda.synchronize()
                                if ("bwd", n, d) not in seen and prov != "sdpa":
                                    row["first_call_s"] = round(time.perf_counter() - t0, 3)
                                    seen.add(("bwd", n, d))
                            ms, gpu_ms, synced_ms = timed(fn)
                            row["ms"] = round(ms, 4)
                            row["tflops"] = round(flops(n, d, causal, mode) * 1e-9 / ms, 1)
                            row["gpu_tflops"] = round(flops(n, d, causal, mode) * 1e-9 / gpu_ms, 1)
                            row["synced_tflops"] = round(flops(n, d, causal, mode) * 1e-9 / synced_ms, 1)
                            best = getattr(t06._attn_fwd, "best_config", None)
                            if best is not None and prov != "sdpa" and mode == "fwd":
                                row["config"] = str(best).replace(" ", "")
                        except Exception as exc:
                            row["error"] = (type(exc).__name__ + ": " + str(exc))[:300]
                            traceback.print_exc()
                        with open(args["out"], "a") as f:
                            f.write(json.dumps(row) + "\n")
                        del q, k, v
                        torch.cuda.empty_cache()
"""


def run_target(target, args, out):
    """One target's rows: 'tilec' or 'triton', optionally with environment settings for
    an A/B in the same run ('tilec:TILEC_WGMMA_DEFER=0')."""
    target, env, _ = target_env(target, "t06")
    if not args.autotune:
        env["PYTEST_VERSION"] = "tutorial06-benchmark"  # the tutorial's single config
    spec = dict(tutorial=args.tutorial, dims=[int(x) for x in args.dims.split(",")],
                n=[int(x) for x in args.n.split(",")], out=out,
                modes=[m for m in args.modes.split(",") if m], sdpa=target == args.sdpa_with)
    try:
        r = subprocess.run([sys.executable, "-c", CHILD, json.dumps(spec)], env=env,
                           timeout=args.timeout, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{target}: exit {r.returncode}\n{r.stderr[-3000:]}", file=sys.stderr)
    except subprocess.TimeoutExpired:
        print(f"{target}: stopped after {args.timeout} s; the rows so far are kept", file=sys.stderr)
    if not os.path.exists(out):
        return []
    with open(out) as f:  # one JSON row per line, so the rows of a stopped run survive
        return [json.loads(line) for line in f if line.strip()]


def table(results):
    """Markdown rows: tilec and Triton, their ratio, SDPA; other targets (A/B variants of
    tilec) as extra TFLOP/s columns."""
    key = lambda r: (r["d"], r["mode"], r["causal"], r["ws"], r["provider"], r["n"])
    by = {t: {key(r): r for r in rows} for t, rows in results.items()}
    sdpa = {(k[0], k[1], k[2], k[5]): r for rows in by.values() for k, r in rows.items()
            if k[4] == "sdpa"}
    keys = sorted({k for rows in by.values() for k in rows if k[4] != "sdpa"})
    extra = [t for t in results if t not in ("tilec", "triton")]
    fmt = lambda x: "-" if x is None else (f"{x:.2f}" if isinstance(x, float) and x < 10 else f"{x}")
    print("| D | mode | causal | ws | dtype | N | tilec TFLOP/s | Triton | SDPA | tilec/Triton "
          "| tilec/SDPA | GPU time: tilec / Triton | first call tilec / Triton s |"
          + "".join(f" {t} |" for t in extra))
    print("|---" * (13 + len(extra)) + "|")
    out = []
    for k in keys:
        a, b = by.get("tilec", {}).get(k, {}), by.get("triton", {}).get(k, {})
        s = sdpa.get((k[0], k[1], k[2], k[5]), {})
        ta, tb, ts = a.get("tflops"), b.get("tflops"), s.get("tflops")
        r1 = ta / tb if ta and tb else None
        r2 = ta / ts if ta and ts and k[4] == "fp16" else None
        ga, gb = a.get("gpu_tflops"), b.get("gpu_tflops")
        r3 = ga / gb if ga and gb else None
        err = a.get("error") or b.get("error")
        more = {t: by[t].get(k, {}).get("tflops") for t in extra}
        print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {k[4]} | {k[5]} | {fmt(ta)} | {fmt(tb)} | "
              f"{fmt(ts) if k[4] == 'fp16' else '-'} | {fmt(r1)} | {fmt(r2)} | {fmt(r3)} | "
              f"{a.get('first_call_s', '')} / {b.get('first_call_s', '')} |"
              + "".join(f" {fmt(v)} |" for v in more.values()) + (f" {err[:80]}" if err else ""))
        out.append(dict(d=k[0], mode=k[1], causal=k[2], ws=k[3], dtype=k[4], n=k[5], tilec=ta,
                        triton=tb, sdpa=ts, ratio_triton=r1, ratio_sdpa=r2, gpu_tilec=ga,
                        gpu_triton=gb, gpu_ratio_triton=r3,
                        first_call_tilec=a.get("first_call_s"),
                        first_call_triton=b.get("first_call_s"), **more))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tutorial", default=os.path.join(
        os.environ.get("TRITON_SRC", os.path.join(ROOT, ".triton")), "python", "tutorials",
        "06-fused-attention.py"))
    ap.add_argument("--json")
    ap.add_argument("--n", default="1024,4096,16384")
    ap.add_argument("--dims", default="64,128")
    ap.add_argument("--modes", default="fwd,bwd", help="fwd, bwd or both")
    ap.add_argument("--targets", default="tilec;triton",
                    help="';'-separated; a target may carry settings: tilec:VAR=1,VAR2=0")
    ap.add_argument("--sdpa-with", default="triton", help="the target whose process times SDPA")
    ap.add_argument("--autotune", action="store_true")
    ap.add_argument("--timeout", type=int, default=1200)
    args = ap.parse_args()
    import torch
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, t in enumerate(args.targets.split(";")):
            results[t] = run_target(t, args, os.path.join(tmp, f"{i}.json"))
    device = torch.cuda.get_device_name()
    print(f"device: {device}; autotune: {args.autotune}")
    rows = table(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=device, autotune=args.autotune, rows=rows, raw=results), f, indent=1)


if __name__ == "__main__":
    main()
