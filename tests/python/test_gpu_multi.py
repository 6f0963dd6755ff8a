"""Several GPUs in one process: a kernel runs on the device of its arguments whatever the
current device is, with that device's context, module and current stream; autotuning times
configs on that device; threads launch on two devices at once. Every test needs two CUDA
GPUs (scripts/gpu_check.sh runs them where the machine has them) and is skipped otherwise."""

import threading

import pytest

import tilec as triton
import tilec.language as tl

import seed_kernels as sk

from gpu_util import HAVE_GPU, torch

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not HAVE_GPU or torch.cuda.device_count() < 2,
                                 reason="needs two CUDA GPUs, their driver and torch")]


@pytest.fixture(autouse=True)
def current_device_0():
    torch.cuda.set_device(0)
    yield
    assert torch.cuda.current_device() == 0, "a launch changed the current device"


def rand(shape, dev, seed, dtype=torch.float32 if torch else None):
    g = torch.Generator(device=f"cuda:{dev}").manual_seed(seed)
    return torch.randn(shape, device=f"cuda:{dev}", generator=g).to(dtype)


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * factor, mask=m)


def test_seed_kernels_on_the_second_gpu():
    x = rand((300, 1000), 1, 0)
    torch.testing.assert_close(sk.softmax(x), torch.softmax(x, dim=1))
    v = rand(5000, 1, 1)
    ref = torch.nn.functional.gelu(v.double(), approximate="tanh")  # the seed's formula
    torch.testing.assert_close(sk.gelu(v).double(), ref, rtol=1e-4, atol=1e-6)
    torch.testing.assert_close(sk.add(v, v), v + v, rtol=0, atol=0)
    h = rand((64, 1000), 1, 2, torch.float16)
    w, b = rand(1000, 1, 3, torch.float16), rand(1000, 1, 4, torch.float16)
    ref = torch.nn.functional.layer_norm(h.float(), (1000,), w.float(), b.float(), 1e-5)
    torch.testing.assert_close(sk.layernorm(h, w, b).float(), ref, rtol=1e-2, atol=1e-2)
    for kernel in (sk.softmax_kernel, sk.triton_gelu_kernel, sk.layernorm_kernel):
        assert kernel._gpu_dispatch.num_kernels >= 1


def test_tensor_core_kernels_on_the_second_gpu():
    a, b = rand((256, 192), 1, 5, torch.float16), rand((192, 320), 1, 6, torch.float16)
    torch.testing.assert_close(sk.matmul(a, b).float(), (a.float() @ b.float()),
                               rtol=1e-2, atol=5e-2)
    q, k, v = (rand((1, 2, 256, 64), 1, s, torch.float16) for s in (7, 8, 9))
    ref = torch.softmax(q.float() @ k.float().transpose(-1, -2), dim=-1) @ v.float()
    torch.testing.assert_close(sk.attention(q, k, v).float(), ref, rtol=1e-2, atol=1e-2)


def test_autotune_times_configs_on_the_arguments_device():
    seen = []

    def record(nargs):
        seen.append(torch.cuda.current_device())

    @triton.autotune(configs=[triton.Config({"BLOCK": 128}, pre_hook=record),
                              triton.Config({"BLOCK": 256}, pre_hook=record)], key=["n"])
    @triton.jit
    def tuned(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1.0, mask=m)

    x = rand(10000, 1, 10)
    out = torch.empty_like(x)
    tuned[lambda meta: (triton.cdiv(10000, meta["BLOCK"]),)](x, out, 10000)
    torch.cuda.synchronize(1)
    torch.testing.assert_close(out, x + 1.0, rtol=0, atol=0)
    # every timed run on cuda:1; the launch after tuning (which runs the chosen config's
    # pre_hook too) under the caller's current device
    assert len(seen) > 2 and set(seen[:-1]) == {1} and seen[-1] == 0, seen


def test_array_interfaces_on_the_second_gpu():
    class Cai:  # what cupy or numba hand over: only __cuda_array_interface__
        def __init__(self, t):
            self.t = t
            self.__cuda_array_interface__ = t.__cuda_array_interface__

    n = 3000
    x = rand(n, 1, 11)
    out = torch.zeros_like(x)
    grid = (triton.cdiv(n, 1024),)
    scale_kernel[grid](Cai(x), Cai(out), n, 2.0, BLOCK=1024)
    torch.cuda.synchronize(1)
    torch.testing.assert_close(out, x * 2.0, rtol=0, atol=0)
    out.zero_()
    scale_kernel[grid](torch.utils.dlpack.to_dlpack(x), out, n, 3.0, BLOCK=1024)
    torch.cuda.synchronize(1)
    torch.testing.assert_close(out, x * 3.0, rtol=0, atol=0)
    with pytest.raises(ValueError, match="on one device"):
        scale_kernel[grid](Cai(x), torch.zeros(n, device="cuda:0"), n, 1.0, BLOCK=1024)


def test_cuda_graph_capture_on_the_second_gpu():
    n = 4096
    x = rand(n, 1, 12)
    out = torch.zeros_like(x)
    grid = (triton.cdiv(n, 512),)
    scale_kernel[grid](x, out, n, 1.0, BLOCK=512)  # compiled and loaded outside the capture
    torch.cuda.synchronize(1)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.device(1):
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            with torch.cuda.graph(g, stream=s):
                scale_kernel[grid](x, out, n, 4.0, BLOCK=512)
        out.zero_()
        torch.cuda.synchronize()
        g.replay()
        torch.cuda.synchronize()
    torch.testing.assert_close(out, x * 4.0, rtol=0, atol=0)


def test_threads_launch_on_both_gpus_at_once():
    """Each thread compiles its own specialisations and launches on its device; the
    results are checked after both threads end (a hang fails the join's timeout)."""
    n, rounds = 20000, 40
    errors, results = [], {}

    def work(dev):
        try:
            x = rand(n, dev, 20 + dev)
            with torch.cuda.device(dev):
                for r in range(rounds):
                    block = (128, 256, 512, 1024)[r % 4]
                    out = torch.empty_like(x)
                    scale_kernel[(triton.cdiv(n, block),)](x, out, n, float(r), BLOCK=block)
                    results[(dev, r)] = (x, out)
                torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001  (reported by the main thread)
            errors.append((dev, e))

    threads = [threading.Thread(target=work, args=(d,)) for d in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
        assert not t.is_alive(), "a launching thread hung"
    assert not errors, errors
    for (dev, r), (x, out) in results.items():
        assert out.device.index == dev
        torch.testing.assert_close(out, x * float(r), rtol=0, atol=0)
