"""The autotuner's disk cache: one small JSON file per (kernel sources, tilec version, key,
config list, device) under `<cache dir>/autotune/`, written atomically (temp file +
rename) so that concurrent processes never read a half-written result."""

from __future__ import annotations

import json
import os
import tempfile

from . import _C, _sources, knobs


def env_flag(name: str) -> bool:
    """A TILEC_* flag (Env.def); the plain environment when _C predates the variable."""
    try:
        return bool(_C.env_flag(name))
    except Exception:  # an older extension without this variable registered
        v = os.environ.get(name, "").strip().lower()
        return v not in ("", "0", "false", "off", "no")


def cache_dir() -> str:
    return os.path.join(knobs.cache.dir, "autotune")


def device_name(on_gpu: bool) -> str:
    if not on_gpu:
        return "cpu"
    try:
        props = _C.gpu_device_props(_C.gpu_current_device())
        return f"{props['name']} {props['arch']}"
    except Exception:  # no usable driver: the launch itself will say why
        return "gpu"


def entry_key(jitfn, key, configs, on_gpu: bool) -> str:
    """The file name (a hash) of one tuning result."""
    fs = _sources.function_source(jitfn)
    return _C.gpu_cache_key(fs, "autotune:" + repr(key), repr([str(c) for c in configs]),
                            device_name(on_gpu))


def load(name: str):
    """The stored result (a dict) or None when absent or unreadable."""
    try:
        with open(os.path.join(cache_dir(), name + ".json")) as f:
            data = json.load(f)
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def store(name: str, data: dict) -> None:
    """Best effort: a read-only cache directory only costs tuning again next time."""
    d = cache_dir()
    try:
        os.makedirs(d, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(data, f, indent=1)
            os.replace(tmp, os.path.join(d, name + ".json"))
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass
