"""Clock and power of the GPU while one kernel runs back to back (is a kernel slower by
cycles, or by the clock its power draw leaves?):

    python benchmarks/clock_probe.py [--seconds 3]

The seed matmul's tile written with pointer loads and with host tensor maps
(benchmarks/tma_probe.py's mm_ptr / mm_hdesc, 4096^3 fp16) and cuBLAS, each launched back
to back for --seconds while nvidia-smi samples the SM clock and the board power every
100 ms; prints each one's time a launch, median clock and power, and cycles a launch
(time x clock). A measurement; it never fails.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tma_probe  # noqa: E402



def sample():
    """nvidia-smi printing "clock MHz, power W" every 100 ms until terminated."""
    return subprocess.Popen(
        ["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
         "-lms", "100"], stdout=subprocess.PIPE, text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    import torch
    n = 4096
    fns, _ = tma_probe.matmul_case(torch, torch.float16, n, n)
    fns = {name: fns[name] for name in ("ptr", "hdesc", "cuBLAS")}
    for name, fn in list(fns.items()) * 2:
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        time.sleep(1.0)  # let the clock recover between kernels
        smi = sample()
        time.sleep(0.3)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        count, t0 = 0, time.time()
        start.record()
        while time.time() - t0 < args.seconds:
            for _ in range(20):
                fn()
            count += 20
            torch.cuda.synchronize()
        end.record()
        torch.cuda.synchronize()
        smi.terminate()
        rows = [line.split(",") for line in smi.communicate()[0].splitlines() if "," in line]
        clocks = [float(r[0]) for r in rows[len(rows) // 4:]]  # skip the ramp
        power = [float(r[1]) for r in rows[len(rows) // 4:]]
        us = start.elapsed_time(end) * 1e3 / count
        mhz = statistics.median(clocks)
        print(f"{name:>8}  {us:7.1f} us a launch  {2 * n ** 3 / us / 1e6:6.1f} TFLOP/s  "
              f"SM clock {mhz:6.0f} MHz  power {statistics.median(power):5.0f} W  "
              f"{us * mhz / 1e3:7.0f} kcycles", flush=True)


if __name__ == "__main__":
    main()
