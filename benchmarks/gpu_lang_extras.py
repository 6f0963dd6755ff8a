"""Language features beyond the seeds, on the GPU beside Triton and torch:

    python benchmarks/gpu_lang_extras.py [--json PATH] [--reps N]

1. Triton's seeded-dropout tutorial (tl.rand: ten Philox rounds an element) on 2^26 fp32,
   in GB/s (8 bytes an element), against torch's dropout (its own Philox) and the copy
   ceiling; tilec's output must equal Triton's bit for bit (the same random stream).
2. A matmul through block pointers (benchmarks/lang_extras_kernels.py, one config:
   128x256x64, 8 warps, 3 stages) on 4096^3 fp16, in TFLOP/s, against the seed matmul
   (tensors of pointers) at that same config and autotuned, the same matmul through host
   tensor descriptors (Triton: TMA; tilec: block pointers), and torch.
3. tl.sort of each 1024-element row of an 8192x1024 fp32 tensor (one program a row: a
   bitonic network in registers and shuffles), in GB/s, against torch.sort; tilec's rows
   must equal Triton's.

A benchmark: it reports, it never fails.
"""

import argparse
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gpu_kernels import SEEDS, Timer, copy_ceiling, load_seeds, short_error  # noqa: E402

EXTRAS = os.path.join(HERE, "lang_extras_kernels.py")


def same_config_matmul(seeds, a, b, c, bm=128, bn=256, bk=64, warps=8, stages=3):
    """The seed matmul kernel (under its autotuner) launched at one fixed config."""
    m, k = a.shape
    n = b.shape[1]
    kern = seeds.matmul_kernel.fn
    grid = ((m // bm) * (n // bn),)
    return lambda: kern[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                              b.stride(1), c.stride(0), c.stride(1), BLOCK_SIZE_M=bm,
                              BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8,
                              num_warps=warps, num_stages=stages)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=os.path.join(HERE, "results", "gpu_lang_extras.json"))
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("gpu_lang_extras.py: torch is not installed; nothing to measure")
        return
    if not torch.cuda.is_available():
        print("gpu_lang_extras.py: no CUDA device; nothing to measure")
        return
    impls = ["tilec"] + (["triton"] if importlib.util.find_spec("triton") else [])
    mods = {i: load_seeds(i, EXTRAS) for i in impls}
    timer = Timer(torch, args.reps, True)
    rows, result = [], {}

    n = 1 << 26
    x = torch.randn(n, device="cuda")
    outs = {i: torch.empty_like(x) for i in impls}
    fns = {i: (lambda i=i: mods[i].seeded_dropout(x, outs[i], 0.5, 1234)) for i in impls}
    fns["torch"] = lambda: torch.nn.functional.dropout(x, 0.5, True)
    ms = timer.interleaved_ms(fns)
    ceiling = copy_ceiling(torch, timer)
    for name, t in ms.items():
        gbs = 8 * n / (t * 1e-3) / 1e9
        result[f"dropout {name}"] = gbs
        rows.append((f"dropout 2^26 fp32 [{name}]", f"{gbs:7.0f} GB/s  {gbs / ceiling:.2f}x copy"))
    if "triton" in outs:
        same = torch.equal(outs["tilec"], outs["triton"])
        result["dropout bit-identical to Triton"] = same
        rows.append(("dropout output == Triton's", "yes" if same else "NO"))

    m = 4096
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn((m, m), device="cuda", generator=g).half()
    b = torch.randn((m, m), device="cuda", generator=g).half()
    ref = a.float() @ b.float()
    seeds = load_seeds("tilec", SEEDS)
    fns = {}
    for i in impls:
        c = torch.empty((m, m), device="cuda", dtype=torch.float16)
        try:
            mods[i].block_ptr_matmul(a, b, c)
            err = ((c.float() - ref).norm() / ref.norm()).item()
            rows.append((f"block-pointer matmul rel. error [{i}]", f"{err:.1e}"))
            fns[f"block ptr [{i}]"] = lambda i=i, c=c: mods[i].block_ptr_matmul(a, b, c)
        except Exception as e:  # noqa: BLE001
            rows.append((f"block-pointer matmul [{i}]", "ERR " + short_error(e, 90)))
        c = torch.empty((m, m), device="cuda", dtype=torch.float16)
        try:  # the same matmul through host tensor descriptors (TMA in Triton)
            mods[i].desc_matmul(a, b, c)
            err = ((c.float() - ref).norm() / ref.norm()).item()
            rows.append((f"tensor-descriptor matmul rel. error [{i}]", f"{err:.1e}"))
            fns[f"tensor desc [{i}]"] = lambda i=i, c=c: mods[i].desc_matmul(a, b, c)
        except Exception as e:  # noqa: BLE001
            rows.append((f"tensor-descriptor matmul [{i}]", "ERR " + short_error(e, 90)))
    seeds.matmul(a, b)
    fns["seed matmul [tilec]"] = lambda: seeds.matmul(a, b)
    rows.append(("seed matmul's tuned config [tilec]",
                 str(getattr(seeds.matmul_kernel, "best_config", "?"))[:90]))
    # the seed kernel at the block-pointer config: tells block pointers from the config
    for i in impls:
        sm = seeds if i == "tilec" else load_seeds(i, SEEDS)
        c = torch.empty((m, m), device="cuda", dtype=torch.float16)
        try:
            run = same_config_matmul(sm, a, b, c)
            run()
            fns[f"seed at block-ptr config [{i}]"] = run
        except Exception as e:  # noqa: BLE001
            rows.append((f"seed at block-ptr config [{i}]", "ERR " + short_error(e, 90)))
    fns["torch"] = lambda: a @ b
    for name, t in timer.interleaved_ms(fns).items():
        tf = 2 * m ** 3 / (t * 1e-3) / 1e12
        result[f"matmul {name}"] = tf
        rows.append((f"matmul 4096^3 fp16 {name}", f"{tf:6.0f} TFLOP/s"))

    rows_, cols = 8192, 1024
    xs = torch.randn((rows_, cols), device="cuda", generator=g)
    ys = {i: torch.empty_like(xs) for i in impls}
    fns = {}
    for i in impls:
        try:
            mods[i].row_sort(xs, ys[i])
            fns[f"[{i}]"] = lambda i=i: mods[i].row_sort(xs, ys[i])
        except Exception as e:  # noqa: BLE001
            rows.append((f"row sort [{i}]", "ERR " + short_error(e, 90)))
    fns["[torch.sort]"] = lambda: torch.sort(xs, dim=1)
    for name, t in timer.interleaved_ms(fns).items():
        gbs = 8 * rows_ * cols / (t * 1e-3) / 1e9
        result[f"row sort {name}"] = gbs
        rows.append((f"tl.sort 8192x1024 fp32 rows {name}", f"{gbs:7.0f} GB/s"))
    ok = torch.equal(ys["tilec"], torch.sort(xs, dim=1).values)
    rows.append(("tl.sort rows == torch.sort", "yes" if ok else "NO"))

    print(f"copy ceiling {ceiling:.0f} GB/s")
    for k, v in rows:
        print(f"  {k:44} {v}")
    result["table"] = rows  # scripts/gpu_check.sh prints it in its closing table
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
