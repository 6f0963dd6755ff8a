"""The seed vector add (tests/data/seed_kernels.py, unchanged), launched from the host.

    python3 examples/vector_add.py

On a machine with a usable GPU (torch with CUDA) it runs there, through the seed's own
torch wrapper; otherwise (or with TILEC_INTERPRET=1, or if tilec cannot build the kernel
for the GPU) it runs on the CPU tile interpreter with numpy arrays. It says which, checks
the result against numpy and prints it.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data"))

import tilec as triton  # noqa: E402
import seed_kernels as sk  # noqa: E402

N = 98432  # not a multiple of the block: the last program is masked


def cuda_torch():
    """torch, when it is installed and sees a CUDA device (and TILEC_INTERPRET is off)."""
    if os.environ.get("TILEC_INTERPRET", "0") not in ("", "0"):
        return None
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def run_on_gpu(torch, x, y):
    """The seed's host wrapper on CUDA tensors; None when tilec cannot run it there."""
    xd, yd = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    try:
        out = sk.add(xd, yd)
        torch.cuda.synchronize()
    except (triton.CompilationError, RuntimeError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"the GPU is present but tilec could not run the kernel there ({first})")
        return None
    print(f"running on the GPU ({torch.cuda.get_device_name()})")
    return out.cpu().numpy()


def run_on_cpu(x, y):
    print("running on the CPU (tile interpreter)")
    out = np.empty_like(x)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_SIZE"]),)
    sk.add_kernel[grid](x, y, out, N, BLOCK_SIZE=1024)
    return out


def main() -> int:
    rng = np.random.default_rng(0)
    x = rng.random(N, dtype=np.float32)
    y = rng.random(N, dtype=np.float32)

    torch = cuda_torch()
    out = run_on_gpu(torch, x, y) if torch is not None else None
    if out is None:
        out = run_on_cpu(x, y)

    max_diff = float(np.max(np.abs(out - (x + y))))
    print(f"x[:4]      = {x[:4]}")
    print(f"y[:4]      = {y[:4]}")
    print(f"output[:4] = {out[:4]}")
    print(f"n = {N}, max |output - (x + y)| = {max_diff}")
    if max_diff != 0.0:
        print("MISMATCH")
        return 1
    print("OK: the kernel's output matches numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
