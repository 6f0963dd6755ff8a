"""torch.compile on tilec (TILEC_AS_TRITON=1) beside Triton 3.6, on one GPU, in one run.

Each workload runs in a fresh process with empty Inductor and compiler caches (its own
TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR), once with `triton` resolving to tilec and
once to the real Triton:
  pointwise (GELU * y + sin), layernorm_softmax, mlp (Linear-GELU-Linear), llama and gpt2
  (transformers models built from small configs with random weights: a forward in eval
  mode, then training steps with AdamW), flex_attention (causal score_mod).
A third run per workload, "floor", is Triton with its kernel cache filled by an earlier run
(Inductor's caches empty): the first call with no kernel compiled at all, the least time
any compiler behind Inductor can reach (a cold-start ratio cannot go below floor/Triton).
Reported per workload and compiler: whether the compiled result matches eager (torch's
tolerances for the dtype), how many Inductor kernels were compiled and by which compiler,
the first call's time (compile included: the cold start) and the steady-state time of a
call (a training step for the models). The table gives tilec / Triton ratios.

  python benchmarks/torch_compile.py [--json FILE] [--only llama,gpt2] [--target both]
                                     [--profile DIR]
Without a GPU or torch it prints why and exits 0 (CI has neither)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

WORKLOADS = ("pointwise", "layernorm_softmax", "mlp", "llama", "gpt2", "flex_attention")


def _sync(torch, dev):
    if dev == "cuda":
        torch.cuda.synchronize()


def _timed(torch, dev, fn, reps, tag="first"):
    """(seconds of the first call, mean seconds of `reps` later calls, last result). With
    TC_BENCH_CPROFILE set, the first call runs under cProfile (and takes longer)."""
    _sync(torch, dev)
    t = time.perf_counter()
    prof = os.environ.get("TC_BENCH_CPROFILE")
    out = _first_call_profile(fn, f"{prof}-{tag}.txt") if prof else fn()
    _sync(torch, dev)
    first = time.perf_counter() - t
    for _ in range(2):
        out = fn()
    _sync(torch, dev)
    t = time.perf_counter()
    for _ in range(reps):
        out = fn()
    _sync(torch, dev)
    return first, (time.perf_counter() - t) / reps, out


def _count_kernels():
    """(Inductor kernels compiled in this process, how many of them by tilec). Kernels
    Inductor declared but never compiled (not launched: e.g. a backward never run) are not
    counted; with the switch on, no real Triton can be imported at all."""
    from torch._inductor.codecache import PyCodeCache
    from torch._inductor.runtime.triton_heuristics import CachingAutotuner

    triton_is_tilec = sys.modules["triton"].__name__ == "tilec"
    total = by_tilec = 0
    for mod in list(PyCodeCache.modules):
        for v in list(vars(mod).values()):
            if not isinstance(v, CachingAutotuner):
                continue
            results = getattr(v, "compile_results", None) or []
            launchers = getattr(v, "launchers", None) or []
            if not results and not launchers:
                continue
            total += 1
            kinds = {type(getattr(r, "kernel", None)).__module__ for r in results}
            if any(k.startswith("tilec") for k in kinds) or (not results and triton_is_tilec):
                by_tilec += 1
    return total, by_tilec


def _profile(torch, fn, path: str) -> None:
    """Writes where a steady-state call's time goes to `path` (GPU kernels by total time,
    then CPU ops: tells slow kernels apart from launch overhead) and each GPU kernel's
    total time to `path`.json (to compare two runs kernel by kernel)."""
    from torch.profiler import ProfilerActivity, profile

    cuda = torch.cuda.is_available()
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=acts) as prof:
        for _ in range(3):
            fn()
        if cuda:
            torch.cuda.synchronize()
    ka = prof.key_averages()
    with open(path, "w") as f:
        f.write(ka.table(sort_by="self_cuda_time_total" if cuda else "self_cpu_time_total",
                         row_limit=60, max_name_column_width=90))
        f.write("\n")
        f.write(ka.table(sort_by="self_cpu_time_total", row_limit=25, max_name_column_width=90))
    kernels = {e.key: [getattr(e, "self_device_time_total", 0.0) / 3, e.count // 3]
               for e in ka if getattr(e, "self_device_time_total", 0.0) > 0}
    with open(path + ".json", "w") as f:
        json.dump(kernels, f, indent=0)


def _first_call_profile(fn, path: str):
    """Runs the first (compiling) call under cProfile; the 60 costliest functions by
    cumulative time go to `path`."""
    import cProfile
    import io
    import pstats

    pr = cProfile.Profile()
    out = pr.runcall(fn)
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(60)
    with open(path, "w") as f:
        f.write(s.getvalue())
    return out


def child(workload: str, dev: str) -> dict:
    import torch

    if dev == "cpu":
        import torch._inductor.config as cfg

        cfg.cpu_backend = "triton"
        cfg.compile_threads = 1  # tilec's CPU kernels cannot move between processes
    import triton

    torch.manual_seed(0)
    out = {"workload": workload, "triton": f"{triton.__version__} ({triton.__file__})"}
    f32 = dict(atol=1e-4, rtol=1e-4)
    if workload in ("pointwise", "layernorm_softmax", "mlp", "flex_attention"):
        if workload == "pointwise":
            x = torch.randn(1 << 24, device=dev)
            y = torch.randn_like(x)
            args, f = (x, y), (lambda x, y: torch.nn.functional.gelu(x) * y + torch.sin(x))
        elif workload == "layernorm_softmax":
            ln = torch.nn.LayerNorm(4096).to(dev)
            args, f = (torch.randn(4096, 4096, device=dev),), (lambda x: torch.softmax(ln(x), -1))
        elif workload == "mlp":
            mlp = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(),
                                      torch.nn.Linear(4096, 1024)).to(dev, torch.bfloat16)
            args, f = (torch.randn(8192, 1024, device=dev, dtype=torch.bfloat16),), mlp
            f32 = dict(atol=2e-2, rtol=2e-2)
        else:
            from torch.nn.attention.flex_attention import flex_attention

            q, k, v = (torch.randn(4, 8, 1024, 64, device=dev, dtype=torch.float16)
                       for _ in range(3))

            def causal(score, b, h, qi, ki):
                return torch.where(qi >= ki, score, -float("inf"))

            args = (q, k, v)
            f = (lambda q, k, v: flex_attention(q, k, v, score_mod=causal))
            f32 = dict(atol=2e-2, rtol=2e-2)
        g = torch.compile(f)
        first, steady, res = _timed(torch, dev, lambda: g(*args), 20)
        if os.environ.get("TC_BENCH_PROFILE"):
            _profile(torch, lambda: g(*args), os.environ["TC_BENCH_PROFILE"])
        with torch.no_grad():
            ref = f(*args)
        out.update(ok=bool(torch.allclose(res, ref, **f32)),
                   max_err=float((res.float() - ref.float()).abs().max()),
                   first_s=first, steady_ms=steady * 1e3)
    else:
        import transformers

        if workload == "llama":
            cfg = transformers.LlamaConfig(hidden_size=1024, intermediate_size=2816,
                                           num_hidden_layers=4, num_attention_heads=16,
                                           num_key_value_heads=8, vocab_size=8192)
            model = transformers.LlamaForCausalLM(cfg)
        else:
            cfg = transformers.GPT2Config(n_embd=768, n_layer=4, n_head=12, vocab_size=8192,
                                          bos_token_id=0, eos_token_id=0)
            model = transformers.GPT2LMHeadModel(cfg)
        model = model.to(dev)
        ids = torch.randint(0, 8192, (8, 512), device=dev)
        cm = torch.compile(model)
        model.eval()
        with torch.no_grad():
            first_fwd, _, res = _timed(torch, dev, lambda: cm(ids).logits, 3, "fwd")
            ref = model(ids).logits
        model.train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

        def step():
            loss = cm(ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss

        first_step, steady, loss = _timed(torch, dev, step, 10, "step")
        if os.environ.get("TC_BENCH_PROFILE"):
            _profile(torch, step, os.environ["TC_BENCH_PROFILE"])
        out.update(ok=bool(torch.allclose(res, ref, atol=1e-3, rtol=1e-3)) and
                   bool(torch.isfinite(loss)),
                   max_err=float((res - ref).abs().max()), first_s=first_fwd + first_step,
                   first_fwd_s=first_fwd, first_step_s=first_step, steady_ms=steady * 1e3)
    out["kernels"], out["kernels_by_tilec"] = _count_kernels()
    return out


def run_one(workload: str, target: str, dev: str, timeout: int, profile: str | None) -> dict:
    with tempfile.TemporaryDirectory(prefix="tc-bench-") as tmp:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(tmp, "inductor"),
                   TRITON_CACHE_DIR=os.path.join(tmp, "triton"),
                   TILEC_CACHE_DIR=os.path.join(tmp, "tilec"))
        if profile:
            os.makedirs(profile, exist_ok=True)
            env["TC_BENCH_PROFILE"] = os.path.join(profile, f"{workload}-{target}.txt")
            env["TC_BENCH_CPROFILE"] = os.path.join(profile, f"{workload}-{target}-cprofile")
        env.pop("TILEC_AS_TRITON", None)
        if target == "tilec":
            env["TILEC_AS_TRITON"] = "1"
        cmd = [sys.executable, __file__, "--child", workload, "--device", dev]
        try:
            if target == "floor":  # Triton's cache filled by a first run, Inductor's fresh
                subprocess.run(cmd, env=env, capture_output=True, timeout=timeout)
                env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(tmp, "inductor-2")
            t = time.perf_counter()
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"workload": workload, "target": target, "error": f"timeout {timeout} s"}
        wall = time.perf_counter() - t
        for line in reversed(p.stdout.splitlines()):
            if line.startswith("RESULT "):
                r = json.loads(line[7:])
                r.update(target=target, process_s=wall)
                return r
        noise = ("nanobind:", "See https://nanobind", " - leaked", "W1", "I1")
        lines = [ln for ln in (p.stderr + p.stdout).splitlines()
                 if ln.strip() and not ln.startswith(noise)]
        tail = lines[-25:]
        return {"workload": workload, "target": target, "error": "\n".join(tail)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json")
    ap.add_argument("--only", default=",".join(WORKLOADS))
    ap.add_argument("--target", default="both", choices=("both", "tilec", "triton", "floor"),
                    help="floor: Triton with its kernel cache already filled (Inductor's "
                    "caches empty): the first call without any kernel compilation, the "
                    "least any compiler behind Inductor can take; 'both' runs it too")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--profile", metavar="DIR",
                    help="write to DIR a cProfile of the first call and a torch.profiler "
                    "table of 3 steady calls per run (times then include the profilers)")
    ap.add_argument("--child")
    a = ap.parse_args(argv)
    if a.child:
        print("RESULT " + json.dumps(child(a.child, a.device)), flush=True)
        return 0
    try:
        import torch
    except ImportError:
        print("torch is not installed: nothing to measure")
        return 0
    if a.device == "cuda" and not torch.cuda.is_available():
        print("no CUDA GPU: nothing to measure")
        return 0
    targets = ("tilec", "triton", "floor") if a.target == "both" else (a.target,)
    device = torch.cuda.get_device_name() if a.device == "cuda" else "cpu"
    print(f"device: {device}")
    rows = []
    for w in a.only.split(","):
        for t in targets:
            r = run_one(w, t, a.device, a.timeout, a.profile)
            rows.append(r)
            if "error" in r:
                print(f"  {w:18} {t:6} ERROR {r['error']}", flush=True)
            else:
                print(f"  {w:18} {t:6} ok={r['ok']} err={r['max_err']:.1e} kernels="
                      f"{r['kernels']} (tilec {r['kernels_by_tilec']}) first={r['first_s']:.2f} s "
                      f"steady={r['steady_ms']:.3f} ms", flush=True)
    table = [("workload", "first call tilec/Triton", "floor/Triton", "steady tilec/Triton",
              "matches eager")]
    by = {(r["workload"], r["target"]): r for r in rows}
    for w in a.only.split(","):
        x, y = by.get((w, "tilec"), {}), by.get((w, "triton"), {})
        fl = by.get((w, "floor"), {})
        if "first_s" in x and "first_s" in y:
            floor = (f"{fl['first_s']:.2f} s = {fl['first_s'] / y['first_s']:.2f} x"
                     if "first_s" in fl else "-")
            table.append((w, f"{x['first_s']:.2f} / {y['first_s']:.2f} s = "
                          f"{x['first_s'] / y['first_s']:.2f} x", floor,
                          f"{x['steady_ms']:.3f} / {y['steady_ms']:.3f} ms = "
                          f"{x['steady_ms'] / y['steady_ms']:.3f} x",
                          f"{x['ok']} / {y['ok']}"))
    for row in table:
        print("  " + " | ".join(str(c) for c in row))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"machine": {"device": device}, "rows": rows, "table": table}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
