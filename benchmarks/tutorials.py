"""Triton's tutorials 03 (matrix multiplication), 05 (layer norm) and 09 (persistent matmul),
files unchanged, on tilec and on Triton 3.6 one after the other on the same GPU, with torch
beside them (the matmul and layer-norm rows of the Hopper-speed issue):

    python benchmarks/tutorials.py [--json PATH] [--parts matmul,layernorm,persistent]
                                   [--sizes 4096,8192] [--dtypes fp16,fp8]
                                   [--ns 1024,2048,4096,8192,16384] [--ks 512,4096]
                                   [--t09-config '{"BLOCK_SIZE_N": 256, "num_stages": 3}']
                                   [--targets "tilec;triton;tilec:VAR=1"] [--torch-with triton]

Each target runs in a child process with an empty kernel cache (TILEC_CACHE_DIR and
TRITON_CACHE_DIR in a fresh temporary directory); TILEC_AS_TRITON=1 makes `import triton`
resolve to tilec for "tilec", "triton" runs without it; a target may carry settings for an
A/B (`tilec:VAR=1,V=0`). Each tutorial is executed from its file up to its first top-level
call statement (03: the `torch.manual_seed(0)` starting its unit test; 05:
`test_layer_norm(...)`): its definitions as written, not its tests nor its sweeps. torch is
timed in one target's process (--torch-with).

matmul, TFLOP/s (2*M*N*K over the time, M = N = K): the tutorial's `matmul(a, b)`, its
autotuner over its 16 CUDA configs, inputs as its `benchmark` makes them (fp16 randn; fp8:
a.to(float8_e5m2); b = b.T, then .to(float8_e5m2)). torch: torch.matmul (cuBLAS) for fp16;
for fp8 torch._scaled_mm (unit scales, fp16 out), which takes e4m3 only (cuBLAS has no e5m2 x
e5m2 GEMM): its operands are float8_e4m3fn from the same randn values while the tutorial
keeps e5m2 (same shapes, layouts and bytes, not the same numbers). It is timed with precise
accumulation ("torch", its default) and use_fast_accum=True ("torch fast", like for like:
Triton's sm_90 default for fp8 dots, max_num_imprecise_acc 2**30, is the fast accumulation).
bf16 is opt-in (--dtypes fp16,fp8,bf16): the kernel takes bf16 operands, but the tutorial's
wrapper allocates an fp16 C and casts the accumulator to fp16, so it is a bf16-in/fp16-out
GEMM (torch: bf16 torch.matmul), and a third autotuning in each target.
persistent (opt-in: --parts persistent), TFLOP/s: tutorial 09's wrappers as its bench(K)
calls them (M = N = 8192 or --mn, K in --ks; fp16, or e4m3 for fp8): matmul (naive), persistent,
tma, tma_persistent, descriptor_persistent, and descriptor_persistent with warp_specialize
(descriptor_persistent_ws, the one the tutorial runs so on Hopper); torch: cuBLAS (fp16
torch.matmul; fp8 torch._scaled_mm with fast accumulation, as the tutorial's binding), the
same row beside each. --t09-config keeps only the first config of each of its autotuners
that matches (a field of the config's kwargs, num_stages or num_warps), so that Triton's
first calls do not autotune 24 configs a kernel (over 200 s for the tutorial on an H200).
Check: against torch.matmul of the fp16 values, atol 1e-2 + 2**-9 max (fp8 1.0 + 2**-4).
layernorm, GB/s (M 4096, fp16, N in --ns, points of the tutorial's 512*i grid): LayerNorm.apply
against torch.nn.functional.layer_norm, inputs as bench_layer_norm makes them. "fwd" times the
forward, 2*x.numel()*2 bytes; "bwd" times `y.backward(dy, retain_graph=True)` with x.grad set
to None before each call (its grad_to_none=[x]), 3*x.numel()*2 bytes: its own GB/s.

Timing, as triton.testing.do_bench: a 256 MiB L2 flush before each call, CUDA events around
it, no host sync between calls; the median of 20-100 calls (about 0.1 s) after 3 warm-up
calls. "GPU": the same calls queued behind a GPU sleep, so that no host time shows.
first_call_s: the first call of each (dtype, size) or (N, direction) in the fresh process:
compile, autotuning (all 16 configs at a dtype's first size; at the next, autotuning of the
compiled kernels only) and launch; bwd's holds one (compiled) forward. The default run
should take 2-4 minutes on an H200, mostly autotuning; a target's process is stopped after
--timeout s, its rows so far kept.

Check ("ok"/"WRONG", kernel rows): max|out - ref| <= atol + r * max|ref| against torch, with
the tutorial's atol (matmul fp16 1e-2; fp8 0.125 against torch.matmul(a.half(), b.half());
layer norm 1e-2) and r = 0 for layer norm's y and dx. r > 0 where that atol was set for
smaller problems: matmul fp16/bf16 2**-9 (outputs reach +-300 at K 4096-8192, where an fp16
ulp is up to 0.25; bf16 against an fp32 matmul), fp8 2**-5 (fast accumulation keeps about 14
bits: an error growing with K, some 2 % at K 4096 by DeepSeek-V3's account), dw and db 2**-6
(summed in fp16 partial buffers of 16-64 rows each at M 4096). max_err: each difference.

A benchmark, not a test: it reports, it never fails on slow numbers; an error in one row is
recorded there and the other rows go on.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from bench_targets import target_env

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES = ["fp16", "bf16", "fp8", "fwd", "bwd"]
UNITS = {"matmul": "TFLOP/s", "persistent": "TFLOP/s", "layernorm": "GB/s"}


def load_tutorial(path, name, needed):
    """The tutorial at `path` as module `name`, run up to its first top-level call statement;
    compiled from its file, so that inspect.getsource works for its @jit functions."""
    import ast
    import importlib.util
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            del tree.body[i:]
            break
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    exec(compile(tree, path, "exec"), mod.__dict__)
    missing = [n for n in needed if not hasattr(mod, n)]
    if missing:
        raise RuntimeError(f"{path}: no {missing} before its first top-level call")
    return mod


def child(spec):
    """One target's rows, one JSON object a line appended to spec['out']."""
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
    import statistics
    import traceback
    import torch
    F = torch.nn.functional

    def emit(row):
        with open(spec["out"], "a") as f:
            print(json.dumps(row), file=f)

    torch.zeros(1, device="cuda"); torch.cuda.synchronize()
    # torch's first backward imports sympy (seconds): no part of either compiler's first call
    _x = torch.ones(4, device="cuda", requires_grad=True)
    (_x * 2).backward(torch.ones(4, device="cuda")); torch.cuda.synchronize()
    import triton
    emit({"meta": dict(device=torch.cuda.get_device_name(), torch=torch.__version__,
                       triton=getattr(triton, "__version__", "?"), triton_file=triton.__file__)})
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    ev = lambda: torch.cuda.Event(enable_timing=True)

    def timed(fn, reset=lambda: None):
        # (ms, gpu_ms): do_bench's way (flush, events, no sync, median); then the same calls
        # queued behind a GPU sleep, so that no host time shows
        for _ in range(3):
            reset(); fn()
        s, e = ev(), ev()
        reset(); s.record(); fn(); e.record(); torch.cuda.synchronize()
        reps = max(20, min(100, int(100.0 / max(s.elapsed_time(e), 1e-3))))

        def median_of(n):
            pairs = [(ev(), ev()) for _ in range(n)]
            for a, b in pairs:
                reset(); flush.zero_(); a.record(); fn(); b.record()
            torch.cuda.synchronize()
            return statistics.median(a.elapsed_time(b) for a, b in pairs)
        ms = median_of(reps)
        torch.cuda._sleep(100_000_000)
        return ms, median_of(min(reps, 50))

    def check(items):
        # items: (name, out, ref, atol, r): ok when max|out - ref| <= atol + r * max|ref|
        bad, errs = [], {}
        for name, out, ref, atol, r in items:
            d = (out.float() - ref.float()).abs().max().item()
            tol = atol + r * ref.float().abs().max().item()
            errs[name] = float(f"{d:.4g}")
            if not d <= tol:
                bad.append(f"{name} {d:.3g}>{tol:.3g}")
        return {"check": "WRONG " + ", ".join(bad) if bad else "ok", "max_err": errs}

    def measure(row, fn, work, first, reset=lambda: None, after=None):
        # one row: first-call time, do_bench time, GPU time, then `after` (the check)
        try:
            t0 = time.perf_counter(); first(); torch.cuda.synchronize()
            if row["provider"] == "kernel":
                row["first_call_s"] = round(time.perf_counter() - t0, 3)
            ms, gpu_ms = timed(fn, reset)
            row.update(ms=round(ms, 4), gpu_ms=round(gpu_ms, 4), perf=round(work / ms, 1),
                       gpu_perf=round(work / gpu_ms, 1))
            if after is not None:
                row.update(after())
        except Exception as exc:
            row["error"] = (type(exc).__name__ + ": " + str(exc))[:300]
            traceback.print_exc()
        emit(row)

    def scaled_mm(a, b, one, fast):
        r = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float16,
                             use_fast_accum=fast)
        return r[0] if isinstance(r, tuple) else r  # older torch: (out, amax)

    def loaded(file, name, needed):
        try:
            return load_tutorial(os.path.join(spec["tutorials"], file), name, needed)
        except Exception as exc:  # its rows say so
            traceback.print_exc()
            return exc

    if "matmul" in spec["parts"]:
        t03 = loaded("03-matrix-multiplication.py", "tutorial03", ["matmul", "matmul_kernel"])
        refs = {"fp16": ["torch"], "bf16": ["torch"], "fp8": ["torch", "torch_fast"]}
        for dt in spec["dtypes"]:
            for n in spec["sizes"]:
                for prov in ["kernel"] + (refs[dt] if spec["torch"] else []):
                    row = dict(part="matmul", case=dt, size=n, provider=prov)
                    if prov == "kernel" and isinstance(t03, Exception):
                        emit(dict(row, error=f"loading the tutorial: {t03!r}"[:300])); continue
                    torch.manual_seed(0)
                    src = torch.bfloat16 if dt == "bf16" else torch.float16
                    a, b = (torch.randn((n, n), device="cuda", dtype=src) for _ in "ab")
                    if dt == "fp8":  # as the tutorial's benchmark; torch's _scaled_mm: e4m3
                        f8 = torch.float8_e5m2 if prov == "kernel" else torch.float8_e4m3fn
                        a = a.to(f8); b = b.T; b = b.to(f8)
                    after = None  # the check, after the timing
                    if prov == "kernel":
                        fn = lambda: t03.matmul(a, b)
                        ref = lambda: (torch.matmul(a.half(), b.half()) if dt == "fp8" else
                                       torch.matmul(a, b) if dt == "fp16" else
                                       torch.matmul(a.float(), b.float()).half())
                        tol = (0.125, 2 ** -5) if dt == "fp8" else (1e-2, 2 ** -9)
                        after = lambda: dict(check([("c", fn(), ref(), *tol)]), config=str(
                            getattr(t03.matmul_kernel, "best_config", None)).replace(" ", ""))
                    elif dt == "fp8":
                        one = torch.ones((), device="cuda", dtype=torch.float32)
                        fn = lambda: scaled_mm(a, b, one, prov == "torch_fast")
                    else:
                        fn = lambda: torch.matmul(a, b)
                    measure(row, fn, 2.0 * n ** 3 * 1e-9, fn, after=after)
                    del a, b
                torch.cuda.empty_cache()

    if "persistent" in spec["parts"]:
        t09 = loaded("09-persistent-matmul.py", "tutorial09", ["matmul_tma_persistent"])
        fixed = spec.get("t09_config")  # e.g. {"BLOCK_SIZE_N": 256, "num_stages": 3}
        kernels = ["matmul_kernel", "matmul_kernel_persistent", "matmul_kernel_tma",
                   "matmul_kernel_tma_persistent", "matmul_kernel_descriptor_persistent"]
        for name in kernels if fixed and not isinstance(t09, Exception) else []:
            k = getattr(t09, name)  # the tutorial's autotuner: only the configs matching
            keep = [c for c in k.configs if all(
                (getattr(c, f) if f in ("num_stages", "num_warps") else c.kwargs.get(f, v)) == v
                for f, v in fixed.items())]
            k.configs = keep[:1] or k.configs
        calls = {"naive": lambda a, b: t09.matmul(a, b.T),
                 "persistent": lambda a, b: t09.matmul_persistent(a, b.T),
                 "tma": lambda a, b: t09.matmul_tma(a, b, False),
                 "tma_persistent": lambda a, b: t09.matmul_tma_persistent(a, b, False),
                 "descriptor_persistent": lambda a, b: t09.matmul_descriptor_persistent(
                     a, b, False),
                 # warp_specialize as Hopper runs it (the tutorial: flatten=False; tilec
                 # flattens and specialises it with TILEC_WARP_SPECIALIZE set)
                 "descriptor_persistent_ws": lambda a, b: t09.matmul_descriptor_persistent(
                     a, b, True)}
        for dt in spec["dtypes"]:
            if dt not in ("fp16", "fp8"):
                continue
            for kk in spec["ks"]:
                mn = spec["mn"]  # the tutorial's bench(K): M = N = 8192, b as (N, K)
                torch.manual_seed(0)
                a = torch.randn((mn, kk), device="cuda", dtype=torch.float16)
                b = torch.randn((kk, mn), device="cuda", dtype=torch.float16).T.contiguous()
                if dt == "fp8":
                    a, b = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
                ref = torch.matmul(a.half(), b.half().T)
                one = torch.ones((), device="cuda", dtype=torch.float32)
                work = 2.0 * mn * mn * kk * 1e-9
                if spec["torch"]:  # cuBLAS (fp16 matmul; e4m3 fast accumulation), one row
                    row = dict(part="persistent", case=f"{dt} cublas", size=kk, provider="torch")
                    fn = (lambda: scaled_mm(a, b.T, one, True)) if dt == "fp8" else \
                        (lambda: torch.matmul(a, b.T))
                    measure(row, fn, work, fn)
                    for prov in calls:  # beside each kernel's row in the table
                        emit(dict(row, case=f"{dt} {prov}"))
                for prov in calls:
                    row = dict(part="persistent", case=f"{dt} {prov}", size=kk, provider="kernel")
                    if isinstance(t09, Exception):
                        emit(dict(row, error=f"loading the tutorial: {t09!r}"[:300])); continue
                    fn = (lambda f: lambda: f(a, b))(calls[prov])
                    tol = (1.0, 2 ** -4) if dt == "fp8" else (1e-2, 2 ** -9)
                    measure(row, fn, work, fn, after=lambda: check([("c", fn(), ref, *tol)]))
                del a, b, ref
                torch.cuda.empty_cache()

    if "layernorm" in spec["parts"]:
        t05 = loaded("05-layer-norm.py", "tutorial05", ["LayerNorm"])
        M, dtype, eps = 4096, torch.float16, 1e-5
        for n in spec["ns"]:
            for mode in ("fwd", "bwd"):
                for prov in ["kernel"] + (["torch"] if spec["torch"] else []):
                    row = dict(part="layernorm", case=mode, size=n, provider=prov)
                    if prov == "kernel" and isinstance(t05, Exception):
                        emit(dict(row, error=f"loading the tutorial: {t05!r}"[:300])); continue
                    torch.manual_seed(0)  # the tutorial's bench_layer_norm data
                    w_shape = (n, )
                    weight = torch.rand(w_shape, dtype=dtype, device="cuda", requires_grad=True)
                    bias = torch.rand(w_shape, dtype=dtype, device="cuda", requires_grad=True)
                    x = -2.3 + 0.5 * torch.randn((M, n), dtype=dtype, device="cuda")
                    dy = .1 * torch.randn_like(x)
                    x.requires_grad_(True)
                    ln = F.layer_norm if prov == "torch" else t05.LayerNorm.apply
                    fwd = lambda: ln(x, w_shape, weight, bias, eps)
                    reset = lambda: setattr(x, "grad", None)  # do_bench's grad_to_none=[x]

                    def outputs(f):
                        x.grad = weight.grad = bias.grad = None
                        y = f(x, w_shape, weight, bias, eps)
                        if mode == "fwd":
                            return [y]
                        y.backward(dy, retain_graph=True)
                        return [y] + [t.grad.clone() for t in (x, weight, bias)]

                    after = None if prov == "torch" else lambda: check(
                        [(nm, o, r, 1e-2, rel) for nm, o, r, rel in zip(
                            ("y", "dx", "dw", "db"), outputs(ln), outputs(F.layer_norm),
                            (0, 0, 2 ** -6, 2 ** -6))])
                    if mode == "fwd":
                        measure(row, fwd, 2 * x.numel() * x.element_size() * 1e-6, fwd,
                                after=after)
                    else:  # one forward (compiled by the fwd row), then its backward
                        ys = []
                        bwd = lambda: ys[-1].backward(dy, retain_graph=True)
                        measure(row, bwd, 3 * x.numel() * x.element_size() * 1e-6,
                                lambda: (ys.append(fwd()), bwd()), reset=reset, after=after)
                    del x, dy, weight, bias
                torch.cuda.empty_cache()


def run_target(target, args, out, with_torch):
    """(meta, rows) of one target: 'tilec' or 'triton', optionally with environment
    settings for an A/B in the same run ('tilec:VAR=1,VAR2=0')."""
    kind, env, cache = target_env(target, "tutorials")
    spec = dict(tutorials=args.tutorials, out=out, torch=with_torch,
                parts=[p for p in args.parts.split(",") if p],
                dtypes=[d for d in args.dtypes.split(",") if d],
                sizes=[int(x) for x in args.sizes.split(",") if x],
                ns=[int(x) for x in args.ns.split(",") if x],
                ks=[int(x) for x in args.ks.split(",") if x],
                mn=args.mn,
                t09_config=json.loads(args.t09_config) if args.t09_config else None)
    t0 = time.time()
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", json.dumps(spec)],
                           env=env, timeout=args.timeout, capture_output=True, text=True)
        rc, err = r.returncode, r.stderr
    except subprocess.TimeoutExpired as exc:
        rc, err = f"stopped after {args.timeout} s; the rows so far are kept", exc.stderr
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    err = err.decode(errors="replace") if isinstance(err, bytes) else err or ""
    meta, rows = {}, []
    if os.path.exists(out):
        with open(out) as f:  # one JSON object a line, so the rows of a stopped run survive
            for line in filter(str.strip, f):
                obj = json.loads(line)
                meta.update(obj["meta"]) if "meta" in obj else rows.append(obj)
    if rc != 0 or any("error" in r for r in rows):
        print(f"{target}: exit {rc}\n{err[-3000:]}", file=sys.stderr)
    meta["wall_s"] = round(time.time() - t0, 1)
    return meta, rows


def table(results):
    """Markdown rows: tilec and Triton, their ratio, torch's; other targets (A/B variants)
    as extra columns. Returns the rows as dicts for the JSON."""
    key = lambda r: (r["part"], r["case"], r["size"])
    by = {t: {key(r): r for r in rows if r["provider"] == "kernel"} for t, rows in results.items()}
    ref = {(key(r), r["provider"]): r for rows in results.values() for r in rows
           if r["provider"] != "kernel"}
    case_at = lambda c: (CASES.index(c), "") if c in CASES else (len(CASES), c)
    keys = sorted({k for rows in by.values() for k in rows} | {k for k, _ in ref},
                  key=lambda k: (list(UNITS).index(k[0]), case_at(k[1]), k[2]))
    extra = [t for t in results if t not in ("tilec", "triton")]
    fmt = lambda x: "-" if x is None else f"{x:.2f}" if x < 10 else f"{x:.1f}"
    div = lambda x, y: x / y if x and y else None
    print("| part | case | size | unit | tilec | Triton | torch | torch fast | tilec/Triton | "
          "tilec/torch | GPU: tilec/Triton | first call s tilec / Triton | check tilec / Triton |"
          + "".join(f" {t} |" for t in extra))
    print("|---" * (13 + len(extra)) + "|")
    out = []
    for k in keys:
        a, b = by.get("tilec", {}).get(k, {}), by.get("triton", {}).get(k, {})
        s, sf = ref.get((k, "torch"), {}), ref.get((k, "torch_fast"), {})
        ta, tb, ts, tf = a.get("perf"), b.get("perf"), s.get("perf"), sf.get("perf")
        r1, r2, r3 = div(ta, tb), div(ta, ts), div(a.get("gpu_perf"), b.get("gpu_perf"))
        r2s = fmt(r2) + (f" (fast {fmt(div(ta, tf))})" if tf else "")
        more = {t: by[t].get(k, {}) for t in extra}
        errs = [f"{t}: {r['error'][:80]}" for t, r in [("tilec", a), ("triton", b), ("torch", s),
                                                       ("torch fast", sf), *more.items()]
                if r.get("error")]
        print(f"| {k[0]} | {k[1]} | {k[2]} | {UNITS[k[0]]} | {fmt(ta)} | {fmt(tb)} | {fmt(ts)} | "
              f"{fmt(tf)} | {fmt(r1)} | {r2s} | {fmt(r3)} | {a.get('first_call_s', '-')} / "
              f"{b.get('first_call_s', '-')} | {a.get('check', '-')} / {b.get('check', '-')} |"
              + "".join(f" {fmt(r.get('perf'))} {r.get('check', '')} |" for r in more.values())
              + (" " + "; ".join(errs) if errs else ""))
        out.append(dict(part=k[0], case=k[1], size=k[2], unit=UNITS[k[0]], tilec=ta, triton=tb,
                        torch=ts, torch_fast=tf, ratio_triton=r1, ratio_torch=r2,
                        ratio_torch_fast=div(ta, tf), gpu_ratio_triton=r3,
                        **{f"{f}_{t}": r.get(f) for t, r in (("tilec", a), ("triton", b))
                           for f in ("gpu_perf", "first_call_s", "check", "config")},
                        **{t: r.get("perf") for t, r in more.items()}))
    return out


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        return child(json.loads(sys.argv[2]))
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--tutorials", default=os.path.join(
        os.environ.get("TRITON_SRC", os.path.join(ROOT, ".triton")), "python", "tutorials"),
        help="the folder holding Triton's 03-matrix-multiplication.py, 05-layer-norm.py and "
             "09-persistent-matmul.py")
    ap.add_argument("--json", help="write the rows and every target's raw rows here")
    ap.add_argument("--parts", default="matmul,layernorm")
    ap.add_argument("--sizes", default="4096,8192", help="matmul M = N = K")
    ap.add_argument("--dtypes", default="fp16,fp8", help="matmul: fp16, fp8 (e5m2), bf16")
    ap.add_argument("--ns", default="1024,2048,4096,8192,16384", help="layer norm N (M 4096)")
    ap.add_argument("--ks", default="512,4096", help="persistent (tutorial 09): K (M = N = --mn)")
    ap.add_argument("--mn", type=int, default=8192,
                    help="persistent: M = N (the tutorial's 8192 by default)")
    ap.add_argument("--t09-config", default="",
                    help='persistent: keep only the first autotune config matching this JSON, '
                         'e.g. \'{"BLOCK_SIZE_N": 256, "num_stages": 3, "num_warps": 8}\'')
    ap.add_argument("--targets", default="tilec;triton",
                    help="';'-separated; a target may carry settings: tilec:VAR=1,VAR2=0")
    ap.add_argument("--torch-with", default="triton",
                    help="the target whose process times torch (else the first target)")
    ap.add_argument("--timeout", type=int, default=400, help="seconds per target")
    args = ap.parse_args()
    bad = {p for p in args.parts.split(",") if p} - set(UNITS) | \
        {d for d in args.dtypes.split(",") if d} - {"fp16", "fp8", "bf16"}
    if bad:
        ap.error(f"unknown part or dtype: {sorted(bad)}")
    targets = [t for t in args.targets.split(";") if t]
    torch_with = args.torch_with if args.torch_with in targets else targets[0]
    results, metas = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, t in enumerate(targets):
            print(f"running {t} ...", file=sys.stderr, flush=True)
            metas[t], results[t] = run_target(t, args, os.path.join(tmp, f"{i}.jsonl"),
                                              t == torch_with)
    device = next((m["device"] for m in metas.values() if "device" in m), "?")
    print(f"device: {device}; torch timed in: {torch_with}")
    for t, m in metas.items():
        print(f"- {t}: triton {m.get('triton', '?')} from {m.get('triton_file', '?')}, "
              f"torch {m.get('torch', '?')}, {m['wall_s']} s")
    rows = table(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=device, torch_with=torch_with, targets=metas, rows=rows,
                           raw=results), f, indent=1)


if __name__ == "__main__":
    main()
