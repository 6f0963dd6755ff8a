"""The global scratch of kernels that build TMA tensor maps, on the stand-in GPU device of
test_gpu_fastpath.py (no GPU needed): each launch asks triton.set_allocator's allocator
for (bytes per program x programs x num_ctas, 128, stream), as Triton's launcher does, and
passes the buffer's address as the kernel's last .param, on the Python path and the C++
fast path alike; without an allocator (or one returning None) the slot is left for the
runtime's own stream-ordered memory. test_tma_kernel_maps.py runs such kernels."""

import pytest

import tilec
import tilec.language as tl
from tilec import _gpu

from test_gpu_fastpath import fake_gpu, tensors  # noqa: F401  (the fixture, by name)


@tilec.jit
def k_scratch(x_ptr, y_ptr, n, B: tl.constexpr):
    i = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=i < n), mask=i < n)


class Buffer:
    def __init__(self, ptr):
        self.ptr = ptr

    def data_ptr(self):
        return self.ptr


@pytest.fixture
def scratch_kernel(fake_gpu):  # noqa: F811
    """Kernels whose metadata asks for 256 bytes of scratch a program (as if they built
    two maps)."""
    launches, _ = fake_gpu

    def generate(jitfn, fs, specs, options, arch):
        params = [("x_ptr", "ptr"), ("y_ptr", "ptr"), ("n", "i32"),
                  ("(global scratch)", "scratch:256")]
        return "// no PTX on the test device", {"name": jitfn.__name__, "params": params}

    prev = _gpu.set_ptx_generator(generate)
    try:
        yield launches
    finally:
        _gpu.set_ptx_generator(prev)
        tilec.set_allocator(None)


@pytest.mark.parametrize("num_ctas", [None, 2])
def test_launches_ask_the_allocator(scratch_kernel, num_ctas):
    launches = scratch_kernel
    calls = []

    def alloc(size, align, stream):
        calls.append((size, align, stream))
        return Buffer(0x9000000 + 0x10000 * len(calls))

    tilec.set_allocator(alloc)
    x, y, _ = tensors()
    kw = {} if num_ctas is None else {"num_ctas": num_ctas}
    d = k_scratch.__dict__.get("_gpu_dispatch")
    fast = d.fast_launches if d is not None else 0
    for _ in range(3):  # the Python path, then the fast path
        k_scratch[(3, 2)](x, y, 100, B=64, **kw)
    assert k_scratch._gpu_dispatch.fast_launches - fast == 2
    want = 256 * 6 * (num_ctas or 1)
    assert [c[:2] for c in calls] == [(want, 128)] * 3
    assert len({c[2] for c in calls}) == 1  # the launch's stream
    # the last .param: each launch's own buffer
    assert [l[4][-1] for l in launches] == [0x9000000 + 0x10000 * i for i in (1, 2, 3)]


@pytest.mark.parametrize("allocator", [None, lambda size, align, stream: None])
def test_without_memory_from_the_allocator_the_slot_is_left_to_the_runtime(scratch_kernel,
                                                                          allocator):
    launches = scratch_kernel
    tilec.set_allocator(allocator)
    x, y, _ = tensors()
    k_scratch[(2,)](x, y, 100, B=64)
    assert launches[-1][4][-1] == 0  # GpuKernel::launch allocates (runtime/LaunchScratch.h)


def test_bad_num_ctas_is_refused(scratch_kernel):
    x, y, _ = tensors()
    with pytest.raises(TypeError, match="num_ctas must be an int from 1 to 16"):
        k_scratch[(2,)](x, y, 100, B=64, num_ctas=0)
