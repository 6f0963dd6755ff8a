"""`triton.runtime.cache`: Triton's file cache interface, for libraries that store their own
artifacts through it (Inductor names its cache keys with `triton_key`). tilec's compiled
kernels live in its own disk cache (src/runtime/Cache.h), in the same directory
(`knobs.cache.dir`); a FileCacheManager keeps its files under `<dir>/<key>/`.
Triton's remote (Redis) cache is not provided."""

from __future__ import annotations

import abc
import base64
import hashlib
import json
import os
import uuid
from typing import Optional

from .. import knobs
from ..compiler.compiler import get_cache_key, triton_key


class CacheManager(abc.ABC):

    def __init__(self, key, override=False, dump=False):
        pass

    @abc.abstractmethod
    def get_file(self, filename) -> Optional[str]:
        ...

    @abc.abstractmethod
    def put(self, data, filename, binary=True) -> str:
        ...

    @abc.abstractmethod
    def get_group(self, filename: str) -> Optional[dict]:
        ...

    @abc.abstractmethod
    def put_group(self, filename: str, group: dict):
        ...


class FileCacheManager(CacheManager):
    """Files under `<knobs.cache.dir>/<key>/` (dump_dir / override_dir for those kinds),
    written atomically (a temporary directory, then a rename)."""

    def __init__(self, key, override=False, dump=False):
        self.key = key
        root = knobs.cache.dump_dir if dump else \
            knobs.cache.override_dir if override else knobs.cache.dir
        if not root:
            raise RuntimeError("no cache directory: set TRITON_CACHE_DIR or knobs.cache.dir")
        self.cache_dir = os.path.join(root, key)
        self.lock_path = None if override else os.path.join(self.cache_dir, "lock")
        if not override:
            os.makedirs(self.cache_dir, exist_ok=True)

    def _make_path(self, filename) -> str:
        return os.path.join(self.cache_dir, filename)

    def has_file(self, filename) -> bool:
        return os.path.exists(self._make_path(filename))

    def get_file(self, filename) -> Optional[str]:
        return self._make_path(filename) if self.has_file(filename) else None

    def get_group(self, filename: str) -> Optional[dict]:
        """{child name: path} of the group stored under `filename`, the children that
        still exist; None when there is no group."""
        path = self.get_file(f"__grp__{filename}")
        if path is None:
            return None
        with open(path) as f:
            children = json.load(f).get("child_paths")
        if children is None:
            return None
        return {c: p for c, p in children.items() if os.path.exists(p)}

    def put_group(self, filename: str, group: dict) -> str:
        return self.put(json.dumps({"child_paths": group}), f"__grp__{filename}", binary=False)

    def put(self, data, filename, binary=True) -> str:
        binary = isinstance(data, bytes)
        if not binary:
            data = str(data)
        target = self._make_path(filename)
        tmp_dir = os.path.join(self.cache_dir, f"tmp.pid_{os.getpid()}_{uuid.uuid4()}")
        os.makedirs(tmp_dir, exist_ok=True)
        tmp = os.path.join(tmp_dir, filename)
        with open(tmp, "wb" if binary else "w") as f:
            f.write(data)
        os.replace(tmp, target)
        os.removedirs(tmp_dir)
        return target


class RemoteCacheBackend:
    """Triton's interface of a remote cache (`knobs.cache.remote_manager_class`)."""

    def __init__(self, key: str):
        pass

    def get(self, filenames: list) -> dict:
        raise NotImplementedError

    def put(self, filename: str, data: bytes):
        raise NotImplementedError


def _base32(key: str) -> str:
    """A hex digest in base 32 (shorter directory names)."""
    return base64.b32encode(bytes.fromhex(key)).decode().rstrip("=")


def _manager(key, **kind) -> CacheManager:
    return (knobs.cache.manager_class or FileCacheManager)(_base32(key), **kind)


def get_cache_manager(key) -> CacheManager:
    return _manager(key)


def get_override_manager(key) -> CacheManager:
    return _manager(key, override=True)


def get_dump_manager(key) -> CacheManager:
    return _manager(key, dump=True)


def default_cache_dir() -> str:
    return knobs.cache.dir


def default_override_dir() -> str:
    return knobs.cache.override_dir


def default_dump_dir() -> str:
    return knobs.cache.dump_dir


def make_so_cache_key(version_hash, signature, constants, ids, **kwargs) -> str:
    sig = "".join("ptr" if v[0] == "*" else v for v in signature.values())
    key = "-".join([f"{version_hash}-{sig}-{constants}-{ids}", *map(str, kwargs.values())])
    return _base32(hashlib.sha256(key.encode()).hexdigest())


__all__ = ["CacheManager", "FileCacheManager", "RemoteCacheBackend", "get_cache_manager",
           "get_override_manager", "get_dump_manager", "default_cache_dir",
           "default_override_dir", "default_dump_dir", "make_so_cache_key", "triton_key",
           "get_cache_key"]
