"""Triton's JIT cache surface on tilec: `JITFunction.device_caches`, the compile hooks
`knobs.runtime.jit_cache_hook` / `jit_post_compile_hook` (with Triton's keyword arguments)
and `JITFunction.preload(specialization_data)`, as libraries (torch's symmetric-memory
hook, torch.export's kernel lookup) use them. CPU launches here; one GPU test."""

import json

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec import _C, _sources, knobs

from gpu_util import HAVE_GPU, torch


@tilec.jit
def fill(x, t, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(x + i, i * BLOCK + t[0] + t[1][0])


@pytest.fixture
def hooks(monkeypatch):
    """Sets both compile hooks; returns the list of (which, kwargs) calls."""
    calls = []
    monkeypatch.setattr(knobs.runtime, "jit_cache_hook",
                        lambda **kw: calls.append(("cache", kw)))
    monkeypatch.setattr(knobs.runtime, "jit_post_compile_hook",
                        lambda **kw: calls.append(("post", kw)))
    fill.device_caches["cpu"][0].clear()
    return calls


def test_compile_hooks_get_tritons_arguments_and_find_the_kernel(hooks):
    x = np.zeros(8, np.float32)
    k = fill[(1,)](x, (1, (tl.constexpr(2),)), BLOCK=8)
    assert x.tolist() == [3 + 8 * i for i in range(8)]
    assert [c for c, _ in hooks] == ["cache", "post"]
    kw = hooks[1][1]
    assert set(kw) == {"key", "repr", "fn", "compile", "is_manual_warmup", "already_compiled"}
    assert kw["fn"].jit_function is fill and kw["fn"].name == "fill"
    assert kw["repr"].startswith("fill[num_warps=4, num_ctas=1, num_stages=3")
    c = kw["compile"]
    assert c["device"] == "cpu" and c["num_warps"] == 4 and c["is_warmup"] is False
    # what a hook reads back: the kernel under the key it was given
    assert fill.device_caches[c["device"]][0].get(kw["key"]) is k
    # Triton's view: the int 1 and constexprs are constants, the aligned pointer 16-divisible
    assert c["signature"] == {"x": "*fp32", "t": ("constexpr", ("constexpr",)),
                              "BLOCK": "constexpr"}
    assert c["constants"] == {(1, 0): 1, (1, 1, 0): 2, (2,): 8}
    assert c["configs"] == [{(0,): [["tt.divisibility", 16]]}]
    data = json.loads(c["specialization_data"])
    assert data["name"].endswith(".fill") and data["constant_vals"] == [1, 2, 8]
    # a cached launch compiles nothing, so calls no hook
    fill[(1,)](x, (1, (tl.constexpr(2),)), BLOCK=8)
    assert len(hooks) == 2


def test_cache_hook_that_returns_true_skips_the_compile(monkeypatch):
    monkeypatch.setattr(knobs.runtime, "jit_cache_hook", lambda **kw: True)
    fill.device_caches["cpu"][0].clear()
    x = np.zeros(8, np.float32)
    assert fill[(1,)](x, (1, (tl.constexpr(2),)), BLOCK=8) is None
    assert x.tolist() == [0.0] * 8 and len(fill.device_caches["cpu"][0]) == 0


def test_preload_compiles_what_the_hook_saw(hooks):
    x = np.zeros(4, np.float32)
    w = fill.warmup(x, (1, (tl.constexpr(2),)), BLOCK=4, grid=(1,))
    data = hooks[0][1]["compile"]["specialization_data"]
    assert hooks[0][1]["is_manual_warmup"] is True
    fill.device_caches["cpu"][0].clear()
    p = fill.preload(data)
    assert p is not None and p.hash == w.hash and p is not w
    del hooks[:]
    k = fill[(1,)](x, (1, (tl.constexpr(2),)), BLOCK=4)  # the preloaded kernel
    assert k is p and hooks == [] and x.tolist() == [3.0, 7.0, 11.0, 15.0]


def test_preload_refuses_data_of_another_function(hooks):
    fill.warmup(np.zeros(4, np.float32), (1, (tl.constexpr(2),)), BLOCK=4, grid=(1,))
    data = json.loads(hooks[0][1]["compile"]["specialization_data"])
    data["name"] = "elsewhere.other"
    with pytest.raises(RuntimeError, match="Specialization data is for elsewhere.other"):
        fill.preload(json.dumps(data))


@tilec.jit
def apply(x, F: tl.constexpr):
    tl.store(x, F(1.0))


@tilec.jit
def twice(v):
    return v * 2


def test_preload_of_a_jit_function_constexpr_says_why_not(hooks):
    apply.warmup(np.zeros(1, np.float32), twice, grid=(1,))
    data = hooks[0][1]["compile"]["specialization_data"]
    with pytest.raises(ValueError, match="cannot be preloaded"):
        apply.preload(data)


def test_clearing_the_device_cache_recompiles(hooks):
    x = np.zeros(8, np.float32)
    fill[(1,)](x, (1, (tl.constexpr(2),)), BLOCK=8)
    cache = fill.device_caches["cpu"][0]
    assert len(cache) == 1 and list(fill.device_caches) == ["cpu"]
    cache.clear()
    fill[(1,)](x, (1, (tl.constexpr(2),)), BLOCK=8)
    assert [c for c, _ in hooks] == ["cache", "post", "cache", "post"]


def test_device_caches_list_the_device_without_hooks():
    """torch.export finds a user kernel's compiled kernel as the only entry of the only
    device in device_caches: no compile hook needs to be set for that."""
    @tilec.jit
    def store_one(x):
        tl.store(x, 1)

    x = np.zeros(1, np.int32)
    k = store_one[(1,)](x)
    (device, (cache, *_)), = store_one.device_caches.items()
    assert device == "cpu" and list(cache.values()) == [k]


def test_jit_function_info_is_tritons_name():
    from tilec.runtime.jit import JitFunctionInfo
    assert JitFunctionInfo.__module__ == "tilec._jit_cache"


@tilec.jit
def add_one(x, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(x + i, tl.load(x + i, mask=i < n) + 1, mask=i < n)


@pytest.mark.gpu
@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA GPU and torch")
def test_gpu_compile_hooks_and_device_caches(hooks):
    x = torch.zeros(64, device="cuda")
    dev = torch.cuda.current_device()
    add_one.device_caches[dev][0].clear()
    k = add_one[(1,)](x, 64, BLOCK=64)
    torch.cuda.synchronize()
    assert x.tolist() == [1.0] * 64
    kw = hooks[-1][1]
    assert hooks[-1][0] == "post" and kw["compile"]["device"] == dev
    assert add_one.device_caches[dev][0].get(kw["key"]) is k
    data = hooks[0][1]["compile"]["specialization_data"]
    add_one.device_caches[dev][0].clear()
    p = add_one.preload(data)
    assert p.hash == k.hash
    assert add_one[(1,)](x, 64, BLOCK=64) is p  # launched with the preloaded kernel
    torch.cuda.synchronize()
    assert x.tolist() == [2.0] * 64


def _store_i(x, i, BLOCK: tl.constexpr):
    tl.store(x, i)


@pytest.mark.parametrize("options,variants", [
    ({}, 3),  # i == 1, i % 16 == 0, the rest
    ({"do_not_specialize": ["i"]}, 1),
    ({"do_not_specialize_on_alignment": ["i"]}, 2),  # i == 1, the rest
])
def test_int_specialisation_follows_the_decorator(hooks, options, variants):
    k = tilec.jit(**options)(_store_i)
    x = np.zeros(1, np.int32)
    for i in [1, 2, 4, 8, 16, 32]:
        k[(1,)](x, i, BLOCK=4)
        assert x[0] == i
    assert len(k.device_caches["cpu"][0]) == variants
    assert len([c for c, _ in hooks if c == "cache"]) == variants


def _store_typed(x, i: tl.int32):
    tl.store(x, i)


def test_an_annotated_int_keeps_its_type_and_is_specialised(hooks):
    """As Triton: divisibility by 16 is specialised, 1 gets a variant of its own (not
    folded: `i` stays an int32 run-time value), the rest share one."""
    k = tilec.jit(_store_typed)
    x = np.zeros(1, np.int32)
    for i in [1, 8, 16, 17, 32]:
        k[(1,)](x, i)
        assert x[0] == i
    keys = sorted(key[0][1] for key in k.device_caches["cpu"][0])
    assert keys == [("i", "i32", False, False), ("i", "i32", False, False, "one"),
                    ("i", "i32", True, False)]


def test_pointer_alignment_is_not_assumed_when_asked(hooks):
    k = tilec.jit(do_not_specialize_on_alignment=["x"])(_store_i)
    k[(1,)](np.zeros(4, np.int32), 3, BLOCK=4)
    assert hooks[0][1]["compile"]["configs"] == [{}]  # no tt.divisibility for x
    (keys, _options), = k.device_caches["cpu"][0]
    assert keys[0] == ("p", "i32", False)


def test_resetting_hash_rereads_the_callees_sources():
    @tilec.jit
    def callee(v):
        return v + 1

    @tilec.jit
    def caller(x):
        tl.store(x, callee(1))

    baseline = caller.cache_key
    src = callee.src
    callee._unsafe_update_src(src.replace("v + 1", "v + 2"))
    assert caller.cache_key == baseline  # memoised, as Triton's until hash is reset
    caller.hash = None
    assert caller.cache_key != baseline
    callee._unsafe_update_src(src)
    caller.hash = None
    assert caller.cache_key == baseline


OFFSET = 1
SHADOWED = 5


@tilec.jit
def adds_offset(x):
    tl.store(x, tl.load(x) + OFFSET)


@tilec.jit
def reads_shadowed(x, k: tl.constexpr = OFFSET):
    _, SHADOWED = 0, k  # a local assigned before it is read: not the global
    tl.store(x, SHADOWED)


def test_a_global_changed_after_compiling_is_an_error():
    global OFFSET, SHADOWED
    x = np.zeros(1, np.float32)
    adds_offset[(1,)](x)
    reads_shadowed[(1,)](x)
    assert set(adds_offset.used_global_vals) == {("OFFSET", id(globals()))}
    assert reads_shadowed.used_global_vals == {}  # neither the default nor the local
    try:
        OFFSET, SHADOWED = 2, 6
        with pytest.raises(RuntimeError, match="Global variable OFFSET has changed since we "
                                               "compiled this kernel, from 1 to 2"):
            adds_offset[(1,)](x)
        reads_shadowed[(1,)](x)
        assert x[0] == 1
    finally:
        OFFSET, SHADOWED = 1, 5
    adds_offset[(1,)](x)
    assert x[0] == 2


def test_a_closure_value_mutated_after_compiling_is_an_error():
    def make(c):
        @tilec.jit
        def k(x):
            tl.store(x, c)
        return k

    c = tl.constexpr(42)
    k = make(c)
    x = np.zeros(1, np.int32)
    k[(1,)](x)
    c.value = 43
    with pytest.raises(RuntimeError, match="c has changed since we compiled this kernel, "
                                           r"from constexpr\[42\] to constexpr\[43\]"):
        k[(1,)](x)


SHARED = tl.constexpr(0)


@tilec.jit
def reads_shared():
    a = SHARED  # noqa: F841


def test_callers_and_callees_must_agree_on_a_global():
    global SHARED

    @tilec.jit
    def first():
        a = SHARED  # noqa: F841
        reads_shared()

    @tilec.jit
    def second():
        a = SHARED  # noqa: F841
        reads_shared()

    first[(1,)]()
    try:
        SHARED = tl.constexpr(1)
        with pytest.raises(RuntimeError, match="Global variable SHARED has value"):
            second[(1,)]()
    finally:
        SHARED = tl.constexpr(0)


def test_cache_keys_follow_codegen_variables(monkeypatch):
    """A variable that changes the emitted code (`tilec env` says "part of the cache key")
    gives another key, so that a kernel compiled without it is not reused; one that does not
    (TILEC_TIME) keeps the key."""
    fs = _sources.function_source(fill)
    for name in ("TILEC_WGMMA_DESC", "TILEC_RING", "TILEC_TIME"):
        monkeypatch.delenv(name, raising=False)
    k1 = _C.gpu_cache_key(fs, "specs", "opts", "sm_90a")
    monkeypatch.setenv("TILEC_WGMMA_DESC", "wide")
    k2 = _C.gpu_cache_key(fs, "specs", "opts", "sm_90a")
    monkeypatch.setenv("TILEC_RING", "0")
    k3 = _C.gpu_cache_key(fs, "specs", "opts", "sm_90a")
    assert len({k1, k2, k3}) == 3
    monkeypatch.setenv("TILEC_WGMMA_DESC", "auto")  # the defaults, spelled out
    monkeypatch.setenv("TILEC_RING", "1")
    assert _C.gpu_cache_key(fs, "specs", "opts", "sm_90a") == k1
    monkeypatch.setenv("TILEC_TIME", "1")
    assert _C.gpu_cache_key(fs, "specs", "opts", "sm_90a") == k1


def test_a_codegen_variable_compiles_anew_through_the_disk_cache(tmp_path, monkeypatch):
    """triton.compile of an ASTSource for a GPU target goes through the disk cache (no GPU
    needed, as Inductor compiles): the same kernel with TILEC_PREFETCH=1, then 0, then 1
    again gives two entries and each setting its own PTX; before the variables were part
    of the key, the second compile returned the first one's PTX."""
    import glob

    from tilec.backends.compiler import GPUTarget
    from tilec.compiler import ASTSource

    from test_pipelining import rows_beside_dot

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TILEC_ALWAYS_COMPILE", raising=False)
    sig = {"Q": "*fp16", "M": "*fp32", "W": "*fp32", "O": "*fp32", "n": "i32",
           "ROWS": "constexpr"}
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(4)}

    def ptx(setting):
        monkeypatch.setenv("TILEC_PREFETCH", setting)
        src = ASTSource(rows_beside_dot, sig, {"ROWS": 32}, attrs)
        return tilec.compile(src, target=GPUTarget("cuda", 90, 32),
                             options={"num_stages": 3}).asm["ptx"]

    assert "prefetch.global.L1" in ptx("1")
    assert "prefetch.global.L1" not in ptx("0")
    assert "prefetch.global.L1" in ptx("1")
    assert len(glob.glob(str(tmp_path / "*" / "*" / "kernel.ptx"))) == 2
