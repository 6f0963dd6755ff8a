"""How a benchmark names what it runs on (tutorial06.py, tutorials.py): "tilec" or "triton",
either with environment settings for an A/B in the same run ("tilec:TILEC_WGMMA_DEFER=0,V=1").
Each target runs in a child process with this environment."""

import os
import tempfile


def target_env(target, cache_prefix):
    """(kind, env, cache dir) of `target`: `import triton` resolves to tilec for kind "tilec"
    (TILEC_AS_TRITON=1) and to Triton otherwise; both compilers get one fresh, empty kernel
    cache (the caller removes it)."""
    env = dict(os.environ)
    env.pop("TILEC_AS_TRITON", None)
    kind, _, settings = target.partition(":")
    env.update(s.split("=", 1) for s in settings.split(",") if s)
    if kind == "tilec":
        env["TILEC_AS_TRITON"] = "1"
    cache = tempfile.mkdtemp(prefix=f"{cache_prefix}-{kind}-")
    env["TRITON_CACHE_DIR"] = env["TILEC_CACHE_DIR"] = cache
    return kind, env, cache
