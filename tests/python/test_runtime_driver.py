"""`triton.runtime.driver` and the compiled-kernel launch Triton's tutorials use:
`driver.active` (CUDA with a GPU, else the CPU interpreter's driver), its device properties
and target, `kernel.warmup(...)` then `compiled._init_handles()`, `compiled.n_regs`,
`compiled.metadata.shared` and `compiled[grid](*every argument)`. The GPU test follows the
fused-softmax tutorial's host code on a persistent softmax kernel."""

import numpy as np
import pytest

import tilec as triton
import tilec.language as tl
from tilec.backends.compiler import GPUTarget
from tilec.runtime import driver
from tilec.runtime.driver import CpuDriver, CudaDriver

from gpu_util import HAVE_GPU, torch


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # a persistent kernel: each program takes every num_programs-th row
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(input_ptr + row * input_row_stride + cols, mask=mask, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(output_ptr + row * output_row_stride + cols, e / tl.sum(e, axis=0), mask=mask)


def np_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_the_active_driver_matches_the_machine():
    d = driver.active
    assert isinstance(d, CudaDriver if HAVE_GPU else CpuDriver)
    t = d.get_current_target()
    assert isinstance(t, GPUTarget) and t.warp_size == 32
    assert t.backend == ("cuda" if HAVE_GPU else "cpu")
    props = d.utils.get_device_properties(0)
    assert {"max_shared_mem", "max_num_regs", "multiprocessor_count", "warpSize",
            "sm_clock_rate", "mem_clock_rate", "mem_bus_width"} <= set(props)
    assert props["warpSize"] == 32 and props["multiprocessor_count"] >= 1
    assert d.get_benchmarker() is triton.testing.do_bench
    assert triton.runtime.driver is driver


def test_cuda_target_asks_a_device_once(monkeypatch):
    """get_current_target is asked several times a launch by tutorials (is_hip(),
    is_hopper(), ...): the capability of a device is asked of the driver (or torch) once, the
    current device every time (another device gets its own answer)."""
    import types
    from tilec.backends.nvidia import driver as nv
    asked = []
    current = [0]

    def capability(dev):
        asked.append(dev)
        return (9 - dev, 0)

    # the driver asks torch when it is loaded, else the CUDA driver: both answer here
    monkeypatch.setattr(nv._C, "gpu_device_props", lambda dev: {"capability": capability(dev)})
    fake_cuda = types.SimpleNamespace(get_device_capability=capability)
    monkeypatch.setattr(nv, "_torch", lambda: types.SimpleNamespace(cuda=fake_cuda))
    d = CudaDriver()
    monkeypatch.setattr(d, "get_current_device", lambda: current[0])
    t = d.get_current_target()
    assert t == GPUTarget("cuda", 90, 32) and d.get_current_target() is t
    assert d.get_device_capability() == (9, 0) and d.get_device_capability(0) == (9, 0)
    current[0] = 1
    assert d.get_current_target() == GPUTarget("cuda", 80, 32)
    assert d.get_device_capability(1) == (8, 0)
    assert asked == [0, 1]


def test_set_active_and_reset():
    class Mine:
        pass

    m = Mine()
    driver.set_active(m)
    try:
        assert driver.active is m
    finally:
        driver.reset_active()
    assert driver.active is driver.default


def test_runtime_module_names():
    from tilec.runtime.autotuner import Autotuner, Config, Heuristics  # noqa: F401
    from tilec.runtime.errors import OutOfResources
    from tilec.runtime.jit import JITFunction

    assert isinstance(softmax_kernel, JITFunction) and OutOfResources is triton.OutOfResources
    assert triton.runtime.Config is triton.Config


def test_warmup_then_launch_the_compiled_kernel_on_the_interpreter():
    x = np.random.default_rng(0).standard_normal((37, 100)).astype(np.float32)
    y = np.zeros_like(x)
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    k = softmax_kernel.warmup(y, x, x.shape[1], y.shape[1], n_rows, n_cols, BLOCK_SIZE=block,
                              num_stages=2, num_warps=4, grid=(1,))
    k._init_handles()
    assert k.metadata.num_warps == 4
    k[(5, 1, 1)](y, x, x.shape[1], y.shape[1], n_rows, n_cols, block, 2)
    np.testing.assert_allclose(y, np_softmax(x), rtol=1e-5, atol=1e-6)


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_fused_softmax_tutorial_host_code():
    DEVICE = driver.active.get_active_torch_device()
    assert DEVICE.type == "cuda" and DEVICE.index == torch.cuda.current_device()
    props = driver.active.utils.get_device_properties(DEVICE.index)
    NUM_SM, NUM_REGS = props["multiprocessor_count"], props["max_num_regs"]
    SIZE_SMEM, WARP_SIZE = props["max_shared_mem"], props["warpSize"]
    assert NUM_SM > 0 and NUM_REGS >= 65536 // 2 and SIZE_SMEM >= 48 * 1024
    target = driver.active.get_current_target()
    assert target.backend == "cuda" and target.arch == 10 * torch.cuda.get_device_capability()[0] \
        + torch.cuda.get_device_capability()[1]
    assert driver.active.get_current_stream() == torch.cuda.current_stream().cuda_stream

    x = torch.randn(1823, 781, device=DEVICE)
    y = torch.empty_like(x)
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps, num_stages = 8, 2
    kernel = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                   BLOCK_SIZE=BLOCK_SIZE, num_stages=num_stages,
                                   num_warps=num_warps, grid=(1,))
    kernel._init_handles()
    n_regs, size_smem = kernel.n_regs, kernel.metadata.shared
    assert 0 < n_regs <= 255 and size_smem > 0  # a cross-warp reduction needs shared memory
    occupancy = min(NUM_REGS // (n_regs * WARP_SIZE * num_warps), SIZE_SMEM // size_smem)
    num_programs = min(NUM_SM * occupancy, n_rows)
    kernel[(num_programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE,
                                 num_stages)
    torch.testing.assert_close(y, torch.softmax(x, dim=1))
    cache = driver.active.get_empty_cache_for_benchmark()
    driver.active.clear_cache(cache)
    assert cache.is_cuda and int(cache[:16].sum()) == 0
