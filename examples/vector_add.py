"""The seed vector add (examples/seed_kernels.py, unchanged), launched from the host.

Run it with `python examples/vector_add.py`. With a usable GPU it would run there; GPU code
generation is not built yet, so today it always runs on the CPU tile interpreter and says so.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tilec as triton  # noqa: E402
from seed_kernels import add_kernel  # noqa: E402


def gpu_usable() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def main() -> int:
    n = 98432  # not a multiple of the block: the last program is masked
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = np.empty_like(x)

    if gpu_usable() and os.environ.get("TILEC_INTERPRET", "0") in ("", "0"):
        print("a GPU is present, but tilec's GPU code generation is not built yet")
    print("running on the CPU (tile interpreter)")

    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)

    expected = x + y
    max_diff = float(np.max(np.abs(out - expected)))
    print(f"x[:4]      = {x[:4]}")
    print(f"y[:4]      = {y[:4]}")
    print(f"output[:4] = {out[:4]}")
    print(f"n = {n}, max |output - (x + y)| = {max_diff}")
    if max_diff != 0.0:
        print("MISMATCH")
        return 1
    print("OK: the kernel's output matches numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
