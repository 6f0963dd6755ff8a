"""Triton 3.6's module surface beyond the language: triton.compile(ASTSource(...)) to PTX with
no GPU, the compiler / backends / runtime modules libraries import, the errors' classes,
argument specialisation, _utils and the version."""

import os
import sys

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import _C, _utils, backends
from tilec.backends.compiler import BaseBackend, GPUTarget
from tilec.compiler import ASTSource, CompiledKernel, compile as triton_compile, make_backend
from tilec.compiler import errors as cerrors
from tilec.runtime import _allocation, errors as rerrors
from tilec.runtime import jit as rjit

import seed_kernels as sk

H100 = GPUTarget("cuda", 90, 32)
DIV16 = [["tt.divisibility", 16]]
ADD_SIG = {"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32",
           "BLOCK_SIZE": "constexpr"}


def test_version():
    assert tilec.__version__ == "3.6.0"
    assert tilec.__tilec_version__ == _C.__version__ != tilec.__version__


def test_compile_ast_source_to_ptx_without_a_gpu():
    src = ASTSource(sk.add_kernel, ADD_SIG, constexprs={"BLOCK_SIZE": 1024},
                    attrs={(i,): DIV16 for i in range(3)})
    k = tilec.compile(src, target=H100, options={"num_warps": 8, "num_stages": 2,
                                                 "unknown_option": 1})
    assert isinstance(k, CompiledKernel)
    ptx = k.asm["ptx"]
    assert ".entry add_kernel" in ptx and ".target sm_90a" in ptx and ".reqntid 256" in ptx
    m = k.metadata
    assert (m.name, m.num_warps, m.num_stages, m.shared) == ("add_kernel", 8, 2, 0)
    assert m.target == H100 and m.num_ctas == 1 and m.triton_version == "3.6.0"
    assert k.src is src and m.hash == k.hash and len(k.hash) == 64
    # the same PTX as tilec's own form of the call, hints included
    same = tilec.compile(sk.add_kernel, signature="*fp32:16,*fp32:16,*fp32:16,i32",
                         constexprs={"BLOCK_SIZE": 1024}, num_warps=8, num_stages=2)
    assert same.asm["ptx"] == ptx


def test_ast_source_signature_forms():
    from tilec.compiler.compiler import aot_signature

    # constexprs keyed by path; an int argument equal to 1 is a constexpr; const pointers
    src = ASTSource(sk.add_kernel, {**ADD_SIG, "x_ptr": "*kfp32", "n_elements": "constexpr"},
                    constexprs={(3,): 1, (4,): tl.constexpr(128)}, attrs={(1,): DIV16})
    assert aot_signature(src) == ("*fp32,*fp32:16,*fp32", {"n_elements": 1, "BLOCK_SIZE": 128})
    k = triton_compile(src, GPUTarget("cuda", 80, 32))
    assert ".target sm_80" in k.asm["ptx"]
    with pytest.raises(ValueError, match="no entry for parameter 'n_elements'"):
        aot_signature(ASTSource(sk.add_kernel, {k: v for k, v in ADD_SIG.items()
                                                 if k != "n_elements"}, {"BLOCK_SIZE": 4}))
    with pytest.raises(NotImplementedError, match="tuple"):
        aot_signature(ASTSource(sk.add_kernel, ADD_SIG, {(4, 0): 1}))
    with pytest.raises(TypeError, match="parameter names"):
        ASTSource(sk.add_kernel, {0: "*fp32"})
    assert src.hash() != ASTSource(sk.add_kernel, ADD_SIG, {"BLOCK_SIZE": 64}).hash()


def test_compilation_listener_is_called():
    from tilec import knobs

    seen = []
    with knobs.compilation.scope():
        knobs.compilation.listener = lambda **kw: seen.append(kw)
        tilec.compile(ASTSource(sk.add_kernel, ADD_SIG, {"BLOCK_SIZE": 64}), target=H100)
    assert len(seen) == 1 and seen[0]["cache_hit"] is False
    assert seen[0]["metadata"]["name"] == "add_kernel" and seen[0]["times"].total >= 0
    assert knobs.compilation.listener is None


def test_compile_errors_and_targets():
    with pytest.raises(NotImplementedError, match="IR file"):
        tilec.compile("kernel.ttir")
    with pytest.raises(RuntimeError, match="compatible backends"):
        tilec.compile(ASTSource(sk.add_kernel, ADD_SIG, {"BLOCK_SIZE": 64}),
                      target=GPUTarget("hip", "gfx942", 64))
    with pytest.raises(ValueError, match="unknown dtype .fp33."):
        tilec.compile(ASTSource(sk.add_kernel, {**ADD_SIG, "x_ptr": "*fp33"},
                                {"BLOCK_SIZE": 64}), target=H100)


def test_backends_and_options():
    b = backends.backends["nvidia"]
    assert b.compiler.__name__ == "CUDABackend" and b.driver.__name__ == "CudaDriver"
    be = make_backend(H100)
    opts = be.parse_options({"num_warps": 8, "bogus": 1, "maxnreg": None})
    assert opts.num_warps == 8 and opts.arch == "sm90" and opts.maxnreg is None
    assert "fp8e4nv" in opts.supported_fp8_dtypes and be.get_target_name(opts) == "cuda:90"
    assert be.pack_metadata(type("M", (), {"num_warps": 4, "num_ctas": 1, "shared": 0})) == \
        (4, 1, 0)
    with pytest.raises(ValueError, match="power of 2"):
        be.parse_options({"num_warps": 3})
    assert be.parse_options({"num_ctas": 2}).num_ctas == 2  # clusters on sm90
    with pytest.raises(ValueError, match=r"num_ctas > 1 requires NVIDIA SM90\+"):
        be.parse_options({"num_ctas": 2, "arch": "sm80"})
    assert BaseBackend.parse_attr("D") == DIV16 and BaseBackend.parse_attr("") == []
    assert tilec.runtime.driver.active.utils.get_device_properties(0)["warpSize"] == 32


def test_error_classes_are_tritons():
    assert cerrors.CompilationError is tilec.CompilationError
    assert issubclass(tilec.TilecError, tilec.TritonError)
    for cls in (cerrors.CompileTimeAssertionFailure, cerrors.UnsupportedLanguageConstruct):
        assert issubclass(cls, tilec.CompilationError)
    for cls in (rerrors.InterpreterError, rerrors.PTXASError, rerrors.OutOfResources,
                rerrors.AutotunerError, tilec.KernelError):
        assert issubclass(cls, tilec.TritonError)
    assert str(rerrors.PTXASError("bad")) == "PTXAS error: bad"
    from tilec.runtime.autotuner import OutOfResources, PTXASError  # noqa: F401
    # the names Triton 3.6 exports from those modules too
    assert cerrors.TritonError is tilec.TritonError
    from tilec.runtime.autotuner import AutotunerError
    assert AutotunerError is rerrors.AutotunerError


@tilec.jit
def _static_assert(X, N: tl.constexpr):
    tl.static_assert(N > 4, "N too small")
    tl.store(X, N)


def test_static_assert_failure_is_a_compile_time_assertion_failure():
    with pytest.raises(cerrors.CompileTimeAssertionFailure, match="N too small"):
        _static_assert[(1,)](np.zeros(1, np.int32), N=2)


def test_native_specialize_impl():
    spec = rjit.native_specialize_impl
    assert spec(BaseBackend, 1) == ("constexpr", 1)
    assert spec(BaseBackend, 1, specialize_value=False) == ("i32", None)
    assert spec(BaseBackend, 32) == ("i32", "D") and spec(BaseBackend, 33) == ("i32", "")
    assert spec(BaseBackend, 32, align=False) == ("i32", "")
    assert spec(BaseBackend, 1 << 40) == ("i64", "D") and spec(BaseBackend, 1 << 63)[0] == "u64"
    with pytest.raises(OverflowError):
        spec(BaseBackend, 1 << 64)
    assert spec(BaseBackend, True) == ("u1", None) and spec(BaseBackend, 2.0) == ("fp32", None)
    assert spec(BaseBackend, None) == ("constexpr", None)
    c = tl.constexpr(3)
    assert spec(BaseBackend, c) == ("constexpr", c)
    assert spec(BaseBackend, (1, 2.0)) == (("constexpr", "fp32"), (1, None))
    x = np.zeros(64, np.float16)
    assert spec(BaseBackend, x[1:], is_const=True) == ("*kfp16", "")
    assert rjit.mangle_type(x) == "*fp16" and rjit.mangle_type(7) == "i32"
    assert spec(BaseBackend, sk.add_kernel)[0] == "constexpr"


def test_kernel_params_and_file_line():
    p = sk.add_kernel.params
    assert [q.num for q in p] == list(range(5)) and p[4].is_constexpr
    assert p[4].annotation == "constexpr" and p[0].annotation == "" and not p[0].is_const
    assert not p[3].do_not_specialize and not p[3].do_not_specialize_on_alignment

    @tilec.jit(do_not_specialize=["n"], do_not_specialize_on_alignment=[0])
    def typed(x: "*kfp16", n: tl.int64, y: tl.pointer_type(tl.float32)):
        pass

    q = typed.params
    assert q[0].annotation == "*kfp16" and q[0].is_const and q[0].do_not_specialize_on_alignment
    assert q[1].annotation == "i64" and q[1].do_not_specialize and q[2].annotation == "*fp32"
    file, line = rjit.get_jit_fn_file_line(typed)
    assert file == os.path.abspath(__file__)
    assert open(file).read().splitlines()[line - 1].lstrip().startswith("def typed(")
    assert len(sk.add_kernel.cache_key) == 64


def test_utils_paths():
    data = [1, (2, [3, "a"]), ((), 4)]
    assert _utils.find_paths_if(data, lambda p, v: isinstance(v, int)) == \
        [(0,), (1, 0), (1, 1, 0), (2, 1)]
    assert _utils.find_paths_if(data, lambda p, v: p[0] == 1) == [(1, 0), (1, 1, 0), (1, 1, 1)]
    assert _utils.find_paths_if(5, lambda p, v: True) == [()]
    assert _utils.get_iterable_path(data, (1, 1, 1)) == "a"
    assert _utils.get_iterable_path(data, ()) is data
    assert _utils.canonicalize_ptr_dtype(tl.float16, True) == "*kfp16"
    assert _utils.type_canonicalisation_dict["float8_e4m3fn"] == "fp8e4nv"
    assert _utils.get_primitive_bitwidth("bf16") == 16 and _utils.get_primitive_bitwidth("u1") == 1
    assert rjit.type_canonicalisation_dict is _utils.type_canonicalisation_dict


def test_language_helpers():
    assert tl.str_to_ty("*kfp16", None) == tl.pointer_type(tl.float16, const=True)
    assert tl.str_to_ty("*kfp16", None) != tl.pointer_type(tl.float16)
    assert tl.str_to_ty("u1", None) == tl.int1 and tl.str_to_ty("u32", None) == tl.uint32
    assert tl.core.view is tl.view and tl.core.get_int_dtype(16, False) == tl.uint16
    assert tl.core._unwrap_if_constexpr([tl.constexpr(1), (tl.constexpr(2),)]) == [1, (2,)]
    assert tl.float8e4b15.is_fp8() and "fp16" in tl.dtype.STANDARD_FP_TYPES
    # Triton 3.6's tl.__all__ names these too (test_lang_target_info runs them in kernels)
    assert {"target_info", "condition", "TRITON_MAX_TENSOR_NUMEL"} <= set(tl.__all__)
    assert tl.target_info.__all__ == ["current_target"] and tl.TRITON_MAX_TENSOR_NUMEL == 2 ** 20
    assert [d.exponent_bias for d in (tl.float8e4nv, tl.float8e5, tl.float8e4b15, tl.bfloat16,
                                      tl.float64)] == [7, 15, 15, 127, 1023]
    assert tl.float8e4b15.ir_type == "fp8e4b15"  # converted in software (FloatFormats.h)
    with pytest.raises(TypeError, match="type fp8e4b8 not supported in this architecture"):
        tl.float8e4b8.ir_type


def test_allocator():
    assert isinstance(_allocation.get_allocator(), _allocation.NullAllocator)
    with pytest.raises(RuntimeError, match="set_allocator"):
        _allocation.NullAllocator()(16, 16, None)
    tilec.set_allocator(lambda size, align, stream: None)
    assert not isinstance(_allocation.get_allocator(), _allocation.NullAllocator)
    tilec.set_allocator(None)
    assert isinstance(_allocation.get_allocator(), _allocation.NullAllocator)


@pytest.mark.skipif(tilec.runtime.driver.active.backend == "cuda", reason="has a GPU")
def test_peak_number_helpers_need_a_gpu():
    for call in (lambda: tilec.testing.get_dram_gbps(),
                 lambda: tilec.testing.get_max_tensorcore_tflops(tl.float16, 1_500_000),
                 lambda: tilec.testing.get_max_simd_tflops(tl.float32, 1_500_000)):
        with pytest.raises(RuntimeError, match="NVIDIA GPU"):
            call()


def test_triton_names_under_the_switch():
    """The modules torch's Inductor and Triton's test helpers import, in a fresh process
    with the drop-in switch."""
    import subprocess

    code = ("import triton, triton.knobs, triton.compiler.compiler, triton.runtime.cache\n"
            "from triton.compiler.compiler import ASTSource, make_backend, LazyDict\n"
            "from triton.runtime.jit import TensorWrapper, reinterpret, MockTensor, "
            "type_canonicalisation_dict, get_jit_fn_file_line, native_specialize_impl\n"
            "from triton.runtime.autotuner import OutOfResources, PTXASError\n"
            "from triton.runtime.errors import InterpreterError\n"
            "from triton.runtime.interpreter import InterpretedFunction\n"
            "from triton.runtime._allocation import NullAllocator\n"
            "from triton.backends import BaseBackend, backends\n"
            "from triton.backends.compiler import GPUTarget, Language\n"
            "from triton.testing import get_dram_gbps, nvsmi, get_max_simd_tflops\n"
            "from triton._utils import find_paths_if, get_iterable_path\n"
            "from triton import knobs, TritonError\n"
            "import triton.language as tl; tl.core.view; tl.str_to_ty\n"
            "print(triton.__version__, 'torch' in __import__('sys').modules)\n")
    env = dict(os.environ, TILEC_AS_TRITON="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["3.6.0", "False"]  # none of it imports torch


def test_mxfp_tensors_round_trip_and_pack():
    torch = pytest.importorskip("torch")
    from tilec.tools.mxfp import MXFP4Tensor, MXScaleTensor

    # ties go to the even mantissa; beyond 6 and Inf/NaN clamp; -0.0 keeps its sign
    x = torch.tensor([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 7.0, float("inf"), float("nan"),
                      -0.0, -1.4, 0.3])
    got = MXFP4Tensor(x).to(torch.float32)
    want = torch.tensor([0.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 6.0, 6.0, 6.0, -0.0, -1.5, 0.5])
    assert torch.equal(got, want) and torch.signbit(got[10])
    t = MXFP4Tensor(size=(5, 3)).random()
    for dim in (0, 1):
        packed = t.to_packed_tensor(dim)
        assert packed.shape[dim] == (t.data.shape[dim] + 1) // 2
        assert torch.equal(t.unpack_packed_tensor(packed, dim, t.data.shape), t.data)
    s = MXScaleTensor(torch.tensor([1.0, 3.0, 0.5, 0.0, -2.0, float("nan")]))
    assert s.data.tolist() == [127, 128, 126, 255, 255, 255]
    v = s.to(torch.float32)
    assert v[:3].tolist() == [1.0, 2.0, 0.5] and torch.isnan(v[3:]).all()
    r = MXScaleTensor(size=(100,)).random(low=1.0, high=8.0)
    assert int(r.data.min()) >= 127 and int(r.data.max()) <= 130


@tilec.jit
def _full_of(out, dtype: tl.constexpr):
    tl.store(out + tl.arange(0, 16), tl.full((16,), 0.0, dtype))


def test_compile_takes_dtype_constexprs():
    # a dtype constexpr (test_fp8_support / test_min_dot_size pass them this way), and a
    # float zero for an integer full(), which Triton takes as the type's null value
    for dt, ptx_type in ((tl.float16, "b16"), (tl.int8, "b8"), (tl.float8e5, "b8")):
        src = ASTSource(_full_of, {"out": "*" + str(dt), "dtype": "constexpr"},
                        {"dtype": dt})
        k = tilec.compile(src, target=H100)
        assert ".entry _full_of" in k.asm["ptx"] and ptx_type in k.asm["ptx"], dt
    # Triton's fp8 types of other GPUs: a CompilationError with Triton's phrase in its cause
    with pytest.raises(tilec.CompilationError) as e:
        tilec.compile(ASTSource(_full_of, {"out": "*fp16", "dtype": "constexpr"},
                                {"dtype": tl.float8e4b8}), target=H100)
    assert "type fp8e4b8 not supported in this architecture" in str(e.value.__cause__)


def _name_by_type(specialization):
    ty = specialization.signature["value"]
    ones = "_".join(k for k, v in specialization.constants.items() if v == 1)
    return f"kernel {ty}-{ones}"  # not an identifier: made one


@tilec.jit(repr=_name_by_type)
def _named(value, is_one, X):
    tl.store(X, value)


def test_jit_repr_names_each_specialisation():
    x = np.zeros(1, np.int64)
    for value, ty in ((-1, "i32"), (1 << 31, "i64"), (1 << 63, "u64")):
        k = _named.warmup(value, 1, x, grid=(1,))
        assert k.name == k.metadata.name == f"kernel_{ty}_is_one", k.name
    _named[(1,)](7, 1, x)
    assert x[0] == 7
    ptx = tilec.compile(_named, "i32,i32,*i64").asm["ptx"]  # the AOT form keeps the def's
    assert ".entry _named(" in ptx
