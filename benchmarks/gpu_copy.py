"""The GPU's copy-bandwidth ceiling and the host cost of a launch (issue 3's targets).

    python benchmarks/gpu_copy.py [--json PATH] [--launches N]

1. Copy ceiling: torch's clone of a 1 GiB tensor, (bytes read + bytes written) / time,
   timed with CUDA events (median of several copies). Kernel bandwidths are judged
   against it.
2. Launch overhead: N back-to-back launches of the seed vector-add kernel (4 arguments
   and BLOCK_SIZE, grid as the seed's lambda and as a tuple), host time only, no
   synchronisation inside the loop; for tilec, torch.add and Triton (when importable).
3. First call: compile + load + launch of a kernel with an empty cache, in a fresh
   process (the seed GELU kernel with tilec's code generator; without one, the add
   kernel from hand-written PTX, which times ptxas + load + launch only).

Without tilec's PTX code generator (it is being built), tilec's rows use hand-written PTX
for the add kernel ("hand PTX" in the table): the launch path is the same.
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

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SEEDS = os.path.join(ROOT, "tests", "data", "seed_kernels.py")

ADD_PTX = """.version 8.0
.target sm_80
.address_size 64

.visible .entry add_kernel(
    .param .u64 x_ptr, .param .u64 y_ptr, .param .u64 output_ptr, .param .u32 n_elements)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [x_ptr];
    ld.param.u64 %rd2, [y_ptr];
    ld.param.u64 %rd3, [output_ptr];
    ld.param.u32 %r1, [n_elements];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mul.lo.s32 %r6, %r2, BLOCK;
    add.s32 %r5, %r6, %r4;
    add.s32 %r7, %r6, BLOCK;
LOOP:
    setp.ge.s32 %p1, %r5, %r7;
    @%p1 bra DONE;
    setp.ge.s32 %p2, %r5, %r1;
    @%p2 bra DONE;
    mul.wide.s32 %rd4, %r5, 4;
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    add.s64 %rd7, %rd3, %rd4;
    ld.global.f32 %f1, [%rd5];
    ld.global.f32 %f2, [%rd6];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd7], %f3;
    add.s32 %r5, %r5, %r3;
    bra LOOP;
DONE:
    ret;
}
"""


def hand_written_add(jitfn, fs, specs, options, arch):
    """PTX for the seed add kernel while tilec's code generator is not built."""
    if jitfn.__name__ != "add_kernel":
        raise RuntimeError(f"no hand-written PTX for {jitfn.__name__}")
    block = [s[1] for p, s in zip(jitfn.params, specs) if p.name == "BLOCK_SIZE"][0]
    params = [("x_ptr", "ptr"), ("y_ptr", "ptr"), ("output_ptr", "ptr"), ("n_elements", "i32")]
    return ADD_PTX.replace("BLOCK", str(block)), {"name": "add_kernel", "params": params}


def load_seeds(impl):
    """The seed kernels module with IMPL=impl (tilec or triton), under its own name."""
    old = os.environ.get("IMPL")
    os.environ["IMPL"] = impl
    try:
        spec = importlib.util.spec_from_file_location(f"seed_kernels_{impl}", SEEDS)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        if old is None:
            os.environ.pop("IMPL", None)
        else:
            os.environ["IMPL"] = old


def copy_ceiling(torch, reps=20):
    n = (1 << 30) // 4
    x = torch.empty(n, device="cuda", dtype=torch.float32).uniform_()
    y = x.clone()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        y = x.clone()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e-3)
        del y
    t = statistics.median(times)
    return 2 * n * 4 / t / 1e9


def host_time_per_launch(torch, launch, count, rounds=5):
    """Median over rounds of (host seconds for `count` back-to-back launches) / count."""
    launch()  # warm-up: compiles and fills caches
    torch.cuda.synchronize()
    per = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(count):
            launch()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        per.append((t1 - t0) / count)
    return statistics.median(per)


def launch_overheads(torch, count):
    n = 1 << 12  # small: the GPU keeps up, the host cost shows
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.empty_like(x)
    rows = {}
    import tilec
    from tilec import _C, _gpu

    sk = load_seeds("tilec")
    hand = not hasattr(_C, "compile_ptx")
    if hand:
        _gpu.set_ptx_generator(hand_written_add)
    tag = " (hand PTX)" if hand else ""
    grid = lambda meta: (tilec.cdiv(n, meta["BLOCK_SIZE"]),)
    rows["tilec, lambda grid" + tag] = host_time_per_launch(
        torch, lambda: sk.add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024), count)
    tgrid = (tilec.cdiv(n, 1024),)
    rows["tilec, tuple grid" + tag] = host_time_per_launch(
        torch, lambda: sk.add_kernel[tgrid](x, y, out, n, BLOCK_SIZE=1024), count)
    torch.cuda.synchronize()
    ok = bool(torch.equal(out, x + y))
    rows["torch.add"] = host_time_per_launch(torch, lambda: torch.add(x, y, out=out), count)
    try:
        tk = load_seeds("triton")
        import triton

        grid_t = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
        rows["Triton " + triton.__version__ + ", lambda grid"] = host_time_per_launch(
            torch, lambda: tk.add_kernel[grid_t](x, y, out, n, BLOCK_SIZE=1024), count)
    except Exception as e:  # Triton missing or broken: report without it
        rows["Triton"] = None
        print(f"Triton not measured: {type(e).__name__}: {e}", file=sys.stderr)
    return rows, ok, hand


FIRST_CALL = """
import os, sys, time
sys.path.insert(0, {here!r})
import torch
torch.cuda.init(); torch.zeros(1, device="cuda"); torch.cuda.synchronize()
import tilec
from tilec import _C, _gpu
import gpu_copy as b
sk = b.load_seeds("tilec")
x = torch.rand(1 << 20, device="cuda"); y = torch.empty_like(x)
if hasattr(_C, "compile_ptx"):
    what = "GELU"
    t0 = time.perf_counter()
    sk.triton_gelu_kernel[(tilec.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK_SIZE=1024)
else:
    what = "add (hand PTX)"
    _gpu.set_ptx_generator(b.hand_written_add)
    t0 = time.perf_counter()
    sk.add_kernel[(tilec.cdiv(x.numel(), 1024),)](x, x, y, x.numel(), BLOCK_SIZE=1024)
t1 = time.perf_counter()
torch.cuda.synchronize()
print("RESULT", what, t1 - t0, time.perf_counter() - t0)
"""


def first_call():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TILEC_CACHE_DIR=cache)
        r = subprocess.run([sys.executable, "-c", FIRST_CALL.format(here=HERE)], env=env,
                           capture_output=True, text=True, timeout=300)
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            parts = line.split()
            return " ".join(parts[1:-2]), float(parts[-2]), float(parts[-1])
    print(r.stdout + r.stderr, file=sys.stderr)
    return None, None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=os.path.join(HERE, "results", "gpu_copy.json"))
    ap.add_argument("--launches", type=int, default=1000)
    args = ap.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("gpu_copy.py: no CUDA device; nothing to measure")
        return
    dev = torch.cuda.get_device_name()
    bw = copy_ceiling(torch)
    launches, add_ok, hand = launch_overheads(torch, args.launches)
    what, first_host, first_total = first_call()

    print(f"device: {dev}")
    print(f"copy ceiling (torch clone, 1 GiB, read+write): {bw:8.0f} GB/s")
    print(f"host time per launch, {args.launches} back-to-back launches of the seed add kernel:")
    for name, t in launches.items():
        print(f"  {name:40} " + ("   n/a" if t is None else f"{t * 1e6:6.2f} us"))
    print(f"  (tilec's add results {'match' if add_ok else 'DO NOT MATCH'} torch)")
    if first_total is not None:
        print(f"first call, empty cache, {what}: {first_total * 1e3:.1f} ms "
              f"(host {first_host * 1e3:.1f} ms; target <= 60 ms for GELU)")
    report = {
        "machine": {"device": dev, "platform": platform.platform(),
                    "python": platform.python_version(), "torch": torch.__version__},
        "copy_gbps": bw,
        "launch_us": {k: (None if v is None else v * 1e6) for k, v in launches.items()},
        "launches": args.launches,
        "tilec_add_correct": add_ok,
        "hand_written_ptx": hand,
        "first_call": {"kernel": what, "ms": None if first_total is None else first_total * 1e3},
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(report, f, indent=2)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
