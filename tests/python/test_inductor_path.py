"""What torch's Inductor does with a Triton installation, done to tilec without torch:
compile an ASTSource for the GPU or for the CPU target (`backends["cpu"]`, the tile
interpreter), launch through Triton's launcher entry `CompiledKernel.run(grid_0, grid_1,
grid_2, stream, function, metadata, launch_metadata, enter_hook, exit_hook, *args)`, move a
compiled kernel between processes as its `__dict__` (the compile workers' pickling), and
read @jit helpers from a user's module (`triton_helpers.max2`)."""

import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.backends import backends
from tilec.backends.compiler import GPUTarget
from tilec.compiler import ASTSource, CompiledKernel, make_backend
from tilec.runtime.driver import CpuDriver

import seed_kernels as sk
import user_helpers

CPU = GPUTarget("cpu", 0, 32)
ADD_SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32",
           "BLOCK_SIZE": "constexpr"}


def test_cpu_backend_is_registered_after_cuda():
    assert list(backends) == ["nvidia", "cpu"]
    assert backends["cpu"].driver is CpuDriver
    assert type(make_backend(CPU)).__name__ == "CPUBackend"
    assert make_backend(CPU).parse_options({"num_warps": 8, "bogus": 1}).num_warps == 8


def test_compile_for_the_cpu_target_and_launch_with_tritons_entry():
    src = ASTSource(sk.add_kernel, ADD_SIG, {"BLOCK_SIZE": 64},
                    {(i,): [["tt.divisibility", 16]] for i in range(3)})
    k = tilec.compile(src, target=CPU, options={"num_warps": 4})
    assert isinstance(k, CompiledKernel) and k.metadata.target == CPU
    assert "ttir" in k.asm and k.metadata.num_ctas == 1 and k.hash
    x = np.arange(100, dtype=np.float32)
    y = np.ones(100, dtype=np.float32)
    out = np.zeros(100, dtype=np.float32)
    seen = []
    k._init_handles()
    k.run(2, 1, 1, None, k.function, k.packed_metadata if hasattr(k, "packed_metadata")
          else k.metadata, "meta", seen.append, seen.append, x, y, out, 100, 64)
    assert np.array_equal(out, x + 1) and seen == ["meta", "meta"]
    with pytest.raises(TypeError, match="takes 5 arguments"):
        k.run(1, 1, 1, None, None, None, None, None, None, x, y)


def test_cpu_kernel_cannot_move_between_processes():
    k = tilec.compile(ASTSource(sk.add_kernel, ADD_SIG, {"BLOCK_SIZE": 64}), target=CPU)
    moved = CompiledKernel.__new__(CompiledKernel)
    moved.__dict__.update({**k.__dict__, "module": None, "function": None, "run": None})
    with pytest.raises(RuntimeError, match="compile_threads = 1"):
        moved._init_handles()


class _ConstRepr:
    def __init__(self, value):
        self.value = value

    def __call__(self, _fn):
        return self.value


def _as_inductor_moves_it(kernel):
    """Inductor's TritonCompileResult pickling: the kernel's __dict__ with module, function
    and run cleared, its @jit function with fn and __globals__ cleared, rebuilt in the
    other process as a bare CompiledKernel."""
    fn = kernel.src.fn
    saved = fn.fn, fn.__globals__, fn.used_global_vals, fn.repr
    fn.fn, fn.__globals__, fn.used_global_vals = None, None, None
    fn.repr = _ConstRepr(fn.repr(fn))
    try:
        state = pickle.dumps({**kernel.__dict__, "module": None, "function": None, "run": None})
    finally:
        fn.fn, fn.__globals__, fn.used_global_vals, fn.repr = saved
    moved = CompiledKernel.__new__(CompiledKernel)
    moved.__dict__.update(pickle.loads(state))
    return moved


def test_gpu_kernel_moves_between_processes_as_its_dict():
    src = ASTSource(sk.add_kernel, ADD_SIG, {"BLOCK_SIZE": 128})
    k = tilec.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    moved = _as_inductor_moves_it(k)
    assert type(moved) is CompiledKernel and moved.run is None
    moved._init_handles()
    assert type(moved) is type(k) and moved.run.__func__ is type(k).run
    assert moved.asm["ptx"] == k.asm["ptx"] and moved.metadata.name == "add_kernel"
    assert moved.function.arg_names == sk.add_kernel.arg_names
    assert moved.src.fn.repr(moved.src.fn) == "add_kernel"


def test_gpu_kernel_run_entry_hands_the_launch_to_the_native_kernel():
    """Inductor's generated launcher calls `run` with every @jit argument: the GPU kernel
    gives the native launch the .param names and values (wrappers unwrapped)."""
    src = ASTSource(sk.add_kernel, ADD_SIG, {"BLOCK_SIZE": 128})
    k = tilec.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    launches = []

    class Recorder:
        def launch(self, grid, stream, names, values):
            launches.append((grid, stream, names, values))

    k.module = Recorder()
    x, y, out = (np.zeros(4, np.float32) for _ in range(3))
    wrapped = tilec.reinterpret(y, tl.float32)
    k.run(2, 1, 1, 7, k.function, k.metadata, None, None, None, x, wrapped, out, 4, 128)
    (grid, stream, names, values), = launches
    assert grid == (2, 1, 1) and stream == 7
    assert list(names) == sk.add_kernel.arg_names
    assert values[0] is x and values[1] is y and values[2] is out and values[3] == 4


def test_jit_function_has_tritons_attributes():
    f = sk.add_kernel
    assert f.__globals__ is f.fn.__globals__ and f.used_global_vals == {}
    # src starts at `def` (Inductor parses it with ast); raw_src keeps the decorator
    assert f.src.startswith("def add_kernel(") and "@" not in f.src.splitlines()[0]
    assert f.raw_src[0].lstrip().startswith("@") and f._fn_name == "seed_kernels.add_kernel"
    assert f.repr(f) == "add_kernel" and repr(f).startswith("JITFunction(")
    named = tilec.jit(repr=lambda fn: "renamed")(sk.add_kernel.fn)
    assert named.repr(named) == "renamed" and repr(named).startswith("JITFunction(")


@tilec.jit
def _rowmax(x, out, N: tl.constexpr):
    i = tl.arange(0, N)
    v = tl.load(x + i[None, :] + N * tl.arange(0, 2)[:, None])
    m = user_helpers.max2(v, 1)
    tl.store(out + tl.arange(0, 2), user_helpers.inner.twice(m) * user_helpers.SCALE)


def test_kernel_reads_helpers_from_a_users_module():
    x = np.arange(16, dtype=np.float32)
    out = np.zeros(2, dtype=np.float32)
    _rowmax[(1,)](x, out, N=8)
    assert out.tolist() == [7 * 6, 15 * 6]


@tilec.jit
def _missing_attr(out):
    tl.store(out, user_helpers.nothing_here)


@tilec.jit
def _not_for_kernels(out):
    tl.store(out, user_helpers.NOT_FOR_KERNELS)


def test_users_module_errors_name_the_attribute():
    out = np.zeros(1, dtype=np.float32)
    with pytest.raises(tilec.CompilationError, match="module 'user_helpers' has no attribute "
                                                     "'nothing_here'"):
        _missing_attr[(1,)](out)
    with pytest.raises(tilec.CompilationError, match="'user_helpers.NOT_FOR_KERNELS' is a value "
                                                     "of type list"):
        _not_for_kernels[(1,)](out)


def test_runtime_driver_stays_the_driver_config_under_the_switch():
    code = textwrap.dedent("""
        import triton.runtime.driver
        import triton
        from triton.runtime import driver
        print(type(triton.runtime.driver).__name__, type(driver).__name__,
              type(driver.active).__name__)
    """)
    env = dict(os.environ, TILEC_AS_TRITON="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    first, second, active = r.stdout.split()
    assert first == second == "DriverConfig" and active in ("CpuDriver", "CudaDriver")


def test_compile_of_an_ast_source_reuses_the_disk_cache(tmp_path, monkeypatch):
    from tilec import knobs
    from tilec.compiler import gpu

    src = ASTSource(sk.add_kernel, ADD_SIG, {"BLOCK_SIZE": 512})
    target = GPUTarget("cuda", 90, 32)
    with knobs.cache.scope():
        knobs.cache.dir = str(tmp_path)
        first = tilec.compile(src, target=target)
        assert first._stages is None and any(tmp_path.iterdir())  # IR made when read
        generated = []
        real = gpu._generate_ptx
        monkeypatch.setattr(gpu, "_generate_ptx", lambda *a: generated.append(a) or real(*a))
        again = tilec.compile(src, target=target)  # a warm start: from the cache
        assert not generated and again.asm["ptx"] == first.asm["ptx"]
        assert again.asm["ttir"] == first.asm["ttir"]  # the IR, recompiled when read
        moved = _as_inductor_moves_it(tilec.compile(src, target=target))
        moved._init_handles()  # a cached kernel moves as a compiled one does
        assert moved.asm["ptx"] == first.asm["ptx"] and "ttir" not in moved.asm
        tilec.compile(ASTSource(sk.add_kernel, ADD_SIG, {"BLOCK_SIZE": 256}), target=target)
        assert len(generated) == 1  # another specialisation: compiled
