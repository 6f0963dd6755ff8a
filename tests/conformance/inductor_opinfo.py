"""A sample of PyTorch's own Inductor tests for the drop-in switch: PyTorch's OpInfo method
(test/inductor/test_torchinductor_opinfo.py compiles every operator of torch's op database
with torch.compile and compares it with eager). The database and its sample inputs ship
with torch (torch.testing._internal.common_methods_invocations.op_db); nothing of
PyTorch's test tree is copied here.

One test per (operator variant, dtype): its first sample inputs (INDUCTOR_OPINFO_SAMPLES,
default 3) through torch.compile(backend="inductor"), compared with eager within the
dtype's tolerance. A test whose graphs Inductor lowered without a single Triton kernel
(an aten fallback) is skipped as "no Triton kernel", so the counts are of tests that
exercised the compiler. Run it once with `triton` resolving to tilec (TILEC_AS_TRITON=1)
and once with the real Triton, on the same machine; the conformance plugin writes each
test's outcome, tests/conformance/summarize.py compares the two (docs/CONFORMANCE.md):

  TILEC_AS_TRITON=1 CONFORMANCE_OUT=/tmp/io/tilec python -m pytest \\
      tests/conformance/inductor_opinfo.py -p conformance_plugin -n 16 -q
  CONFORMANCE_OUT=/tmp/io/triton python -m pytest tests/conformance/inductor_opinfo.py \\
      -p conformance_plugin -n 16 -q
  python tests/conformance/summarize.py --tilec /tmp/io/tilec --triton /tmp/io/triton

INDUCTOR_OPINFO_DEVICE: cuda (default when a GPU is present) or cpu (Inductor's
cpu_backend="triton": tilec's interpreter; slow, for a local check).
INDUCTOR_OPINFO_DTYPES: default "float32,float16"."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")

from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

DEVICE = os.environ.get("INDUCTOR_OPINFO_DEVICE") or (
    "cuda" if torch.cuda.is_available() else "cpu")
DTYPES = [getattr(torch, d) for d in
          os.environ.get("INDUCTOR_OPINFO_DTYPES", "float32,float16").split(",")]
SAMPLES = int(os.environ.get("INDUCTOR_OPINFO_SAMPLES", "3"))
# Operators whose results are uninitialised memory: nothing to compare (PyTorch's own
# OpInfo tests skip them likewise).
UNCOMPARABLE = ("empty", "empty_like", "empty_strided", "empty_permuted", "new_empty",
                "new_empty_strided")
TOLERANCE = {torch.float32: (1e-4, 1e-4), torch.float16: (1e-2, 1e-2),
             torch.bfloat16: (2e-2, 2e-2), torch.float64: (1e-7, 1e-7)}


def _cases():
    for op in op_db:
        name = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
        for dt in DTYPES:
            yield pytest.param(op, dt, id=f"{name}-{str(dt)[6:]}")


def _tensors_to_args(sample):
    """(tensors, rebuild) for a sample: the compiled function takes the sample's tensors
    as arguments (so they are graph inputs, not constants) and rebuilds the call."""
    import torch.utils._pytree as pytree

    flat, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    idx = [i for i, x in enumerate(flat) if isinstance(x, torch.Tensor)]

    def rebuild(*ts):
        vals = list(flat)
        for i, t in zip(idx, ts):
            vals[i] = t
        return pytree.tree_unflatten(vals, spec)

    return [flat[i] for i in idx], rebuild


@pytest.fixture(autouse=True, scope="module")
def _inductor_config():
    import torch._inductor.config as cfg

    saved = (cfg.force_disable_caches, cfg.cpu_backend, cfg.compile_threads,
             cfg.fallback_random)
    cfg.force_disable_caches = True  # every test compiles its kernels
    cfg.fallback_random = True  # random ops draw from eager's generator: comparable
    if DEVICE == "cpu":
        cfg.cpu_backend, cfg.compile_threads = "triton", 1
    yield
    (cfg.force_disable_caches, cfg.cpu_backend, cfg.compile_threads,
     cfg.fallback_random) = saved


@pytest.mark.parametrize("op,dtype", list(_cases()))
def test_inductor_opinfo(op, dtype):
    import torch._dynamo
    from torch._inductor import metrics

    if op.name in UNCOMPARABLE:
        pytest.skip("the result is uninitialised memory")
    if dtype not in op.supported_dtypes(DEVICE):
        pytest.skip(f"{dtype} not supported by {op.name} on {DEVICE}")
    try:
        samples = list(op.sample_inputs(DEVICE, dtype, requires_grad=False))[:SAMPLES]
    except Exception as e:  # the database's own generator fails on this device
        pytest.skip(f"no sample inputs: {type(e).__name__}")
    atol, rtol = TOLERANCE.get(dtype, (1e-4, 1e-4))
    kernels = compared = 0
    for sample in samples:
        tensors, rebuild = _tensors_to_args(sample)

        def call(*ts):
            inp, args, kwargs = rebuild(*ts)
            return op.op(inp, *args, **kwargs)

        try:
            torch.manual_seed(0)
            want = call(*tensors)
        except Exception:
            continue  # eager refuses this sample: nothing to compare
        torch._dynamo.reset()
        metrics.reset()
        torch.manual_seed(0)
        got = torch.compile(call, backend="inductor", dynamic=False)(*tensors)
        kernels += metrics.generated_kernel_count
        torch.testing.assert_close(got, want, atol=atol, rtol=rtol, equal_nan=True,
                                   check_dtype=True, check_device=True, check_stride=False)
        compared += 1
    if not compared:
        pytest.skip("eager accepts none of the sample inputs")
    if not kernels:
        pytest.skip("no Triton kernel")
