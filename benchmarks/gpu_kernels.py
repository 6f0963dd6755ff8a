"""The seed kernels on the GPU: tilec against torch and Triton (issue 3's speed targets).

    python benchmarks/gpu_kernels.py [--json PATH] [--reps N] [--only SUBSTRING] [--no-flush]
                                     [--gpu-time]

For each kernel and size, GB/s of tilec (the seed kernel compiled by tilec), torch (its own
kernel for the same operation) and Triton (the same seed kernel compiled by Triton, when
importable), with the same launch parameters as the seeds' host wrappers. Bytes: each input
read once and each output written once. Time: CUDA events around each launch, median of
--reps launches after warm-up, L2 flushed (a 256 MiB memset) before each launch. The
implementations are timed in interleaved rounds (each launched once per round, the order
rotated), and tilec twice: the "A/A" column is the difference between tilec's two medians,
the noise floor any comparison in that row stands on. --gpu-time times the same launches
again queued behind a GPU sleep (no host time between them) and adds tilec's speed over
torch's and Triton's by that GPU time: where the two timings disagree, the host's launch
path shows between the kernels of the default timing.

Also measured in the same run: the device copy ceiling (torch clone of a 1 GiB tensor,
bytes read + written) and the first call of the GELU kernel with an empty tilec cache
(a fresh process and TILEC_CACHE_DIR: compile + load + launch + sync), then again with
the disk cache filled.

The matmul lines (issue 4) are the seed matmul, autotuned over its 8 configs on the first
call (not timed), against torch.matmul (cuBLAS) and Triton, in TFLOP/s (2 n^3 flops; the
"gbps" fields of those rows hold TFLOP/s and the row's "unit" says so); "check" is the
relative error against torch (<= 1e-2). The attention lines run the seed fused attention
(its host wrapper's BLOCK_M=128, BLOCK_N=64) against torch's scaled_dot_product_attention
with scale=1 (the seed applies no scale), in TFLOP/s (4 Z H N^2 D flops).

The table's "must" column is the issue's bar: vector add and GELU >= 0.95 x torch,
softmax and LayerNorm >= Triton; "met" says whether tilec clears it ("~" when it misses
by less than 1%, within run-to-run noise); "check" compares tilec's result with torch's.
Each measurement runs on its own: a failure is recorded in the table and the rest go on.
This is a benchmark, not a test: it reports, it never fails on slow numbers.
"""

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SEEDS = os.path.join(ROOT, "tests", "data", "seed_kernels.py")


def load_seeds(impl, path=SEEDS):
    """The kernels module at `path` (the seeds by default) with IMPL=impl (tilec or
    triton), under its own name."""
    old = os.environ.get("IMPL")
    os.environ["IMPL"] = impl
    try:
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(f"{name}_bench_{impl}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        if old is None:
            os.environ.pop("IMPL", None)
        else:
            os.environ["IMPL"] = old


def short_error(e, limit=70):
    text = f"{type(e).__name__}: {e}".replace("\n", " ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Timer:
    """Median milliseconds of a launch, by CUDA events, L2 flushed before each launch.
    behind_sleep: the timed launches are queued behind a GPU sleep long enough for the host
    to enqueue them all, so that no host time between launches shows (GPU time; host gaps
    then show only as the difference from the default timing)."""

    def __init__(self, torch, reps, flush, behind_sleep=False):
        self.torch = torch
        self.reps = reps
        self.behind_sleep = behind_sleep
        self.cache = torch.empty(256 << 20, dtype=torch.int8, device="cuda") if flush else None

    def median_ms(self, fn, warmup=5):
        return self.interleaved_ms({"": fn}, warmup)[""]

    def interleaved_ms(self, fns, warmup=5):
        """{name: median ms} of each launcher in `fns` (see interleaved_samples)."""
        return {n: statistics.median(v)
                for n, v in self.interleaved_samples(fns, warmup).items()}

    def interleaved_samples(self, fns, warmup=5):
        """{name: [ms of each launch]} of each launcher in `fns`, timed in rounds that run
        every launcher once, in an order rotated from round to round: clock or temperature
        drift during the measurement falls on all of them alike, not on whichever runs
        last."""
        torch = self.torch
        names = list(fns)
        for fn in fns.values():
            for _ in range(warmup):
                fn()
        torch.cuda.synchronize()
        if self.behind_sleep:  # ~0.5 s at 2 GHz: far longer than enqueueing the rounds
            torch.cuda._sleep(1_000_000_000)
        events = {n: [] for n in names}
        for i in range(self.reps):
            for j in range(len(names)):
                name = names[(i + j) % len(names)]
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(
                    enable_timing=True)
                if self.cache is not None:
                    self.cache.zero_()
                start.record()
                fns[name]()
                end.record()
                events[name].append((start, end))
        torch.cuda.synchronize()
        return {n: [s.elapsed_time(e) for s, e in events[n]] for n in names}


def copy_ceiling(torch, timer):
    n = 1 << 30
    x = torch.empty(n, device="cuda", dtype=torch.uint8).random_(0, 255)
    ms = timer.median_ms(lambda: x.clone())
    del x
    return 2 * n / (ms * 1e-3) / 1e9


# --- the kernels: inputs, byte counts, launchers for each implementation -------------------

def case_add(torch, n):
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.empty_like(x)

    def seed(mod):
        k, grid = mod.add_kernel, (mod.triton.cdiv(n, 1024),)
        return lambda: k[grid](x, y, out, n, BLOCK_SIZE=1024)

    def check():
        return "ok" if torch.equal(out, x + y) else "WRONG"

    return 3 * 4 * n, seed, lambda: torch.add(x, y, out=out), check


def case_gelu(torch, n):
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    ref = lambda: torch.nn.functional.gelu(x, approximate="tanh")

    def seed(mod):
        k, grid = mod.triton_gelu_kernel, (mod.triton.cdiv(n, 1024),)
        return lambda: k[grid](x, y, n, BLOCK_SIZE=1024)

    def check():
        return close(torch, y, ref(), 1e-4, 1e-5)

    return 2 * 4 * n, seed, ref, check


def case_softmax(torch, m, n):
    x = torch.randn((m, n), device="cuda")
    y = torch.empty_like(x)
    ref = lambda: torch.softmax(x, dim=1)

    def seed(mod):
        block = mod.triton.next_power_of_2(n)
        nw = 4 if block <= 2048 else (8 if block <= 8192 else 16)
        k = mod.softmax_kernel
        return lambda: k[(m,)](x, y, x.stride(0), y.stride(0), n, BLOCK_SIZE=block,
                               num_warps=nw)

    def check():
        return close(torch, y, ref(), 1e-4, 1e-6)

    return 2 * 4 * m * n, seed, ref, check


def case_layernorm(torch, m, n):
    x = torch.randn((m, n), device="cuda", dtype=torch.float16)
    w = torch.randn(n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    mean = torch.empty(m, device="cuda")
    rstd = torch.empty(m, device="cuda")
    ref = lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)

    def seed(mod):
        block = mod.triton.next_power_of_2(n)
        nw = min(max(block // 256, 1), 8)
        k = mod.layernorm_kernel
        return lambda: k[(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK_SIZE=block,
                               num_warps=nw)

    def check():
        return close(torch, y, ref(), 1e-2, 1e-2)

    # x read, y written (fp16); w, b read (fp16); mean, rstd written (fp32)
    return 2 * 2 * m * n + 2 * 2 * n + 2 * 4 * m, seed, ref, check


def case_matmul(torch, n, dtype):
    """The seed matmul (autotuned over its 8 configs) at n^3; work in flops (2 n^3)."""
    dt = getattr(torch, dtype)
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn((n, n), device="cuda", generator=g).to(dt)
    b = torch.randn((n, n), device="cuda", generator=g).to(dt)
    out = {}

    def seed(mod):
        def run():
            out["c"] = mod.matmul(a, b)
        return run

    def check():
        torch.cuda.synchronize()
        ref = torch.matmul(a, b).float()
        err = ((out["c"].float() - ref).norm() / ref.norm()).item()
        return "ok" if err <= 1e-2 else f"WRONG (rel err {err:.3g})"

    return 2 * n ** 3, seed, lambda: torch.matmul(a, b), check


def case_attention(torch, z, h, n_ctx, d):
    """The seed fused attention (no softmax scale, not causal) against torch's SDPA with
    scale=1; work in flops (4 Z H N^2 D: the two products)."""
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (0.5 * torch.randn((z, h, n_ctx, d), device="cuda", generator=g).half()
               for _ in range(3))
    out = {}
    ref = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0)

    def seed(mod):
        def run():
            out["o"] = mod.attention(q, k, v)
        return run

    def check():
        return close(torch, out["o"], ref(), 1e-2, 1e-2)

    return 4 * z * h * n_ctx * n_ctx * d, seed, ref, check


def close(torch, got, want, rtol, atol):
    torch.cuda.synchronize()
    got, want = got.float(), want.float()
    if torch.allclose(got, want, rtol=rtol, atol=atol):
        return "ok"
    err = (got - want).abs().nan_to_num(float("inf")).max().item()
    return f"WRONG (max err {err:.3g})"


CASES = [
    # name, size label, factory, must: (reference column, factor)
    ("vector add fp32", "2^26", lambda t: case_add(t, 1 << 26), ("torch", 0.95)),
    ("GELU fp32", "2^26", lambda t: case_gelu(t, 1 << 26), ("torch", 0.95)),
    ("softmax fp32", "16384x1024", lambda t: case_softmax(t, 16384, 1024), ("Triton", 1.0)),
    ("softmax fp32", "4096x4096", lambda t: case_softmax(t, 4096, 4096), ("Triton", 1.0)),
    ("softmax fp32", "1024x16384", lambda t: case_softmax(t, 1024, 16384), ("Triton", 1.0)),
    ("LayerNorm fwd fp16", "32768x1024", lambda t: case_layernorm(t, 32768, 1024),
     ("Triton", 1.0)),
    ("LayerNorm fwd fp16", "4096x8192", lambda t: case_layernorm(t, 4096, 8192),
     ("Triton", 1.0)),
    # rates in TFLOP/s (RATE_UNITS); the bars: 1.1 x / 1.05 x Triton
    ("matmul fp16", "4096^3", lambda t: case_matmul(t, 4096, "float16"), ("Triton", 1.1)),
    ("matmul fp16", "8192^3", lambda t: case_matmul(t, 8192, "float16"), ("Triton", 1.05)),
    ("matmul bf16", "4096^3", lambda t: case_matmul(t, 4096, "bfloat16"), ("Triton", 1.0)),
    ("matmul bf16", "8192^3", lambda t: case_matmul(t, 8192, "bfloat16"), ("Triton", 1.0)),
    ("attention fwd fp16", "Z4 H32 D64 N1024", lambda t: case_attention(t, 4, 32, 1024, 64),
     ("Triton", 1.2)),
    ("attention fwd fp16", "Z4 H32 D64 N4096", lambda t: case_attention(t, 4, 32, 4096, 64),
     ("Triton", 1.2)),
]

# Kernels whose work is counted in flops: their "gbps" fields hold TFLOP/s (the row says so).
RATE_UNITS = {"matmul": ("TFLOP/s", 1e12), "attention": ("TFLOP/s", 1e12)}


def rate_unit(name):
    for prefix, unit in RATE_UNITS.items():
        if name.startswith(prefix):
            return unit
    return ("GB/s", 1e9)


def measure_case(torch, timer, case, impls, errors, gpu_timer=None):
    name, size, factory, (must_ref, must_factor) = case
    row = {"kernel": name, "size": size, "gbps": {}, "ms": {}, "check": "n/a",
           "must": f">= {must_factor:g} x {must_ref}" if must_factor != 1 else f">= {must_ref}"}
    try:
        nbytes, seed, torch_fn, check = factory(torch)
    except Exception as e:  # e.g. out of memory: the whole row is lost
        errors.append(f"{name} {size}: inputs: {traceback.format_exc()}")
        row["error"] = short_error(e)
        return row
    unit, scale = rate_unit(name)
    row["bytes" if unit == "GB/s" else "flops"] = nbytes
    row["unit"] = unit
    launchers = {"torch": lambda: torch_fn}
    for impl, mod in impls.items():
        launchers[impl] = (lambda m: lambda: seed(m))(mod)
    fns = {}
    for impl in ["tilec", "torch", "Triton"]:
        if impl not in launchers:
            continue
        try:
            fn = launchers[impl]()
            fn()  # compiles
            torch.cuda.synchronize()
            if impl == "tilec":
                row["check"] = check()
            fns[impl] = fn
        except Exception as e:
            errors.append(f"{name} {size} [{impl}]: {traceback.format_exc()}")
            row["gbps"][impl] = None
            row.setdefault("errors", {})[impl] = short_error(e)
            if impl == "tilec":
                row["check"] = "n/a"
    if "tilec" in fns:  # timed twice: the spread between equal launches, for scale
        fns["tilec (again)"] = fns["tilec"]
    try:
        ms = timer.interleaved_ms(fns) if fns else {}
    except Exception as e:
        errors.append(f"{name} {size} [timing]: {traceback.format_exc()}")
        row["error"] = short_error(e)
        ms = {}
    for impl, t in ms.items():
        key = "tilec_again" if impl == "tilec (again)" else impl
        row["ms"][key] = t
        row["gbps"][key] = nbytes / (t * 1e-3) / scale
    if "tilec" in ms:
        a, b = ms["tilec"], ms["tilec (again)"]
        row["aa_spread"] = abs(a - b) / min(a, b)
    if gpu_timer is not None and fns:  # the same launches with no host time between them
        try:
            gms = gpu_timer.interleaved_ms(fns)
            row["gpu_ms"] = {("tilec_again" if k == "tilec (again)" else k): v
                             for k, v in gms.items()}
        except Exception as e:
            errors.append(f"{name} {size} [GPU timing]: {traceback.format_exc()}")
            row.setdefault("errors", {})["gpu time"] = short_error(e)
    ours = row["gbps"].get("tilec")
    ref = row["gbps"].get(must_ref)
    row["must_met"] = row["within_1pct"] = None
    if ours and ref:
        correct = row["check"] == "ok"
        row["must_met"] = ours >= must_factor * ref and correct
        # timings of equal kernels differ by a few tenths of a percent from run to run
        row["within_1pct"] = ours >= 0.99 * must_factor * ref and correct
    return row


FIRST_CALL = r"""
import importlib.util, os, sys, time
import torch
torch.zeros(1, device="cuda"); torch.cuda.synchronize()  # the CUDA context is not counted
t_import = time.perf_counter()
import tilec
os.environ["IMPL"] = "tilec"
spec = importlib.util.spec_from_file_location("seeds_first_call", sys.argv[1])
sk = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sk)
x = torch.randn(1 << 20, device="cuda"); y = torch.empty_like(x); torch.cuda.synchronize()
t0 = time.perf_counter()
sk.triton_gelu_kernel[(tilec.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK_SIZE=1024)
t1 = time.perf_counter()
torch.cuda.synchronize()
t2 = time.perf_counter()
ref = torch.nn.functional.gelu(x, approximate="tanh")
ok = torch.allclose(y, ref, rtol=1e-4, atol=1e-5)
print("RESULT", t0 - t_import, t1 - t0, t2 - t0, int(ok))
"""


def first_call():
    """(cold, warm, ok, error): ms of compile + load + launch + sync of GELU in a fresh
    process with an empty cache, then in another one with the disk cache it filled."""
    out = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TILEC_CACHE_DIR=cache)
        env.pop("TILEC_ALWAYS_COMPILE", None)
        for _ in range(2):
            r = subprocess.run([sys.executable, "-c", FIRST_CALL, SEEDS], env=env,
                               capture_output=True, text=True, timeout=120)
            line = [l for l in r.stdout.splitlines() if l.startswith("RESULT ")]
            if not line:
                tail = (r.stdout + r.stderr).strip().splitlines()[-3:]
                return None, None, False, " | ".join(tail)[-300:]
            _, imp, host, total, ok = line[-1].split()
            out.append((float(total) * 1e3, ok == "1"))
    return out[0][0], out[1][0], out[0][1] and out[1][1], None


# --- output ------------------------------------------------------------------------------

def fmt(v, spec=".0f"):
    return "n/a" if v is None else format(v, spec)


def gpu_ratio(row, ref):
    """tilec's speed over ref's by GPU time (the --gpu-time timing), as text."""
    g = row.get("gpu_ms", {})
    return fmt(g[ref] / g["tilec"] if g.get("tilec") and g.get(ref) else None, ".3f")


def table_rows(copy_gbps, rows, first):
    header = ["kernel", "size", "tilec GB/s", "torch", "Triton", "tilec/torch", "tilec/Triton",
              "must", "met", "check", "A/A"]
    gpu = any("gpu_ms" in r for r in rows)
    if gpu:
        header += ["GPU: tilec/torch", "tilec/Triton"]
    pad = [""] * (len(header) - 11)
    out = [header]
    out.append(["copy ceiling (torch clone)", "1 GiB", "", fmt(copy_gbps), "", "", "", "", "",
                "", ""] + pad)
    for r in rows:
        g = r["gbps"]
        t, to, tr = g.get("tilec"), g.get("torch"), g.get("Triton")
        errs = r.get("errors", {})
        cell = lambda impl, v: ("ERR " + errs[impl]) if impl in errs else fmt(v)
        met = {True: "yes", False: "NO", None: "n/a"}[r.get("must_met")]
        if r.get("must_met") is False and r.get("within_1pct"):
            met = "~ (<1% short)"
        kernel = r["kernel"] + (f" [{r['unit']}]" if r.get("unit", "GB/s") != "GB/s" else "")
        out.append([kernel, r["size"], cell("tilec", t), cell("torch", to),
                    cell("Triton", tr), fmt(t / to if t and to else None, ".2f"),
                    fmt(t / tr if t and tr else None, ".2f"), r["must"], met,
                    r.get("error", r["check"]),
                    fmt(r["aa_spread"] * 100, ".1f") + "%" if "aa_spread" in r else ""] +
                   ([gpu_ratio(r, "torch"), gpu_ratio(r, "Triton")] if gpu else []))
    cold, warm, ok, err = first
    if err:
        out.append(["GELU first call, empty cache", "2^20", "ERR " + err[:70], "", "", "", "",
                    "<= 60 ms", "n/a", "", ""] + pad)
    else:
        out.append(["GELU first call, empty cache", "2^20", f"{cold:.1f} ms", "", "", "", "",
                    "<= 60 ms", "yes" if cold <= 60 else "NO", "ok" if ok else "WRONG", ""] + pad)
        out.append(["GELU first call, disk cache", "2^20", f"{warm:.1f} ms", "", "", "", "", "",
                    "", "", ""] + pad)
    widths = [max(len(str(r[i])) for r in out) for i in range(len(header))]
    return [[str(c).ljust(w) for c, w in zip(r, widths)] for r in out]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=os.path.join(HERE, "results", "gpu_kernels.json"))
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--only", default="", help="run only the kernels whose name contains this")
    ap.add_argument("--no-flush", action="store_true", help="do not flush L2 between launches")
    ap.add_argument("--no-triton", action="store_true")
    ap.add_argument("--gpu-time", action="store_true",
                    help="also time each row's launches queued behind a GPU sleep (GPU time, "
                    "no host gaps) and give the ratios by that time")
    args = ap.parse_args()
    t_start = time.perf_counter()
    try:
        import torch
    except ImportError:
        print("gpu_kernels.py: torch is not installed; nothing to measure")
        return
    if not torch.cuda.is_available():
        print("gpu_kernels.py: no CUDA device; nothing to measure")
        return
    errors = []
    impls = {}
    try:
        impls["tilec"] = load_seeds("tilec")
    except Exception as e:
        errors.append("tilec seeds: " + traceback.format_exc())
        print(f"tilec seeds not loaded: {short_error(e, 200)}", file=sys.stderr)
    triton_version = None
    if not args.no_triton:
        try:
            impls["Triton"] = load_seeds("triton")
            triton_version = impls["Triton"].triton.__version__
        except Exception as e:  # Triton missing or broken: report without it
            errors.append("Triton: " + traceback.format_exc())
            print(f"Triton not measured: {short_error(e, 200)}", file=sys.stderr)

    timer = Timer(torch, args.reps, not args.no_flush)
    gpu_timer = Timer(torch, args.reps, not args.no_flush, behind_sleep=True) \
        if args.gpu_time else None
    try:
        copy_gbps = copy_ceiling(torch, timer)
    except Exception as e:
        errors.append("copy ceiling: " + traceback.format_exc())
        copy_gbps = None
    rows = []
    for case in CASES:
        if args.only and args.only.lower() not in case[0].lower():
            continue
        rows.append(measure_case(torch, timer, case, impls, errors, gpu_timer))
        torch.cuda.empty_cache()
    try:
        first = first_call()
    except Exception as e:
        errors.append("first call: " + traceback.format_exc())
        first = (None, None, False, short_error(e))

    dev = torch.cuda.get_device_name()
    table = table_rows(copy_gbps, rows, first)
    print(f"device: {dev}; torch {torch.__version__}; Triton {triton_version or 'n/a'}; "
          f"median of {args.reps} launches, L2 {'not ' if args.no_flush else ''}flushed")
    for r in table:
        print("  ".join(r).rstrip())
    for e in errors:
        print("\n" + e.rstrip(), file=sys.stderr)
    elapsed = time.perf_counter() - t_start
    print(f"({elapsed:.0f} s)")
    report = {
        "machine": {"device": dev, "platform": platform.platform(),
                    "python": platform.python_version(), "torch": torch.__version__,
                    "triton": triton_version},
        "copy_ceiling_gbps": copy_gbps,
        "reps": args.reps,
        "l2_flushed": not args.no_flush,
        "results": rows,
        "first_call_ms": {"empty_cache": first[0], "disk_cache": first[1], "correct": first[2],
                          "error": first[3]},
        "errors": errors,
        "seconds": elapsed,
        "table": table,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(report, f, indent=2)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
