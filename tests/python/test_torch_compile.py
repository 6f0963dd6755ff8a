"""torch.compile with `triton` resolving to tilec (TILEC_AS_TRITON=1): Inductor generates
Triton kernels for CPU tensors (`cpu_backend = "triton"`), tilec compiles them for its CPU
back end and runs them on the tile interpreter; the results match eager. Needs torch (CI
has none: skipped there); benchmarks/torch_compile.py runs the GPU side beside Triton."""

import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

SCRIPT = textwrap.dedent("""
    import torch, torch._inductor.config as cfg
    cfg.cpu_backend = "triton"
    cfg.compile_threads = 1
    import triton
    assert triton.__name__ == "tilec", triton.__file__
    from triton import knobs
    compiled = []
    knobs.compilation.listener = lambda **kw: compiled.append(kw["metadata"]["name"])
    torch.manual_seed(0)

    def check(name, f, *args, tol=1e-5):
        torch._dynamo.reset()
        n = len(compiled)
        got = torch.compile(f)(*args)
        want = f(*args)
        assert torch.allclose(got, want, atol=tol, rtol=tol), (name, (got - want).abs().max())
        assert len(compiled) > n, name  # tilec compiled its kernels
        print(name, len(compiled) - n)

    x, y = torch.randn(3000), torch.randn(3000)
    check("pointwise", lambda x, y: torch.nn.functional.gelu(x) * y + torch.sin(x), x, y)
    ln = torch.nn.LayerNorm(300)
    check("layernorm_softmax", lambda x: torch.softmax(ln(x), dim=-1), torch.randn(33, 300))
    check("sum_and_argmax", lambda x: (x.sum(1), x.argmax(1).float())[1],
          torch.randn(17, 900))
    f = torch.compile(lambda a: (a.sin() + 1).sum(-1), dynamic=True)
    for n in (100, 333):  # one kernel for every size
        a = torch.randn(7, n)
        assert torch.allclose(f(a), (a.sin() + 1).sum(-1), atol=1e-4), n
    print("dynamic", 1)

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: triton.language.constexpr):
        offs = triton.language.program_id(0) * BLOCK + triton.language.arange(0, BLOCK)
        m = offs < n
        v = triton.language.load(x_ptr + offs, mask=m) + triton.language.load(y_ptr + offs, mask=m)
        triton.language.store(out_ptr + offs, v, mask=m)

    def user(x, y):  # a user's Triton kernel inside the compiled graph
        out = torch.empty_like(x)
        add_kernel[(triton.cdiv(x.numel(), 256),)](x, y, out, x.numel(), BLOCK=256)
        return out.relu() * 2

    check("user_kernel", user, x, y)
    mlp = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 64))
    with torch.no_grad():
        check("mlp", mlp, torch.randn(16, 64), tol=1e-4)
""")


def test_torch_compile_runs_on_tilec_cpu_backend(tmp_path):
    env = dict(os.environ, TILEC_AS_TRITON="1", TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "ind"),
               TRITON_CACHE_DIR=str(tmp_path / "triton"))
    script = tmp_path / "compiled.py"  # a file: the user's kernel needs its source
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr[-4000:]
    names = [line.split()[0] for line in r.stdout.splitlines()]
    assert names == ["pointwise", "layernorm_softmax", "sum_and_argmax", "dynamic",
                     "user_kernel", "mlp"], r.stdout
