"""triton.knobs: environment-backed knob sets with Triton 3.6's semantics (read the variable
until set, propagate sets to os.environ, knobs.env, scope/reset/copy) and the knobs tilec
honours (cache.dir, runtime.interpret, autotuning.*)."""

import os
import re

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import _C, _interpret, _tunecache, knobs
from tilec.runtime import cache as rcache

_ENV_AT_IMPORT = dict(os.environ)


@pytest.fixture
def clean_env():
    """A monkeypatch inside scopes of the knob sets the tests touch: on exit the monkeypatch
    is undone first, then the scopes put every knob and its variable back as they were
    (sets propagate to os.environ, which the monkeypatch does not know about)."""
    with knobs.autotuning.scope(), knobs.cache.scope(), knobs.runtime.scope(), \
            knobs.redis.scope(), knobs.nvidia.scope(), pytest.MonkeyPatch.context() as mp:
        for k in ("TRITON_PRINT_AUTOTUNING", "TRITON_CACHE_AUTOTUNING", "TRITON_CACHE_DIR",
                  "TRITON_INTERPRET", "TRITON_REDIS_PORT", "TRITON_PTXAS_PATH", "TRITON_HOME"):
            mp.delenv(k, raising=False)
        yield mp


def test_reads_the_environment_until_set(clean_env):
    assert knobs.autotuning.print is False
    for value, expected in (("1", True), ("yes", True), ("ON", True), ("true", True),
                            ("0", False), ("2", False), ("off", False)):
        clean_env.setenv("TRITON_PRINT_AUTOTUNING", value)
        assert knobs.autotuning.print is expected, value
    clean_env.setenv("TRITON_REDIS_PORT", "7000")
    assert knobs.redis.port == 7000
    clean_env.setenv("TRITON_REDIS_PORT", "seven")
    with pytest.raises(RuntimeError, match="TRITON_REDIS_PORT"):
        knobs.redis.port


def test_set_propagates_to_the_environment_and_env_forgets(clean_env):
    knobs.autotuning.cache = True
    assert os.environ["TRITON_CACHE_AUTOTUNING"] == "1"
    clean_env.setenv("TRITON_CACHE_AUTOTUNING", "0")
    assert knobs.autotuning.cache is True  # a value set in Python wins over the variable
    knobs.autotuning.cache = knobs.env
    assert knobs.autotuning.cache is False  # back to the environment
    knobs.redis.port = 1234
    assert os.environ["TRITON_REDIS_PORT"] == "1234"
    del knobs.redis.port
    assert knobs.redis.port == 1234  # the variable written by the set stays


def test_propagate_env_off_keeps_sets_in_python(clean_env):
    clean_env.setattr(knobs, "propagate_env", False)
    knobs.autotuning.print = True
    assert knobs.autotuning.print is True
    assert "TRITON_PRINT_AUTOTUNING" not in os.environ


def test_scope_restores_values_and_variables(clean_env):
    knobs.autotuning.print = False
    with knobs.autotuning.scope():
        knobs.autotuning.print = True
        knobs.autotuning.cache = True
        assert os.environ["TRITON_CACHE_AUTOTUNING"] == "1"
    assert knobs.autotuning.print is False
    assert os.environ["TRITON_PRINT_AUTOTUNING"] == "0"
    assert "TRITON_CACHE_AUTOTUNING" not in os.environ
    assert knobs.autotuning.cache is False


def test_copy_reset_and_descriptors(clean_env):
    knobs.autotuning.print = True
    copy = knobs.autotuning.copy()
    assert type(copy) is knobs.autotuning_knobs and copy.print is True
    clean_env.delenv("TRITON_PRINT_AUTOTUNING")
    assert copy.reset() is copy and copy.print is False
    assert knobs.autotuning.print is True  # the original keeps its value
    d = knobs.autotuning.knob_descriptors
    assert set(d) == {"cache", "print"} and d["print"].key == "TRITON_PRINT_AUTOTUNING"
    assert isinstance(d["cache"], knobs.env_bool)
    assert knobs.autotuning.knobs == {"cache": False, "print": True}
    assert isinstance(knobs.runtime_knobs.interpret, knobs.env_bool)  # class access


def test_fresh_knobs_protocol(clean_env):
    """What Triton's test fixtures do with the module: replace every knob set by a reset
    copy, clear the variables, put the originals back."""
    sets = {n: v for n, v in vars(knobs).items() if isinstance(v, knobs.base_knobs)}
    assert set(sets) == {"build", "redis", "cache", "compilation", "autotuning", "runtime",
                         "language", "nvidia", "amd", "proton"}
    keys = {d.key for s in sets.values() for d in s.knob_descriptors.values()}
    assert {"TRITON_CACHE_DIR", "TRITON_INTERPRET", "TRITON_PTXAS_PATH", "CC"} <= keys
    try:
        for n, s in sets.items():
            setattr(knobs, n, s.copy().reset())
        knobs.cache.dir = "/tmp/tilec-fresh"  # the lambdas of other knobs see the new set
        assert knobs.cache.dir == "/tmp/tilec-fresh"
    finally:
        for n, s in sets.items():
            setattr(knobs, n, s)


def test_hooks_have_tritons_defaults():
    r = knobs.runtime
    assert isinstance(r.launch_enter_hook, knobs.HookChain) and r.launch_enter_hook.calls == []
    assert r.launch_exit_hook.reversed and r.jit_cache_hook is None
    assert r.jit_post_compile_hook is None and r.add_stages_inspection_hook is None
    assert knobs.compilation.listener is None and isinstance(r.debug, bool)
    seen = []
    chain = knobs.HookChain(reversed=True)
    chain.add(lambda m: seen.append(1))
    chain.add(lambda m: seen.append(2))
    chain(None)
    assert seen == [2, 1]


def test_cache_dir_is_tilecs_disk_cache(clean_env, tmp_path):
    assert knobs.cache.dir == _C.gpu_cache_dir()
    clean_env.setenv("TRITON_CACHE_DIR", str(tmp_path / "env"))
    assert knobs.cache.dir == str(tmp_path / "env")
    knobs.cache.dir = str(tmp_path / "set")
    assert _tunecache.cache_dir() == str(tmp_path / "set" / "autotune")
    m = rcache.get_cache_manager("ab" * 16)
    path = m.put(b"bytes", "k.bin")
    assert path.startswith(str(tmp_path / "set")) and open(path, "rb").read() == b"bytes"
    m.put_group("k.json", {"k.bin": path})
    assert m.get_group("k.json") == {"k.bin": path} and m.get_file("nope") is None


def test_runtime_interpret_switches_the_interpreter(clean_env):
    clean_env.delenv("TILEC_INTERPRET", raising=False)
    assert not _interpret.enabled()
    knobs.runtime.interpret = True
    assert _interpret.enabled() and os.environ["TRITON_INTERPRET"] == "1"
    knobs.runtime.interpret = False
    assert not _interpret.enabled()


@pytest.mark.skipif(not _C.gpu_find_ptxas(), reason="needs ptxas")
def test_ptxas_tool(clean_env, tmp_path):
    tool = knobs.nvidia.ptxas
    assert os.path.basename(tool.path) == "ptxas" and re.fullmatch(r"\d+\.\d+", tool.version)
    clean_env.setenv("TRITON_PTXAS_PATH", str(tmp_path / "missing"))
    assert knobs.nvidia.ptxas.path == tool.path  # falls back to the one tilec finds


def test_autotuning_print_knob_prints(clean_env, capsys):
    @tilec.autotune(configs=[tilec.Config({"B": 16}), tilec.Config({"B": 32})], key=["n"])
    @tilec.jit
    def copy(x, y, n, B: tl.constexpr):
        offs = tl.arange(0, B)
        tl.store(y + offs, tl.load(x + offs, mask=offs < n), mask=offs < n)

    knobs.autotuning.print = True
    x = np.arange(16, dtype=np.float32)
    y = np.zeros_like(x)
    copy[(1,)](x, y, 16)
    np.testing.assert_array_equal(x, y)
    assert "B: 16" in capsys.readouterr().out


def test_knob_tests_leave_the_environment_alone():
    """Runs last in this file: no TRITON_* variable the tests above set is left behind."""
    leaked = sorted(k for k in os.environ if k.startswith("TRITON_") and k in (
        "TRITON_PRINT_AUTOTUNING", "TRITON_CACHE_AUTOTUNING", "TRITON_CACHE_DIR",
        "TRITON_INTERPRET", "TRITON_REDIS_PORT") and k not in _ENV_AT_IMPORT)
    assert leaked == []
