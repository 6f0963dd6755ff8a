"""The GPU launch path without a GPU: a stand-in device (_C._gpu_test_device) records the
launches the driver would get, and a fake `torch` module provides tensor-like objects with
the attributes tilec reads (get_device, data_ptr, dtype, device). The binding, the
specialisation key, the C++ fast path against the Python path, the grid forms, streams,
the device that picks the context and the argument errors are all checked here; the GPU
tests (test_gpu_runtime.py) run the same path on a real device."""

import importlib.util
import sys
import types

import pytest

import tilec
import tilec.language as tl
from tilec import _C, _gpu

if not hasattr(_C, "_gpu_test_device"):
    pytest.skip("the installed tilec._C predates the GPU test device: reinstall",
                allow_module_level=True)
if "torch" in sys.modules or importlib.util.find_spec("torch") is not None:
    pytest.skip("a real torch is installed: the GPU tests cover this path",
                allow_module_level=True)


class FakeDtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name

    __repr__ = __str__


class FakeDevice:
    def __init__(self, index):
        self.type = "cpu" if index < 0 else "cuda"
        self.index = None if index < 0 else index


class Tensor:
    """What tilec reads of a torch tensor."""

    def __init__(self, ptr, dtype="float32", device=0):
        self._ptr, self._dtype, self._device = ptr, FakeDtype(dtype), device
        self.queries = 0

    def get_device(self):
        self.queries += 1
        return self._device

    def data_ptr(self):
        self.queries += 1
        return self._ptr

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return FakeDevice(self._device)


def _raw_stream(index):
    return 0x5000 + index


@pytest.fixture
def fake_gpu(tmp_path, monkeypatch):
    """(launches, compiles): the recorded launches and the kernels compiled."""
    torch = types.ModuleType("torch")
    torch.Tensor = Tensor
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=_raw_stream)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    launches, compiles = [], []

    def record(name, grid, device, stream, params, *attrs):  # attrs: only when not 0
        launches.append((name, grid, device, stream, list(params)) + attrs)

    def generate(jitfn, fs, specs, options, arch):
        compiles.append((jitfn.__name__, specs, options, arch))
        params = []
        for p, s in zip(jitfn.params, specs):
            if p.is_constexpr:
                continue
            if s[0] == "pointer":
                params.append((p.name, "ptr"))
            elif s[0] == "tensordesc":  # the descriptor's parts, as Sema names them
                rank = len(s[1][1])
                params.append((p.name + ".base", "ptr"))
                params += [(f"{p.name}.shape.{i}", "i32") for i in range(rank)]
                params += [(f"{p.name}.stride.{i}", "i64") for i in range(rank - 1)]
            else:
                params.append((p.name, s[1][0] if s[0] == "int" else "fp32"))
        return "// no PTX on the test device", {"name": jitfn.__name__, "params": params}

    _C._gpu_test_device(90, record)
    prev = _gpu.set_ptx_generator(generate)
    try:
        yield launches, compiles
    finally:
        _gpu.set_ptx_generator(prev)
        monkeypatch.delitem(sys.modules, "torch")
        _C._gpu_test_device(0, None)


def make_add():
    @tilec.jit
    def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(output_ptr + offsets, x + y, mask=mask)

    return add_kernel



@pytest.mark.parametrize("kw, attrs", [({"launch_pdl": True}, 2),
                                       ({"launch_cooperative_grid": True}, 1),
                                       ({"launch_pdl": True, "launch_cooperative_grid": 1}, 3),
                                       ({"launch_pdl": False}, None)])
def test_launch_attributes_reach_the_driver(fake_gpu, kw, attrs):
    """launch_pdl / launch_cooperative_grid become cuLaunchKernelEx attributes, from the
    Python path (first launch) and the fast path alike."""
    launches, _ = fake_gpu
    add = make_add()
    x, y, out = tensors()
    for _ in range(3):
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, **kw)
    assert add._gpu_dispatch.fast_launches == 2
    want = () if attrs is None else (attrs,)
    assert [l[5:] for l in launches] == [want] * 3
    with pytest.raises(TypeError, match="launch_pdl must be a bool, got str"):
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024, launch_pdl="yes")

def tensors(device=0, base=0x7F0000000000):
    return [Tensor(base + i * 0x1000, device=device) for i in range(3)]


def test_second_launch_takes_the_fast_path(fake_gpu):
    launches, compiles = fake_gpu
    add = make_add()
    x, y, out = tensors()
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    assert len(compiles) == 1 and compiles[0][3] == "sm_90a"
    d = add._gpu_dispatch
    assert d is not None and d.num_kernels == 1 and d.fast_launches == 0
    for _ in range(3):
        r = add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    assert d.fast_launches == 3 and d.fallbacks == 0 and len(compiles) == 1
    assert r.name == "add_kernel" and r.metadata.arch == "sm_90a"
    want = ("add_kernel", (4, 1, 1), 0, 0x5000, [x._ptr, y._ptr, out._ptr, 4096])
    assert launches == [want] * 4  # the Python path and the fast path launch alike
    # kernel[grid] is one C call: a method descriptor, no Python frame
    assert type(type(add).__dict__["__getitem__"]).__name__ == "method_descriptor"
    assert isinstance(add[(1,)], _C.GpuBoundLaunch)


def test_grid_forms_and_keywords(fake_gpu):
    launches, _ = fake_gpu
    add = make_add()
    x, y, out = tensors()
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    launches.clear()
    add[lambda meta: (tilec.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)](
        x, y, out, 100, BLOCK_SIZE=64)
    add[2](x, y, out, 100, BLOCK_SIZE=64)
    add[[3, 2]](x, y, out, 100, BLOCK_SIZE=64)
    add[(1,)](x, y, output_ptr=out, n_elements=100, BLOCK_SIZE=64)
    add[(1,)](BLOCK_SIZE=64, n_elements=100, output_ptr=out, y_ptr=y, x_ptr=x)
    add[(0,)](x, y, out, 100, BLOCK_SIZE=64)  # an empty grid launches nothing
    assert [l[1] for l in launches] == [(2, 1, 1), (2, 1, 1), (3, 2, 1), (1, 1, 1), (1, 1, 1)]
    assert all(l[4] == [x._ptr, y._ptr, out._ptr, 100] for l in launches)
    assert add._gpu_dispatch.fallbacks == 0  # the first launch ran before the fast path existed
    with pytest.raises(ValueError, match="grid dimensions must be in"):
        add[(-1,)](x, y, out, 100, BLOCK_SIZE=64)
    with pytest.raises(TypeError, match="grid dimensions must be ints"):
        add[lambda meta: (1.5,)](x, y, out, 100, BLOCK_SIZE=64)


def test_streams(fake_gpu):
    launches, _ = fake_gpu
    add = make_add()
    x, y, out = tensors()
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64, stream=1234)
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64, stream=types.SimpleNamespace(cuda_stream=77))
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    assert [l[3] for l in launches] == [1234, 77, 0x5000]
    assert add._gpu_dispatch.fast_launches == 2


def test_specialisations_compile_once_each(fake_gpu):
    launches, compiles = fake_gpu
    add = make_add()
    x, y, out = tensors()
    for n in (4096, 4097, 1, 4096, 4097, 1):
        add[(1,)](x, y, out, n, BLOCK_SIZE=64)
    add[(1,)](x, y, out, 1 << 40, BLOCK_SIZE=64)  # i64
    odd = Tensor(x._ptr + 4)  # not 16-byte aligned
    add[(1,)](odd, y, out, 4096, BLOCK_SIZE=64)
    add[(1,)](odd, y, out, 4096, BLOCK_SIZE=64)
    add[(1,)](x, y, out, 4096, BLOCK_SIZE=128)
    assert len(compiles) == 6
    assert add._gpu_dispatch.num_kernels == 6
    assert launches[-2][4][0] == odd._ptr
    assert [l[4][3] for l in launches[:6]] == [4096, 4097, 1, 4096, 4097, 1]


def test_tilec_debug_is_read_at_each_launch(fake_gpu, monkeypatch):
    _, compiles = fake_gpu
    add = make_add()
    x, y, out = tensors()
    monkeypatch.setenv("TILEC_DEBUG", "1")
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    monkeypatch.setenv("TILEC_DEBUG", "0")
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)  # another variant: asserts compiled out
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    assert [c[2][2] for c in compiles] == [True, False]  # options: (warps, stages, debug)
    assert add._gpu_dispatch.fast_launches == 2


def test_triton_debug_is_an_alias(fake_gpu, monkeypatch):
    """TRITON_DEBUG=1 turns debug on as TILEC_DEBUG=1 does (either suffices), read at each
    launch from os.environ by the fast path and the Python path alike."""
    _, compiles = fake_gpu
    add = make_add()
    x, y, out = tensors()
    monkeypatch.delenv("TILEC_DEBUG", raising=False)
    monkeypatch.setenv("TRITON_DEBUG", "1")
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    monkeypatch.setenv("TILEC_DEBUG", "0")  # either variable on: on
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    monkeypatch.setenv("TRITON_DEBUG", "0")
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    monkeypatch.delenv("TRITON_DEBUG")
    monkeypatch.setenv("TILEC_DEBUG", "yes")
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    assert [c[2][2] for c in compiles] == [True, False]
    assert add._gpu_dispatch.fast_launches == 3
    assert _C.debug_env() is True


def test_debug_env_follows_a_replaced_os_environ(fake_gpu, monkeypatch):
    import os
    monkeypatch.delenv("TILEC_DEBUG", raising=False)
    monkeypatch.delenv("TRITON_DEBUG", raising=False)
    assert _C.debug_env() is False
    copy = os._Environ(dict(os.environ._data), os.environ.encodekey, os.environ.decodekey,
                       os.environ.encodevalue, os.environ.decodevalue)
    copy._data[b"TILEC_DEBUG"] = b"1"  # as a replacement os.environ holds it
    monkeypatch.setattr(os, "environ", copy)
    assert _C.debug_env() is True


def test_device_of_the_arguments_picks_the_context(fake_gpu):
    launches, compiles = fake_gpu
    add = make_add()
    x, y, out = tensors(device=1)
    for _ in range(2):
        add[(1,)](x, y, out, 64, BLOCK_SIZE=64)
    assert [l[2:4] for l in launches] == [(1, 0x5001)] * 2  # cuda:1 and its current stream
    a, b, c = tensors(device=0)
    add[(1,)](a, b, c, 64, BLOCK_SIZE=64)
    assert launches[-1][2:4] == (0, 0x5000)


def test_argument_errors(fake_gpu):
    launches, _ = fake_gpu
    add = make_add()
    x, y, out = tensors()
    add[(1,)](x, y, out, 64, BLOCK_SIZE=64)  # registers the fast path
    cpu = Tensor(0x1000, device=-1)
    for _ in range(2):  # the fast path and (with a fresh function) the Python path
        with pytest.raises(ValueError, match="argument 'y_ptr' is a CPU tensor, but argument "
                                             "'x_ptr' is on the GPU"):
            add[(1,)](x, cpu, out, 64, BLOCK_SIZE=64)
        with pytest.raises(ValueError, match="'output_ptr' is on cuda:1.*on one device"):
            add[(1,)](x, y, Tensor(0x2000, device=1), 64, BLOCK_SIZE=64)
        with pytest.raises(TypeError, match="torch tensors of dtype torch.complex64"):
            add[(1,)](x, y, Tensor(0x2000, dtype="complex64"), 64, BLOCK_SIZE=64)
        with pytest.raises(TypeError, match="missing argument 'n_elements'"):
            add[(1,)](x, y, out, BLOCK_SIZE=64)
        with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
            add[(1,)](x, y, out, 64, BLOCK_SIZE=64, bogus=1)
        add = make_add()
    assert len(launches) == 1


def test_tensor_queries_per_launch(fake_gpu):
    add = make_add()
    x, y, out = tensors()
    add[(1,)](x, y, out, 64, BLOCK_SIZE=64)
    before = [t.queries for t in (x, y, out)]
    add[(1,)](x, y, out, 64, BLOCK_SIZE=64)
    assert add._gpu_dispatch.fast_launches == 1
    # get_device() and data_ptr() once each (dtype is an attribute)
    assert [t.queries - b for t, b in zip((x, y, out), before)] == [2, 2, 2]


def test_keyword_only_parameters(fake_gpu):
    launches, _ = fake_gpu

    @tilec.jit
    def k(x_ptr, n, *, BLOCK: tl.constexpr, scale=3):
        o = tl.arange(0, BLOCK)
        tl.store(x_ptr + o, tl.load(x_ptr + o) * scale, mask=o < n)

    x = Tensor(0x7F0000000000)
    for _ in range(2):
        k[(1,)](x, 10, BLOCK=16)
        k[(1,)](x, 10, BLOCK=16, scale=5)
    assert [l[4] for l in launches] == [[x._ptr, 10, 3], [x._ptr, 10, 5]] * 2
    assert k._gpu_dispatch.fast_launches == 3  # scale is an ordinary int: one specialisation
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        k[(1,)](x, 10, 16)


def test_a_test_device_without_recorder_launches_nothing(fake_gpu):
    launches, _ = fake_gpu
    add = make_add()
    x, y, out = tensors()
    add[(1,)](x, y, out, 64, BLOCK_SIZE=64)
    _C._gpu_test_device(90, None)  # what benchmarks/gpu_launch_breakdown.py times
    for _ in range(3):
        add[(1,)](x, y, out, 64, BLOCK_SIZE=64)
    assert len(launches) == 1 and add._gpu_dispatch.fast_launches == 3


def test_tilec_debug_spellings(fake_gpu, monkeypatch):
    _, compiles = fake_gpu
    add = make_add()
    x, y, out = tensors()
    for value in ("0", "off", "false", "False", "no", ""):  # env::flag's "false" spellings
        monkeypatch.setenv("TILEC_DEBUG", value)
        add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    monkeypatch.delenv("TILEC_DEBUG")
    add[(1,)](x, y, out, 100, BLOCK_SIZE=64)  # unset: the default, off
    for value in ("1", "yes", "on"):
        monkeypatch.setenv("TILEC_DEBUG", value)
        add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
    assert [c[2][2] for c in compiles] == [False, True]
    assert add._gpu_dispatch.fast_launches == 8


def test_launch_options_are_keyed(fake_gpu):
    launches, compiles = fake_gpu
    add = make_add()
    x, y, out = tensors()
    for _ in range(2):
        add[(1,)](x, y, out, 100, BLOCK_SIZE=64)
        add[(1,)](x, y, out, 100, BLOCK_SIZE=64, num_warps=8)
        add[(1,)](x, y, out, 100, BLOCK_SIZE=64, num_warps=8, debug=True)
        add[(1,)](x, y, out, 100, BLOCK_SIZE=64, num_stages=2, num_warps=8)
        add[(1,)](x, y, out, 100, BLOCK_SIZE=64, debug=None)
    assert [c[2][:3] for c in compiles] == [(4, 3, False), (8, 3, False), (8, 3, True),
                                        (8, 2, False)]
    assert add._gpu_dispatch.fast_launches == 5 and len(launches) == 10
    # an option value the fast path cannot key goes to the Python path, which reports it
    with pytest.raises(Exception):
        add[(1,)](x, y, out, 100, BLOCK_SIZE=64, num_warps=1 << 80)


def test_large_and_negative_handles(fake_gpu):
    launches, _ = fake_gpu
    add = make_add()
    x, y, out = tensors()
    high = Tensor((1 << 64) - 4096)  # past 2^63: still a valid 64-bit address
    for _ in range(2):
        add[(1,)](high, y, out, 100, BLOCK_SIZE=64, stream=(1 << 64) - 16)
    assert [l[4][0] for l in launches] == [high._ptr] * 2
    assert [l[3] for l in launches] == [(1 << 64) - 16] * 2
    assert add._gpu_dispatch.fast_launches == 1
    with pytest.raises(OverflowError):
        add[(1,)](Tensor(-16), y, out, 100, BLOCK_SIZE=64)
    with pytest.raises(OverflowError):
        add[(1,)](x, y, out, 100, BLOCK_SIZE=64, stream=-1)
    with pytest.raises(OverflowError):
        add[(1,)](x, y, out, 100, BLOCK_SIZE=64, stream=1 << 64)
    assert len(launches) == 2


class CudaTensor(Tensor):
    """A tensor with torch's is_cuda: with one CUDA device, tilec reads it instead of
    get_device() (counted apart)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.get_device_calls = 0

    def get_device(self):
        self.get_device_calls += 1
        return super().get_device()

    @property
    def is_cuda(self):
        return self._device >= 0


def cuda_tensors(device=0):
    return [CudaTensor(0x7F0000000000 + i * 0x1000, device=device) for i in range(3)]


def launch_three(add, x, y, out):
    add[(1,)](x, y, out, 64, BLOCK_SIZE=64)  # compiles and registers the fast path
    for t in (x, y, out):
        t.get_device_calls = 0
    before = add._gpu_dispatch.fast_launches
    for _ in range(3):
        add[(1,)](x, y, out, 64, BLOCK_SIZE=64)
    assert add._gpu_dispatch.fast_launches - before == 3
    return [t.get_device_calls for t in (x, y, out)]


def test_one_device_reads_is_cuda_not_get_device(fake_gpu):
    launches, _ = fake_gpu  # the test device reports one GPU
    x, y, out = cuda_tensors()
    assert launch_three(make_add(), x, y, out) == [0, 0, 0]
    assert [l[2] for l in launches] == [0] * 4  # on device 0
    assert [l[4][:3] for l in launches[1:]] == [[x._ptr, y._ptr, out._ptr]] * 3


def test_class_attribute_writes_keep_the_is_cuda_path(fake_gpu):
    """Writing a class attribute (a subclass counting calls in a class variable, as users
    do) clears the type's version tag; the fast path assigns a new one instead of falling
    back to get_device()."""

    class Counting(CudaTensor):
        launches = 0

    launches, _ = fake_gpu
    add = make_add()
    x, y, out = (Counting(0x7F0000000000 + i * 0x1000) for i in range(3))
    add[(1,)](x, y, out, 64, BLOCK_SIZE=64)
    for t in (x, y, out):
        t.get_device_calls = 0
    for _ in range(3):
        Counting.launches += 1  # the write clears Counting's version tag
        add[(1,)](x, y, out, 64, BLOCK_SIZE=64)
    assert add._gpu_dispatch.fast_launches == 3
    assert [t.get_device_calls for t in (x, y, out)] == [0, 0, 0]
    assert len(launches) == 4


def test_two_devices_ask_get_device(fake_gpu):
    launches, _ = fake_gpu
    _C._gpu_test_device(90, lambda *a: launches.append(a), 2)
    x, y, out = cuda_tensors(device=1)
    assert launch_three(make_add(), x, y, out) == [3, 3, 3]
    assert [l[2] for l in launches] == [1] * 4  # device 1's context, as get_device said
    with pytest.raises(ValueError, match="'output_ptr' is on cuda:0.*on one device"):
        make_add()[(1,)](x, y, CudaTensor(0x2000, device=0), 64, BLOCK_SIZE=64)


def test_one_device_cpu_tensor_keeps_its_error(fake_gpu):
    launches, _ = fake_gpu
    add = make_add()
    x, y, out = cuda_tensors()
    cpu = CudaTensor(0x1000, device=-1)
    add[(1,)](x, y, out, 64, BLOCK_SIZE=64)  # registers the fast path
    for _ in range(2):  # the fast path and (with a fresh function) the Python path
        with pytest.raises(ValueError, match="argument 'y_ptr' is a CPU tensor, but argument "
                                             "'x_ptr' is on the GPU"):
            add[(1,)](x, cpu, out, 64, BLOCK_SIZE=64)
        add = make_add()
    assert cpu.get_device_calls >= 1  # is_cuda False: get_device() decides, as before
    assert len(launches) == 1


def test_launch_breakdown_fake_runs():
    """benchmarks/gpu_launch_breakdown.py --fake (what compares builds without a GPU): every
    launch on the fast path, the plain-loop row present."""
    import os
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run([sys.executable, os.path.join(root, "benchmarks", "gpu_launch_breakdown.py"),
                        "--fake", "--count", "5"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "fallbacks: 0" in r.stdout and "plain loop: kernel[grid](...)" in r.stdout


def test_a_fake_torch_keeps_the_python_getters(fake_gpu):
    """torch's C shim (python/src/GpuTorchAbi.h) needs torch's own libraries and tensor
    layout: with a stand-in torch it stays off and every tensor is read by its getters."""
    launches, _ = fake_gpu
    add = make_add()
    x, y, out = tensors()
    for _ in range(2):
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    assert _C._gpu_torch_abi_state().startswith("tensors off, stream off"), \
        _C._gpu_torch_abi_state()
    assert _C._gpu_torch_abi_facts(x) is None
    assert x.queries > 0 and launches[-1][3] == 0x5000


def test_tensor_descriptor_arguments(fake_gpu):
    """A host TensorDescriptor over GPU memory: its parts become .params (base, shapes,
    strides but the last); its dtype, block shape and padding are part of the key, in the
    C++ fast path (which packs the same parts as the Python path) as in Python's."""
    from tilec.tools.tensor_descriptor import TensorDescriptor

    launches, compiles = fake_gpu

    @tilec.jit
    def desc_copy(src, dst, B: tl.constexpr):
        dst.store([0, 0], src.load([0, 0]))

    x, y, _ = tensors()
    for t in (x, y):
        t._dtype.itemsize, t._dtype.is_floating_point = 4, True
    src = TensorDescriptor(x, [64, 40], [48, 1], [16, 16])
    dst = TensorDescriptor(y, [64, 40], [48, 1], [16, 16])
    desc_copy[(2,)](src, dst, B=16)
    desc_copy[(2,)](src, dst, B=16)
    assert len(compiles) == 1
    assert compiles[0][1][0] == ("tensordesc", ("fp32", (16, 16), False, (True, False), (True,)))
    want = ("desc_copy", (2, 1, 1), 0, 0x5000, [x._ptr, 64, 40, 48, y._ptr, 64, 40, 48])
    assert launches == [want] * 2
    d = desc_copy._gpu_dispatch
    assert d.fast_launches == 1  # the second launch
    src.block_shape = dst.block_shape = [32, 16]  # what an autotuner pre_hook does
    desc_copy[(2,)](src, dst, B=16)
    assert len(compiles) == 2 and compiles[1][1][0][1][1] == (32, 16)
    desc_copy[(2,)](src, dst, B=16)
    assert d.fast_launches == 2 and len(compiles) == 2
    src.padding = "nan"
    desc_copy[(2,)](src, dst, B=16)
    assert len(compiles) == 3 and compiles[2][1][0][1][2] is True
    src.shape = [64, 48]  # a shape of another divisibility: a new variant
    desc_copy[(2,)](src, dst, B=16)
    assert len(compiles) == 4 and launches[-1][4][:3] == [x._ptr, 64, 48]
    src.shape = [64, 32]  # the same divisibility: the fast path, with the new value
    desc_copy[(2,)](src, dst, B=16)
    assert len(compiles) == 4 and d.fast_launches == 3 and launches[-1][4][:3] == [x._ptr, 64, 32]
    bad = TensorDescriptor(x, [64], [1], [16])
    bad.base = Tensor(x._ptr + 4)  # the constructor checks it; a launch checks it again
    with pytest.raises(ValueError, match="'src' .*16-byte aligned"):
        desc_copy[(2,)](bad, dst, B=16)


SCALE = tl.constexpr(2)


@tilec.jit
def scaled_copy(x_ptr, out_ptr, BLOCK_SIZE: tl.constexpr):
    offs = tl.arange(0, BLOCK_SIZE)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * SCALE)


def test_fast_path_sees_a_global_rebound(fake_gpu):
    """A global the kernel read is watched by the fast path: rebinding it (even to an equal
    value) sends the launch to the Python path, which compares values and raises when the
    value changed (as Triton does)."""
    global SCALE
    launches, compiles = fake_gpu
    x, _, out = tensors()
    for _ in range(3):
        scaled_copy[(1,)](x, out, BLOCK_SIZE=128)
    d = scaled_copy._gpu_dispatch
    assert d.fast_launches == 2 and len(compiles) == 1
    try:
        SCALE = tl.constexpr(2)  # another object, the same value: still the same kernel
        scaled_copy[(1,)](x, out, BLOCK_SIZE=128)
        scaled_copy[(1,)](x, out, BLOCK_SIZE=128)
        assert d.fast_launches == 3 and len(compiles) == 1 and len(launches) == 5
        SCALE = tl.constexpr(3)
        with pytest.raises(RuntimeError, match="Global variable SCALE has changed since we "
                                               "compiled this kernel, from constexpr.2. to "
                                               "constexpr.3."):
            scaled_copy[(1,)](x, out, BLOCK_SIZE=128)
        assert len(launches) == 5
    finally:
        SCALE = tl.constexpr(2)
