"""The GPU runtime and launch path (python/tilec/_gpu.py, python/src/Gpu*.cpp).

On a machine without a GPU: the GPU path is taken only for arguments in GPU memory and then
fails with a clear error; ptxas turns PTX into cubins; the disk cache and its keys; the C++
dispatcher's fallback to the CPU path. Tests marked `gpu` launch hand-written PTX (the code
generator is tested elsewhere) through the same path @jit kernels take: the fast path,
streams, CUDA graphs, argument kinds, errors and faults. scripts/gpu_check.sh runs them."""

import gc
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import tilec
import tilec as triton
import tilec.language as tl
from tilec import _C, _gpu

if not hasattr(_C, "gpu_driver_available"):
    pytest.skip("the installed tilec._C predates the GPU runtime: reinstall (pip install -e .)",
                allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))
# a child Python set up like this one (-S when site was skipped to test a private build)
PYTHON = [sys.executable] + (["-S"] if sys.flags.no_site else [])

from gpu_util import HAVE_GPU, torch
gpu = [pytest.mark.gpu, pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")]


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


@triton.jit
def fault_kernel(x_ptr):
    tl.store(x_ptr + tl.arange(0, 16), tl.zeros((16,), tl.float32))


@triton.jit
def smem_kernel(out, nbytes):
    tl.store(out + tl.arange(0, 16), tl.zeros((16,), tl.int32))


# Hand-written PTX of add_kernel: program p adds elements [p*BLOCK, (p+1)*BLOCK) with its
# threads striding by the block size; BLOCK_SIZE is baked in, like a constexpr.
ADD_PTX = """.version 8.0
.target sm_80
.address_size 64

.visible .entry add_kernel(
    .param .u64 x_ptr,
    .param .u64 y_ptr,
    .param .u64 output_ptr,
    .param .u32 n_elements)
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

FAULT_PTX = """.version 8.0
.target sm_80
.address_size 64

.visible .entry fault_kernel(.param .u64 x_ptr)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    mov.u64 %rd1, 16;
    mov.u32 %r1, 1;
    st.global.u32 [%rd1], %r1;
    ret;
}
"""

SMEM_PTX = """.version 8.0
.target sm_80
.address_size 64

.extern .shared .align 16 .b8 smem[];

.visible .entry smem_kernel(.param .u64 out, .param .u32 nbytes)
{
    ret;
}
"""


def block_size(jitfn, specs):
    return [s[1] for p, s in zip(jitfn.params, specs) if p.name == "BLOCK_SIZE"][0]


def hand_ptx(jitfn, fs, specs, options, arch):
    """A PTX generator for the kernels above (what the code generator will produce)."""
    name = jitfn.__name__
    if name == "add_kernel":
        ptx = ADD_PTX.replace("BLOCK", str(block_size(jitfn, specs)))
        params = [("x_ptr", "ptr"), ("y_ptr", "ptr"), ("output_ptr", "ptr"),
                  ("n_elements", "i32")]
        return ptx, {"name": name, "params": params}
    if name == "fault_kernel":
        return FAULT_PTX, {"name": name, "params": [("x_ptr", "ptr")], "num_warps": 1}
    if name == "smem_kernel":
        return SMEM_PTX, {"name": name, "params": [("out", "ptr"), ("nbytes", "i32")],
                          "shared": 1 << 30}
    raise AssertionError(f"no hand-written PTX for {name}")


@pytest.fixture
def hand_written_ptx(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    prev = _gpu.set_ptx_generator(hand_ptx)
    yield tmp_path / "cache"
    _gpu.set_ptx_generator(prev)


class FakeCudaArray:
    """Something that says it lives in GPU memory (as a cupy array would)."""

    def __init__(self, n=16, typestr="<f4", ptr=0x7F0000000000):
        self.__cuda_array_interface__ = {"data": (ptr, False), "typestr": typestr,
                                         "shape": (n,), "strides": None, "version": 3}


# --- no GPU needed -------------------------------------------------------------------------

def test_cpu_arguments_never_take_the_gpu_path():
    @triton.jit
    def k(x_ptr, y_ptr, n, B: tl.constexpr):
        o = tl.program_id(0) * B + tl.arange(0, B)
        tl.store(y_ptr + o, tl.load(x_ptr + o, mask=o < n) * 2, mask=o < n)

    x = np.arange(100, dtype=np.float32)
    y = np.zeros_like(x)
    k[(4,)](x, y, 100, B=32)
    np.testing.assert_array_equal(y, 2 * x)
    assert k._gpu_dispatch is None  # no dispatcher: launches stay on the Python CPU path
    assert not _gpu.wants_gpu((x, y, 100), {"B": 32})
    assert not _gpu.wants_gpu((1, 2.0, None, "s"), {})


def test_gpu_arrays_are_recognised():
    assert _gpu.wants_gpu((np.zeros(3), FakeCudaArray()), {})
    assert _gpu.wants_gpu((), {"x": FakeCudaArray()})
    # a DLPack capsule of host memory is not a GPU argument
    assert not _gpu.wants_gpu((np.zeros(4, np.float32).__dlpack__(),), {})


def test_classify_reports_dtypes_and_host_arrays():
    names = ["a", "b", "c", "d"]
    info = _C.gpu_classify([np.zeros(2), 3, 1.5, None], names)
    assert info[0] == ("host", "a numpy array")
    assert info[1:] == [None, None, None]
    if not _C.gpu_driver_available()[0]:
        with pytest.raises(tilec.CudaError, match="CUDA driver not found"):
            _C.gpu_classify([FakeCudaArray()], ["x"])
    with pytest.raises(TypeError, match="argument 'x'.*typestr '<c8'"):
        _C.gpu_classify([FakeCudaArray(typestr="<c8")], ["x"])


@pytest.mark.skipif(_C.gpu_driver_available()[0], reason="a CUDA driver is present")
def test_gpu_array_without_a_driver_is_a_clear_error():
    n = 16
    with pytest.raises(ValueError, match="argument 'x_ptr' lives in GPU memory, but tilec "
                                         "cannot run 'add_kernel' on a GPU here: CUDA driver "
                                         "not found"):
        add_kernel[(1,)](FakeCudaArray(), FakeCudaArray(), FakeCudaArray(), n, BLOCK_SIZE=16)
    with pytest.raises(tilec.CudaError, match="CUDA driver not found"):
        tilec.synchronize()
    ok, why = _C.gpu_driver_available()
    assert not ok and why.startswith("CUDA driver not found: dlopen(\"libcuda.so.1\") failed")


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.skipif(_C.gpu_driver_available()[0], reason="a CUDA driver is present")
def test_torch_cuda_tensor_without_a_gpu_is_a_clear_error():
    class LooksLikeCuda(torch.Tensor):  # no GPU: a CPU tensor that claims to be on cuda:0
        @property
        def is_cuda(self):
            return True

        def get_device(self):
            return 0

    t = torch.zeros(16).as_subclass(LooksLikeCuda)
    assert _gpu.wants_gpu((t,), {})
    with pytest.raises(ValueError, match="argument 'x_ptr' lives in GPU memory.*CUDA driver "
                                         "not found"):
        add_kernel[(1,)](t, t, t, 16, BLOCK_SIZE=16)


def test_dispatcher_falls_back_to_the_cpu_path():
    @triton.jit
    def k(x_ptr, n, B: tl.constexpr):
        o = tl.program_id(0) * B + tl.arange(0, B)
        tl.store(x_ptr + o, o, mask=o < n)

    d = _gpu._dispatcher(k)  # as after a GPU launch: kernel[grid] is now the C++ object
    assert isinstance(k[(1,)], _C.GpuBoundLaunch)
    x = np.zeros(40, np.int32)
    r = k[lambda meta: (triton.cdiv(meta["n"], meta["B"]),)](x, 40, B=16)
    np.testing.assert_array_equal(x, np.arange(40))
    assert r.metadata.target == "cpu-tile-interpreter"
    assert d.launch((1,), (x, 40), {"B": 16}) is None  # nothing registered: a miss
    assert not d.add((x, 40), {"B": 16}, r)  # host arrays cannot key a GPU kernel
    with pytest.raises(TypeError, match="missing argument 'n'"):  # errors come from Python
        k[(1,)](x, B=16)
    b1, b2 = k[(1,)], k[(2,)]
    assert b1 is not b2  # a held launcher is never reused for another grid
    del b1, b2, r
    # the dispatcher, its launchers and the function form cycles the GC collects
    ref = weakref.ref(k)
    del k, d
    gc.collect()
    assert ref() is None


def test_ptxas_compiles_and_reports_errors():
    if _C.gpu_find_ptxas() is None:
        pytest.skip("no ptxas")
    ptx = ADD_PTX.replace("BLOCK", "1024")
    for arch in ("sm_80", "sm_90a"):
        cubin, compiler, log, seconds = _C.gpu_compile_ptx(ptx, arch, "add_kernel")
        assert cubin[:4] == b"\x7fELF" and "ptxas" in compiler and seconds > 0
    with pytest.raises(tilec.CompilationError, match=r"(?s)ptxas failed to compile kernel "
                                                     r"'add_kernel' for sm_90a.*line \d+"):
        _C.gpu_compile_ptx(ptx.replace("add.f32", "add.f99"), "sm_90a", "add_kernel")
    with pytest.raises(ValueError, match="unknown GPU architecture"):
        _C.gpu_compile_ptx(ptx, "sm_xx", "k")


def test_kernel_objects_round_trip_through_the_disk_cache(tmp_path):
    meta = {"name": "add_kernel", "num_warps": 8, "shared": 100,
            "params": [("x_ptr", "ptr"), ("n_elements", "i32")]}
    k = _C.GpuKernel(ADD_PTX, b"\x7fELF-not-really", meta)
    assert k.metadata["num_warps"] == 8 and k.metadata["params"][1] == ("n_elements", "i32")
    key = "ab" * 32
    assert _C.GpuKernel.load_cached(key, str(tmp_path)) is None
    ok, err = k.store(key, str(tmp_path))
    assert ok, err
    back = _C.GpuKernel.load_cached(key, str(tmp_path))
    assert back.ptx == ADD_PTX and back.cubin == b"\x7fELF-not-really"
    assert back.metadata == k.metadata
    assert sorted(os.listdir(tmp_path / "ab" / key)) == ["kernel.cubin", "kernel.json",
                                                         "kernel.ptx"]
    # launching needs a device: without a driver, a clear error (after argument conversion)
    if not _C.gpu_driver_available()[0]:
        for stream in (None, 0):
            with pytest.raises(tilec.CudaError, match="CUDA driver not found"):
                back.launch((1, 1, 1), stream, ["x_ptr", "n_elements"],
                            [FakeCudaArray(ptr=0), 3])
    with pytest.raises(ValueError, match="unknown param kind 'f32'"):
        _C.GpuKernel("", b"", {"name": "k", "params": [("a", "f32")]})


def test_cache_keys_are_stable_and_cover_sources():
    from tilec import _sources

    fs = _sources.function_source(add_kernel)
    k1 = _C.gpu_cache_key(fs, "specs", "opts", "sm_90a")
    assert k1 == _C.gpu_cache_key(_sources.function_source(add_kernel), "specs", "opts",
                                  "sm_90a")
    assert k1 != _C.gpu_cache_key(fs, "specs2", "opts", "sm_90a")
    assert k1 != _C.gpu_cache_key(fs, "specs", "opts", "sm_80")
    assert k1 != _C.gpu_cache_key(_sources.function_source(fault_kernel), "specs", "opts",
                                  "sm_90a")
    # the same in a fresh process
    code = textwrap.dedent(f"""
        import sys; sys.path.insert(0, {HERE!r})
        from tilec import _C, _sources
        import test_gpu_runtime as t
        print(_C.gpu_cache_key(_sources.function_source(t.add_kernel), "specs", "opts",
                               "sm_90a"))
    """)
    out = subprocess.run(PYTHON + ["-c", code], capture_output=True, text=True,
                         check=True).stdout.split()[-1]
    assert out == k1


def test_error_classes_are_exported():
    assert issubclass(tilec.CudaError, tilec.TilecError)
    assert issubclass(tilec.CudaError, RuntimeError)
    assert issubclass(tilec.OutOfResources, tilec.TilecError)
    e = tilec.OutOfResources("out of resources: shared memory", "shared memory", 300000,
                             232448, "k")
    assert (e.resource, e.required, e.limit, e.name) == ("shared memory", 300000, 232448, "k")


# --- on a GPU ------------------------------------------------------------------------------

def cuda_inputs(n, dtype=None):
    dtype = dtype or torch.float32
    g = torch.Generator(device="cuda").manual_seed(n)
    x = torch.rand(n, device="cuda", generator=g, dtype=dtype)
    y = torch.rand(n, device="cuda", generator=g, dtype=dtype)
    return x, y, torch.full_like(x, float("nan"))


@pytest.mark.parametrize("n", [1000, 98432])
@pytest.mark.usefixtures("hand_written_ptx")
@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_add_kernel_on_the_gpu(n):
    x, y, out = cuda_inputs(n)
    grid = lambda meta: (triton.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)
    k = add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert isinstance(k, _gpu.GpuCompiledKernel)
    assert k.asm["cubin"][:4] == b"\x7fELF" and ".entry add_kernel" in k.asm["ptx"]
    assert k.n_regs > 0 and k.n_spills == 0
    assert k.metadata.target.startswith("cuda:")
    # the second launch goes through the C++ fast path and returns the same kernel
    out.fill_(0)
    assert add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024) is k
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert add_kernel._gpu_dispatch.num_kernels >= 1


@pytest.mark.usefixtures("hand_written_ptx")
@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_fast_path_argument_forms():
    n = 5000
    x, y, out = cuda_inputs(n)
    ref = x + y
    launches = [
        lambda: add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024),
        lambda: add_kernel[[triton.cdiv(n, 1024)]](x, y, out, n_elements=n, BLOCK_SIZE=1024),
        lambda: add_kernel[triton.cdiv(n, 1024)](x_ptr=x, y_ptr=y, output_ptr=out,
                                                 n_elements=n, BLOCK_SIZE=1024),
        lambda: add_kernel[(triton.cdiv(n, 1024), 1, 1)](x, y, out, np.int32(n),
                                                         BLOCK_SIZE=tl.constexpr(1024)),
        lambda: add_kernel.run(x, y, out, n, BLOCK_SIZE=1024, grid=(5,)),
        lambda: add_kernel[(5,)](x, y, out, n, BLOCK_SIZE=1024, num_warps=4),
        lambda: add_kernel[(10,)](x, y, out, n, BLOCK_SIZE=512),  # a second specialisation
        lambda: add_kernel[(5,)](FakeCudaArrayOf(x), FakeCudaArrayOf(y), FakeCudaArrayOf(out),
                                 n, BLOCK_SIZE=1024),
        lambda: add_kernel[(5,)](torch.utils.dlpack.to_dlpack(x), torch.utils.dlpack.to_dlpack(y),
                                 torch.utils.dlpack.to_dlpack(out), n, BLOCK_SIZE=1024),
    ]
    for i, launch in enumerate(launches):
        out.fill_(0)
        launch()
        torch.cuda.synchronize()
        torch.testing.assert_close(out, ref, rtol=0, atol=0, msg=f"launch form {i}")
    add_kernel[(0,)](x, y, out, n, BLOCK_SIZE=1024)  # an empty grid launches nothing


class FakeCudaArrayOf:
    def __init__(self, t):
        self.__cuda_array_interface__ = t.__cuda_array_interface__


@pytest.mark.usefixtures("hand_written_ptx")
@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_streams_and_cuda_graphs():
    n = 4096
    x, y, out = cuda_inputs(n)
    s = torch.cuda.Stream()
    add_kernel[(4,)](x, y, out, n, BLOCK_SIZE=1024)  # compile before capturing
    torch.cuda.synchronize()
    out.fill_(0)
    with torch.cuda.stream(s):  # torch's current stream is the one used
        add_kernel[(4,)](x, y, out, n, BLOCK_SIZE=1024)
    s.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    out.fill_(0)
    add_kernel[(4,)](x, y, out, n, BLOCK_SIZE=1024, stream=s.cuda_stream)
    s.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        add_kernel[(4,)](x, y, out, n, BLOCK_SIZE=1024)
    out.fill_(0)
    x.add_(1)
    g.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


@pytest.mark.usefixtures("hand_written_ptx")
@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_argument_errors_on_the_gpu():
    n = 64
    x, y, out = cuda_inputs(n)
    with pytest.raises(ValueError, match="argument 'y_ptr' is a CPU tensor.*'x_ptr' is on the "
                                         "GPU"):
        add_kernel[(1,)](x, y.cpu(), out, n, BLOCK_SIZE=1024)
    add_kernel[(1,)](x, y, out, n, BLOCK_SIZE=1024)
    with pytest.raises(ValueError, match="argument 'y_ptr' is a numpy array"):  # fast path
        add_kernel[(1,)](x, y.cpu().numpy(), out, n, BLOCK_SIZE=1024)
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'bogus'"):
        add_kernel[(1,)](x, y, out, n, BLOCK_SIZE=1024, bogus=1)
    with pytest.raises(ValueError, match="grid dimensions must be in"):
        add_kernel[(-1,)](x, y, out, n, BLOCK_SIZE=1024)
    if torch.cuda.device_count() > 1:
        with pytest.raises(ValueError, match="all tensors of a launch must be on one device"):
            add_kernel[(1,)](x, y.to("cuda:1"), out, n, BLOCK_SIZE=1024)


@pytest.mark.usefixtures("hand_written_ptx")
@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_too_much_shared_memory_is_out_of_resources():
    out = torch.zeros(16, device="cuda", dtype=torch.int32)
    with pytest.raises(tilec.OutOfResources, match="out of resources: shared memory") as e:
        smem_kernel[(1,)](out, 16)
    assert e.value.required == 1 << 30 and e.value.name == "smem_kernel"


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_disk_cache_serves_a_fresh_process(tmp_path):
    code = textwrap.dedent(f"""
        import sys, torch
        sys.path.insert(0, {HERE!r})
        import test_gpu_runtime as t
        from tilec import _gpu
        def cached_only(*args):
            raise AssertionError("compiled although the disk cache has the kernel")
        # the cache key names the generator: the stand-in takes hand_ptx's name
        cached_only.__module__ = t.hand_ptx.__module__
        cached_only.__qualname__ = t.hand_ptx.__qualname__
        _gpu.set_ptx_generator(t.hand_ptx if sys.argv[1] == "first" else cached_only)
        x = torch.ones(100, device="cuda")
        out = torch.zeros_like(x)
        t.add_kernel[(1,)](x, x, out, 100, BLOCK_SIZE=1024)
        torch.cuda.synchronize()
        assert out.eq(2).all().item()
        print("ok")
    """)
    env = dict(os.environ, TILEC_CACHE_DIR=str(tmp_path))
    for phase in ("first", "second"):
        r = subprocess.run(PYTHON + ["-c", code, phase], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr
    assert len(os.listdir(tmp_path)) == 1  # one shard, one entry


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_a_faulting_kernel_is_named_and_does_not_hang(tmp_path):
    code = textwrap.dedent(f"""
        import sys, torch
        sys.path.insert(0, {HERE!r})
        import tilec
        import test_gpu_runtime as t
        tilec._gpu.set_ptx_generator(t.hand_ptx)
        x = torch.zeros(16, device="cuda")
        t.fault_kernel[(1,)](x)
        try:
            tilec.synchronize()
        except tilec.CudaError as e:
            print("raised:", e)
            sys.exit(0 if "fault_kernel" in str(e) and e.kernel == "fault_kernel" else 3)
        sys.exit(2)
    """)
    env = dict(os.environ, TILEC_CACHE_DIR=str(tmp_path))
    r = subprocess.run(PYTHON + ["-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in r.stdout


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_always_compile_bypasses_every_cache(tmp_path, monkeypatch):
    calls = []

    def counting_ptx(*args):
        calls.append(1)
        return hand_ptx(*args)

    @triton.jit
    def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        o = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        tl.store(output_ptr + o, tl.load(x_ptr + o) + tl.load(y_ptr + o))

    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    prev = _gpu.set_ptx_generator(counting_ptx)
    try:
        x, y, out = cuda_inputs(2048)
        monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
        for _ in range(2):
            add_kernel[(2,)](x, y, out, 2048, BLOCK_SIZE=1024)
        assert len(calls) == 2 and add_kernel._gpu_dispatch is None
        monkeypatch.delenv("TILEC_ALWAYS_COMPILE")
        for _ in range(2):  # the disk cache has it now; then the fast path serves
            add_kernel[(2,)](x, y, out, 2048, BLOCK_SIZE=1024)
        assert len(calls) == 2 and add_kernel._gpu_dispatch.num_kernels == 1
        torch.cuda.synchronize()
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    finally:
        _gpu.set_ptx_generator(prev)


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU or torch.cuda.device_count() < 2,
                    reason="needs two CUDA GPUs and torch")
def test_the_device_of_the_arguments_picks_the_gpu():
    """Tensors on cuda:1 while the current device is 0: the kernel runs on cuda:1 (its
    context, torch's current stream there), through the Python path and the fast path."""
    torch.cuda.set_device(0)

    @triton.jit
    def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        o = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        m = o < n_elements
        tl.store(output_ptr + o, tl.load(x_ptr + o, mask=m) + tl.load(y_ptr + o, mask=m), mask=m)

    n = 5000
    for dev in (1, 0, 1):
        x = torch.rand(n, device=f"cuda:{dev}")
        y = torch.rand(n, device=f"cuda:{dev}")
        for _ in range(2):  # the Python path, then the fast path
            out = torch.full_like(x, float("nan"))
            add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
            assert torch.cuda.current_device() == 0
            torch.cuda.synchronize(dev)
            torch.testing.assert_close(out, x + y, rtol=0, atol=0)
        assert _C.gpu_last_kernel(dev) == "add_kernel"
    s = torch.cuda.Stream(device=1)
    with torch.cuda.stream(s):  # torch's current stream on cuda:1 is taken
        x = torch.rand(n, device="cuda:1")
        out = torch.empty_like(x)
        add_kernel[(triton.cdiv(n, 1024),)](x, x, out, n, BLOCK_SIZE=1024)
    s.synchronize()
    torch.testing.assert_close(out, x + x, rtol=0, atol=0)
    with pytest.raises(ValueError, match="on one device"):
        add_kernel[(1,)](x, torch.rand(n, device="cuda:0"), out, n, BLOCK_SIZE=1024)
    assert add_kernel._gpu_dispatch.fast_launches >= 3


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_cooperative_grid_too_large_is_a_clear_error():
    """launch_cooperative_grid=True asks the driver to keep every program resident: a grid
    larger than the GPU holds is refused with an error naming the keyword (and the context
    stays usable: the refusal is not a fault)."""
    @triton.jit
    def fill(X, N: tl.constexpr):
        tl.store(X + tl.program_id(0) * N + tl.arange(0, N), tl.full((N,), 7, tl.int32))

    n = 1 << 20
    x = torch.zeros(n * 128, device="cuda", dtype=torch.int32)
    with pytest.raises(tilec.CudaError, match="launch_cooperative_grid=True needs every program "
                                              "resident"):
        fill[(n,)](x, N=128, launch_cooperative_grid=True, num_warps=4)
    fill[(4,)](x, N=128, launch_cooperative_grid=True, num_warps=4)
    fill[(4,)](x, N=128, launch_pdl=True, num_warps=4)
    torch.cuda.synchronize()
    assert int(x[:512].sum()) == 7 * 512 and int(x[512:].sum()) == 0


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
@pytest.mark.parametrize("var", ["TILEC_INTERPRET", "TRITON_INTERPRET"])
def test_interpret_runs_cuda_tensors_on_the_cpu(monkeypatch, var):
    """With TILEC_INTERPRET=1 a launch on CUDA tensors runs on the tile interpreter over
    host copies written back after it: a strided view into a larger tensor, an argument
    aliasing another, and the interpreter's bounds check (which the GPU lacks)."""
    monkeypatch.setenv(var, "1")

    @triton.jit
    def axpy(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = o < n
        tl.store(out_ptr + o, 2 * tl.load(x_ptr + o, mask=m) + tl.load(y_ptr + o, mask=m), mask=m)

    base = torch.arange(3000, device="cuda", dtype=torch.float32)
    x, y = base[100:1100], base[1000:2000]  # overlapping views of one storage
    out = base[2000:3000]
    want = 2 * x.clone() + y.clone()
    k = axpy[(triton.cdiv(1000, 256),)](x, y, out, 1000, BLOCK=256)
    assert k.metadata.target == "cpu-tile-interpreter"
    assert axpy._gpu_dispatch is None  # never launched on the GPU
    torch.testing.assert_close(base[2000:3000], want, rtol=0, atol=0)
    assert torch.equal(base[:2000], torch.arange(2000, device="cuda", dtype=torch.float32))
    with pytest.raises(tilec.KernelError, match="out-of-bounds store to argument .out_ptr."):
        axpy[(1,)](x, y, out[:10], 1000, BLOCK=256)  # the mask allows 1000, out holds 10
