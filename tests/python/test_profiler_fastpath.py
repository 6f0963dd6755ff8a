"""The profiler on the GPU launch path without a GPU (the stand-in device of
test_gpu_fastpath.py): a session keeps launches on the C++ fast path, where they are sampled
(the stand-in's launches timed on the host) under the scopes open at launch; only a kernel
with a `launch_metadata` callback under hook="triton" goes through Python for it."""

import pytest

import tilec
import tilec.language as tl
import tilec.profiler as proton
from tilec import knobs

from test_gpu_fastpath import fake_gpu, make_add, tensors  # noqa: F401 - the fixture
from test_profiler import _frames


def _meta(grid, kernel, args):
    return {"name": f"scale n={args['n']}", "flops32": args["n"], "bytes": 8 * args["n"]}


def make_scale():
    @tilec.jit(launch_metadata=_meta)
    def scale_kernel(x_ptr, n, B: tl.constexpr):
        o = tl.program_id(0) * B + tl.arange(0, B)
        tl.store(x_ptr + o, tl.load(x_ptr + o, mask=o < n) * 2, mask=o < n)

    return scale_kernel


@pytest.mark.parametrize("hook", [None, "triton"])
def test_a_session_keeps_the_fast_path_and_samples_its_launches(fake_gpu, tmp_path, hook):  # noqa: F811
    launches, _ = fake_gpu
    add = make_add()
    x, y, out = tensors()
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)  # compiles; the fast path exists from now
    d = add._gpu_dispatch
    name = str(tmp_path / "fast")
    sid = proton.start(name, hook=hook)
    assert add._gpu_dispatch is d
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    with proton.scope("outer", {"flops32": 10}):
        for _ in range(3):
            add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
        with proton.scope("inner"):
            add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    proton.deactivate(sid)
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)  # paused: not sampled
    proton.activate(sid)
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    proton.finalize(sid)
    assert d.fast_launches == 7 and d.fallbacks == 0 and len(launches) == 8
    f = _frames(name + ".hatchet")
    op = ("add_kernel",) if hook == "triton" else ()  # no launch_metadata: the kernel's name
    top = f[("ROOT",) + op + ("add_kernel",)]
    assert top["count"] == 2 and top["device_type"] == "CUDA" and top["device_id"] == "0"
    assert top["time (ns)"] > 0
    assert f[("ROOT", "outer") + op + ("add_kernel",)]["count"] == 3
    assert f[("ROOT", "outer", "inner") + op + ("add_kernel",)]["count"] == 1
    assert f[("ROOT", "outer")]["flops32"] == 10
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)  # after finalize: nothing sampled, no error
    assert d.fast_launches == 8


def test_launch_metadata_goes_through_python_only_under_the_triton_hook(fake_gpu, tmp_path):  # noqa: F811
    launches, _ = fake_gpu
    scale, add = make_scale(), make_add()
    x, y, out = tensors()
    scale[(4,)](x, 4096, B=1024)
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    plain = str(tmp_path / "plain")
    proton.start(plain)  # no hook: the metadata is not read, the fast path stays
    scale[(4,)](x, 4096, B=1024)
    proton.finalize()
    assert scale._gpu_dispatch.fast_launches == 1
    assert _frames(plain + ".hatchet")[("ROOT", "scale_kernel")]["count"] == 1

    hooked = str(tmp_path / "hooked")
    proton.start(hooked, hook="triton")
    assert "_gpu_dispatch" not in scale.__dict__  # its callback runs in Python
    fast_before = add._gpu_dispatch.fast_launches
    with proton.scope("s"):
        scale[(4,)](x, 4096, B=1024)
        scale[(4,)](x, 2048, B=1024)
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    proton.finalize()
    assert add._gpu_dispatch.fast_launches == fast_before + 1
    f = _frames(hooked + ".hatchet")
    assert f[("ROOT", "s", "scale n=4096")] == {"flops32": 4096, "bytes": 8 * 4096}
    assert f[("ROOT", "s", "scale n=4096", "scale_kernel")]["count"] == 1
    assert f[("ROOT", "s", "scale n=2048", "scale_kernel")]["count"] == 1
    assert f[("ROOT", "s", "add_kernel", "add_kernel")]["count"] == 1
    assert len(launches) == 6


def test_triton_launch_hooks_still_see_every_launch(fake_gpu, tmp_path):  # noqa: F811
    add = make_add()
    x, y, out = tensors()
    add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
    seen = []
    prev = knobs.runtime.launch_enter_hook
    # assigned rather than added (older Triton's way): launches must see it all the same
    knobs.runtime.launch_enter_hook = lambda md: seen.append(md.get()["name"])
    try:
        name = str(tmp_path / "hooks")
        proton.start(name)
        add[(4,)](x, y, out, 4096, BLOCK_SIZE=1024)
        proton.finalize()
    finally:
        knobs.runtime.launch_enter_hook = prev
    assert seen == ["add_kernel"]
    assert _frames(name + ".hatchet")[("ROOT", "add_kernel")]["count"] == 1
