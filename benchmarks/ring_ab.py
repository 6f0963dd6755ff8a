"""The shared-memory ring (issue 4, stage pipeline-loops) on and off, config by config:

    python benchmarks/ring_ab.py [--json PATH] [--reps N] [--sizes 4096,8192] [--no-attention]

Each of the seed matmul's 8 configs (no autotuning: every config on its own) at n^3 fp16,
and the seed fused attention (Z=4 H=32 D=64, its wrapper's 128x64 blocks) at N_CTX 1024
and 4096, in TFLOP/s with TILEC_RING=1 (operands in cp.async rings, num_stages - 1
iterations ahead) and TILEC_RING=0 (register prefetch, operands stored to shared memory
every iteration). Each setting runs in its own process with an empty TILEC_CACHE_DIR (the
variable is not part of cache keys). "check": relative error against torch (<= 1e-2).
Not run by scripts/gpu_check.sh (its benchmark step has a time limit); run it by hand:
about a minute on an H100. A benchmark, not a test: it reports, it never fails on slow
numbers.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def child(args):
    """Runs in a fresh process with TILEC_RING set: prints one JSON line per case."""
    sys.path.insert(0, HERE)
    import torch
    from gpu_kernels import Timer, load_seeds
    seeds = load_seeds("tilec")
    kernel = seeds.matmul_kernel.fn  # the @jit function under the autotuner
    configs = [(c.kwargs["BLOCK_SIZE_M"], c.kwargs["BLOCK_SIZE_N"], c.kwargs["BLOCK_SIZE_K"],
                c.num_stages, c.num_warps) for c in seeds.matmul_kernel.configs]
    timer = Timer(torch, args.reps, flush=True)
    out = []
    for n in args.sizes:
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn((n, n), device="cuda", generator=g).half()
        b = torch.randn((n, n), device="cuda", generator=g).half()
        ref = torch.matmul(a, b).float()
        for bm, bn, bk, stages, warps in configs:
            name = f"matmul {n}^3 {bm}x{bn}x{bk} S{stages} w{warps}"
            try:
                c = torch.empty((n, n), device="cuda", dtype=torch.float16)
                grid = (((n + bm - 1) // bm) * ((n + bn - 1) // bn),)

                def run():
                    kernel[grid](a, b, c, n, n, n, a.stride(0), a.stride(1), b.stride(0),
                                 b.stride(1), c.stride(0), c.stride(1), BLOCK_SIZE_M=bm,
                                 BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8,
                                 num_stages=stages, num_warps=warps)
                run()
                torch.cuda.synchronize()
                err = ((c.float() - ref).norm() / ref.norm()).item()
                ms = timer.median_ms(run)
                out.append({"name": name, "tflops": 2 * n ** 3 / (ms * 1e-3) / 1e12,
                            "check": "ok" if err <= 1e-2 else f"WRONG {err:.3g}"})
            except Exception as e:  # noqa: BLE001 - a benchmark reports and goes on
                out.append({"name": name, "tflops": None, "check": f"{type(e).__name__}: {e}"[:80]})
    if args.attention:
        for n_ctx in (1024, 4096):
            name = f"attention N_CTX {n_ctx}"
            try:
                z, h, d = 4, 32, 64
                g = torch.Generator(device="cuda").manual_seed(0)
                q, k, v = (0.5 * torch.randn((z, h, n_ctx, d), device="cuda", generator=g).half()
                           for _ in range(3))
                want = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0)
                o = seeds.attention(q, k, v)
                torch.cuda.synchronize()
                err = ((o.float() - want.float()).norm() / want.float().norm()).item()
                ms = timer.median_ms(lambda: seeds.attention(q, k, v))
                out.append({"name": name, "tflops": 4 * z * h * n_ctx * n_ctx * d / (ms * 1e-3) / 1e12,
                            "check": "ok" if err <= 1e-2 else f"WRONG {err:.3g}"})
            except Exception as e:  # noqa: BLE001
                out.append({"name": name, "tflops": None, "check": f"{type(e).__name__}: {e}"[:80]})
    print("RESULT " + json.dumps(out))


def run_setting(ring, argv):
    with tempfile.TemporaryDirectory() as cache:
        # a fresh process and cache per setting (TILEC_RING is not part of cache keys); no
        # TILEC_ALWAYS_COMPILE: it would recompile at every timed launch
        env = dict(os.environ, TILEC_RING=ring, TILEC_CACHE_DIR=cache)
        env.pop("TILEC_ALWAYS_COMPILE", None)
        p = subprocess.run([sys.executable, __file__, "--child"] + argv, env=env,
                           capture_output=True, text=True, timeout=600)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"TILEC_RING={ring}: no result\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--no-attention", dest="attention", action="store_false")
    ap.add_argument("--child", action="store_true")
    args = ap.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",")]
    if args.child:
        return child(args)
    argv = ["--reps", str(args.reps), "--sizes", ",".join(map(str, args.sizes))]
    if not args.attention:
        argv.append("--no-attention")
    on, off = run_setting("1", argv), run_setting("0", argv)
    rows = []
    print(f"{'case':44} {'ring TFLOP/s':>13} {'no ring':>9} {'ratio':>7}  check (ring / no ring)")
    for a, b in zip(on, off):
        ratio = a["tflops"] / b["tflops"] if a["tflops"] and b["tflops"] else None
        rows.append({"name": a["name"], "ring": a["tflops"], "no_ring": b["tflops"],
                     "ratio": ratio, "check_ring": a["check"], "check_no_ring": b["check"]})
        f = lambda v, s: format(v, s) if v is not None else "-"  # noqa: E731
        print(f"{a['name']:44} {f(a['tflops'], '13.1f')} {f(b['tflops'], '9.1f')} "
              f"{f(ratio, '7.2f')}  {a['check']} / {b['check']}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows}, fh, indent=1)


if __name__ == "__main__":
    sys.exit(main())
