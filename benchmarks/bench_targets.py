"""How a benchmark names what it runs on (tutorial06.py, tutorials.py): "tilec" or "triton",
either with environment settings for an A/B in the same run ("tilec:TILEC_WGMMA_DEFER=0,V=1").
Each target runs in a child process with this environment."""

import os
import subprocess
import sys
import tempfile

_switch_checked = False


def check_switch(env):
    """Exits unless `import triton` gives tilec in a child with `env`: without tilec's
    start-up hook (tilec-as-triton.pth, which `python -m pip install` of this interpreter
    installs) TILEC_AS_TRITON is ignored and a "tilec" target silently runs Triton."""
    global _switch_checked
    if _switch_checked:
        return
    r = subprocess.run([sys.executable, "-c", "import triton; print(triton.__file__)"],
                       env=env, capture_output=True, text=True, timeout=120)
    where = r.stdout.strip() if r.returncode == 0 else r.stderr.strip()[-400:]
    if os.sep + "tilec" + os.sep not in where:
        raise SystemExit(f"target tilec: `import triton` gives {where!r}, not tilec; "
                         f"is tilec installed for {sys.executable}?")
    _switch_checked = True


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
        check_switch(env)
    cache = tempfile.mkdtemp(prefix=f"{cache_prefix}-{kind}-")
    env["TRITON_CACHE_DIR"] = env["TILEC_CACHE_DIR"] = cache
    return kind, env, cache
