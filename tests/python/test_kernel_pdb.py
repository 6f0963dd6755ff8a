"""pdb inside kernels (tilec/_debugger.py): breakpoint() / pdb.set_trace() stop the tile
interpreter in pdb, driven here through stdin as a user would type."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.backends.compiler import GPUTarget
from tilec.compiler import ASTSource

KERNELS = textwrap.dedent('''
    import pdb
    import numpy as np
    import tilec
    import tilec.language as tl

    @tilec.jit
    def twice(v):
        w = v * 2
        return w + 0

    @tilec.jit
    def scale(X, Y, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offsets = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        if pid == 1:
            breakpoint()
        v = tl.load(X + offsets, mask=mask)
        v = twice(v)
        tl.store(Y + offsets, v, mask=mask)

    @tilec.jit
    def every_program(X, BLOCK: tl.constexpr):
        import pdb
        pid = tl.program_id(0)
        pdb.set_trace()
        tl.store(X + pid, pid)

    @tilec.jit
    def loop(X, N: tl.constexpr):
        acc = 0
        for i in range(N):
            acc += i
        pdb.set_trace()
        tl.store(X, acc)
''')


def _session(tmp_path, body, commands):
    """Runs KERNELS + body in a fresh interpreter with `commands` on stdin."""
    script = tmp_path / "kernels.py"
    script.write_text(KERNELS + textwrap.dedent(body))
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("TILEC_AS_TRITON", None)
    r = subprocess.run([sys.executable, str(script)], input="\n".join(commands) + "\n",
                       capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    return r.stdout + r.stderr, r.returncode


SCALE = '''
    x = np.arange(20, dtype=np.float32)
    y = np.zeros(20, np.float32)
    scale[(3,)](x, y, 12, BLOCK=8)
    print("y =", y.tolist())
'''


def test_breakpoint_shows_variables_and_steps(tmp_path):
    out, rc = _session(tmp_path, SCALE, [
        "p int(pid)", "p offsets", "p mask", "p BLOCK", "p sorted(locals())",
        "n", "n", "p v",  # over the load, stopped before twice(v)
        "s", "p v", "w", "n", "p w",  # into twice: its own frame
        "u", "p offsets", "d",  # the caller's frame, and back
        "c"])
    assert rc == 0, out
    assert "[tilec] breakpoint() in program (1, 0, 0) of grid (3, 1, 1)" in out
    assert "\n(Pdb) 1\n" in out  # p pid
    assert "[ 8,  9, 10, 11, 12, 13, 14, 15]" in out  # p offsets
    assert "[ True,  True,  True,  True, False, False, False, False]" in out  # n = 12
    assert "(Pdb) 8\n" in out  # the constexpr BLOCK
    assert "['BLOCK', 'X', 'Y', 'mask', 'n', 'offsets', 'pid']" in out
    assert "[ 8.,  9., 10., 11.,  0.,  0.,  0.,  0.]" in out  # v after the masked load
    assert "twice()" in out and "-> w = v * 2" in out  # stepped into the callee
    assert "[16., 18., 20., 22.,  0.,  0.,  0.,  0.]" in out  # w = v * 2
    assert "scale()" in out  # `w` lists both frames
    # only program 1 stopped; the kernel ran to the end for every program
    assert out.count("[tilec] breakpoint()") == 1 and "program (0, 0, 0)" not in out
    assert "y = " + str([2.0 * i for i in range(12)] + [0.0] * 8) in out


def test_set_trace_stops_every_program_and_quit_ends_the_launch(tmp_path):
    body = '''
    x = np.zeros(4, np.int32)
    try:
        every_program[(4,)](x, BLOCK=1)
    except BaseException as e:
        print("raised", type(e).__name__)
    print("x =", x.tolist())
    '''
    out, rc = _session(tmp_path, body, ["p pid", "c", "p pid", "c", "q"])
    assert rc == 0, out
    for p in range(3):
        assert f"[tilec] breakpoint() in program ({p}, 0, 0)" in out
    assert "program (3, 0, 0)" not in out
    assert "raised BdbQuit" in out
    assert "x = [0, 1, 0, 0]" in out  # programs 0 and 1 stored; 2 quit before its store


def test_loop_values_and_listing(tmp_path):
    body = '''
    x = np.zeros(1, np.int32)
    loop[(1,)](x, N=5)
    print("x =", x.tolist())
    '''
    out, rc = _session(tmp_path, body, ["p int(acc)", "ll", "p N", "c"])
    assert rc == 0, out
    assert "(Pdb) 10\n" in out  # acc after the loop
    assert "def loop(X, N: tl.constexpr):" in out and "->" in out  # ll lists the kernel
    assert "(Pdb) 5\n" in out
    assert "x = [10]" in out


def test_breakpoint_on_the_gpu_path_is_refused_with_a_pointer_to_the_interpreter():
    @tilec.jit
    def k(X):
        breakpoint()
        tl.store(X, 1)

    src = ASTSource(k, {"X": "*i32"})
    with pytest.raises(tilec.CompilationError, match="TILEC_INTERPRET=1") as e:
        tilec.compile(src, target=GPUTarget("cuda", 90, 32)).asm["ptx"]
    assert "line 3" in str(e.value) or ":3:" in str(e.value) or "breakpoint()" in str(e.value)


def test_kernels_without_breakpoint_have_no_stops():
    @tilec.jit
    def plain(X):
        tl.store(X, tl.load(X) + 1)

    x = np.zeros(1, np.int32)
    k = plain[(1,)](x)
    assert not k._native.has_breakpoints
    assert "breakpoint" not in k.asm["ttir"]
    assert x[0] == 1


def test_stops_in_ir_name_the_variables():
    @tilec.jit
    def k(X, B: tl.constexpr):
        o = tl.arange(0, B)
        if False:
            breakpoint()
        breakpoint()
        tl.store(X + o, o)

    x = np.zeros(4, np.int32)
    ir = k.warmup(x, B=4, grid=(1,)).asm["ttir"]
    assert ir.count("tt.breakpoint") >= 4 or ir.count("breakpoint") >= 4, ir
    assert "\\tB=4" in ir and "X,o" in ir


def test_set_interpret_mode_switches_later_launches(monkeypatch):
    from tilec import _interpret
    from tilec.runtime import driver

    # the knob writes TRITON_INTERPRET, as Triton's does: monkeypatch puts it back after
    monkeypatch.setenv("TILEC_INTERPRET", "")
    monkeypatch.setenv("TRITON_INTERPRET", "")
    try:
        driver.active.set_interpret_mode(True)
        assert _interpret.enabled()
        driver.active.set_interpret_mode(False)
        assert not _interpret.enabled()
    finally:
        del tilec.knobs.runtime.interpret
