"""Issue 22's GELU row: the seed's GELU kernel compiled by tilec (and by Triton, when
importable) against torch's gelu(approximate="tanh") and a hand-written CUDA C++ kernel of
the same formula (benchmarks/cuda/gelu.cu, built here by nvcc -O3 for the GPU's
architecture, and again with --use_fast_math), fp32, in one run.

    python benchmarks/gpu_gelu_cuda.py [--sizes 26,24] [--reps 100] [--json PATH]
                                   [--cubin-dir DIR]

GB/s: the input read once and the output written once. Time: CUDA events around each
launch, L2 flushed before each, median of --reps launches; the implementations are timed
in interleaved rounds (gpu_kernels.Timer). The device copy ceiling (a 1 GiB clone) is
measured in the same run. The CUDA kernel is launched through the driver API (ctypes:
cuModuleLoadData / cuLaunchKernel) on torch's current stream. Without nvcc, --cubin-dir
names cubins built elsewhere (gelu.cubin, gelu_fast.cubin, for this GPU's sm).
This is a benchmark: it reports, it never fails on slow numbers.
"""

import argparse
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gpu_kernels import Timer, copy_ceiling, load_seeds  # noqa: E402

SOURCE = os.path.join(HERE, "cuda", "gelu.cu")


def build_cubins(arch, out_dir):
    """{variant: cubin bytes} built by nvcc for `arch` (e.g. sm_90a)."""
    nvcc = shutil.which("nvcc") or next(
        (p for p in ("/usr/local/cuda/bin/nvcc",) if os.path.exists(p)), None)
    if nvcc is None:
        raise RuntimeError("no nvcc: give --cubin-dir")
    out = {}
    for name, extra in (("gelu", []), ("gelu_fast", ["--use_fast_math"])):
        path = os.path.join(out_dir, name + ".cubin")
        subprocess.run([nvcc, "-O3", f"-arch={arch}", "-cubin", *extra, "-o", path, SOURCE],
                       check=True, capture_output=True, text=True)
        with open(path, "rb") as f:
            out[name] = f.read()
    return out


class CudaKernel:
    """gelu_f32x4 of one cubin, launched with the driver API on torch's current stream."""

    def __init__(self, image):
        self.cu = ctypes.CDLL("libcuda.so.1")
        self.module, self.fn = ctypes.c_void_p(), ctypes.c_void_p()
        self._image = ctypes.create_string_buffer(image, len(image))
        self._check(self.cu.cuModuleLoadData(ctypes.byref(self.module), self._image))
        self._check(self.cu.cuModuleGetFunction(ctypes.byref(self.fn), self.module,
                                                b"gelu_f32x4"))

    def _check(self, rc):
        if rc != 0:
            raise RuntimeError(f"CUDA driver error {rc}")

    def launcher(self, torch, x, y):
        n4 = x.numel() // 4
        assert x.numel() % 4 == 0
        args = [ctypes.c_uint64(x.data_ptr()), ctypes.c_uint64(y.data_ptr()),
                ctypes.c_longlong(n4)]
        params = (ctypes.c_void_p * 3)(*[ctypes.cast(ctypes.pointer(a), ctypes.c_void_p)
                                         for a in args])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        grid, block = (n4 + 255) // 256, 256
        keep = (args, params)  # alive as long as the launcher

        def launch():
            self._check(self.cu.cuLaunchKernel(self.fn, grid, 1, 1, block, 1, 1, 0, stream,
                                               params, None))
        launch.keep = keep
        return launch


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="26,24", help="log2 of the element counts")
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--json", default="")
    ap.add_argument("--cubin-dir", default="")
    args = ap.parse_args()
    import torch
    cc = torch.cuda.get_device_capability()
    arch = f"sm_{cc[0]}{cc[1]}{'a' if cc[0] >= 9 else ''}"
    tmp = tempfile.mkdtemp(prefix="gelu-cuda-")
    try:
        if args.cubin_dir:
            images = {n: open(os.path.join(args.cubin_dir, n + ".cubin"), "rb").read()
                      for n in ("gelu", "gelu_fast")}
        else:
            images = build_cubins(arch, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    torch.zeros(1, device="cuda")  # torch makes the device's primary context current
    torch.cuda.synchronize()
    cuda = {n: CudaKernel(img) for n, img in images.items()}
    seeds = {"tilec": load_seeds("tilec")}
    try:
        seeds["triton"] = load_seeds("triton")
    except Exception as exc:  # Triton missing: its column stays empty
        print(f"(no Triton: {type(exc).__name__}: {exc})")
    timer = Timer(torch, args.reps, flush=True)
    ceiling = copy_ceiling(torch, timer)
    name = torch.cuda.get_device_name()
    print(f"device: {name}; torch {torch.__version__}; copy ceiling {ceiling:.0f} GB/s")
    rows = []
    for lg in map(int, args.sizes.split(",")):
        n = 1 << lg
        x = torch.randn(n, device="cuda")
        ref = torch.nn.functional.gelu(x, approximate="tanh")
        outs = {}
        fns = {"torch": lambda: torch.nn.functional.gelu(x, approximate="tanh")}
        for impl, mod in seeds.items():
            y = outs[impl] = torch.empty_like(x)
            k, grid = mod.triton_gelu_kernel, ((n + 1023) // 1024,)
            fns[impl] = (lambda k=k, y=y, grid=grid: k[grid](x, y, n, BLOCK_SIZE=1024))
        for v, kern in cuda.items():
            y = outs["cuda " + v] = torch.empty_like(x)
            fns["cuda " + v] = kern.launcher(torch, x, y)
        ms = timer.interleaved_ms(fns)
        gbps = {k: 2 * 4 * n / (t * 1e-3) / 1e9 for k, t in ms.items()}
        checks = {k: bool(torch.allclose(y, ref, rtol=1e-4, atol=1e-5)) for k, y in outs.items()}
        row = dict(n=n, gbps=gbps, checks=checks, ceiling=ceiling)
        rows.append(row)
        line = "  ".join(f"{k} {g:.0f}" for k, g in gbps.items())
        print(f"GELU fp32 2^{lg}: GB/s {line}; tilec / torch {gbps['tilec'] / gbps['torch']:.3f}, "
              f"tilec / cuda {gbps['tilec'] / gbps['cuda gelu']:.3f}, "
              f"tilec / cuda fast-math {gbps['tilec'] / gbps['cuda gelu_fast']:.3f}; "
              f"checks {checks}")
    if args.json:  # "table": the lines scripts/gpu_check.sh prints
        table = [[f"GELU fp32 n={r['n']} GB/s"] +
                 [f"{k} {g:.0f}" for k, g in r["gbps"].items()] for r in rows]
        with open(args.json, "w") as f:
            json.dump(dict(device=name, rows=rows, table=table), f, indent=1)


if __name__ == "__main__":
    main()
