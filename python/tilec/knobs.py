"""`triton.knobs`: Triton 3.6's configuration object, backed by the environment.

Each knob set (`knobs.cache`, `knobs.runtime`, `knobs.nvidia`, ...) is an instance of a
`base_knobs` subclass whose attributes are descriptors. Reading a knob that was never set
reads its environment variable (at every read, so a change to os.environ shows); setting
it keeps the value on the instance and, while `knobs.propagate_env` is true, writes it to
os.environ as well, so child processes (compile workers) see it. Assigning `knobs.env`
(or deleting the attribute) forgets the value and goes back to the environment.

What tilec honours (everything else is kept and returned, as Triton's values, but changes
nothing in tilec):
- `cache.dir` (TRITON_CACHE_DIR): the directory of tilec's disk cache of GPU kernels and
  autotuning results; by default tilec's own (TILEC_CACHE_DIR, else ~/.cache/tilec).
- `runtime.interpret` (TRITON_INTERPRET), beside tilec's TILEC_INTERPRET.
- `compilation.always_compile` (TRITON_ALWAYS_COMPILE): GPU compiles skip the disk cache.
- `language.default_fp_fusion` (TRITON_DEFAULT_FP_FUSION): enable_fp_fusion's value for
  launches that do not pass it. The C++ launch fast path keys kernels by the variable; a
  value set only in Python (`propagate_env` false) is honoured by the Python path, whose
  kernels then stay off the fast path while the two disagree.
- `autotuning.cache` / `autotuning.print`, beside TILEC_CACHE_AUTOTUNING / _PRINT_.
- `nvidia.ptxas` / `cuobjdump` / `nvdisasm`: the tool at TRITON_<TOOL>_PATH when it runs,
  else the one tilec finds (docs/ENV.md, TILEC_PTXAS); tilec itself compiles with the latter.
The hooks (`runtime.launch_enter_hook`, `jit_cache_hook`, ...) have Triton's defaults and
are not called: tilec launches from C++ without them."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import os
import re
import subprocess
from typing import Callable, Optional

from . import _C, _fastpath, _introspect


class Env:
    """The type of `knobs.env`: assigning it to a knob forgets the value set in Python."""


env = Env()

# Whether setting a knob also writes its environment variable (Triton's default: yes).
propagate_env: bool = True

_TRUE = ("1", "y", "yes", "on", "true")


def getenv(key: str, default=None):
    return os.environ.get(key, default)


def getenv_bool(key: str, default):
    """Triton's rule: set means true for 1 / y / yes / on / true (any case), else false."""
    v = os.environ.get(key)
    return default if v is None else v.strip().lower() in _TRUE


def setenv(key: str, value: Optional[str]) -> None:
    if not propagate_env:
        return
    if value is None:
        os.environ.pop(key, None)
    else:
        os.environ[key] = value


def toenv(value) -> Optional[tuple]:
    """(the environment's spelling of value,) for None, bools, strs and ints; None for
    values the environment cannot hold (they stay in Python only)."""
    if value is None:
        return (None,)
    if type(value) is bool:
        return ("1" if value else "0",)
    if type(value) in (str, int):
        return (str(value),)
    return None


_UNSET = object()


class env_base:
    """A knob: `key` is its environment variable. Subclasses say how the variable reads
    (`get`) and how a value set in Python reads back (`transform`)."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__.get(self.name, _UNSET)
        return self.get() if value is _UNSET else self.transform(value)

    def __set__(self, obj, value) -> None:
        if isinstance(value, Env):
            obj.__dict__.pop(self.name, None)
            return
        obj.__dict__[self.name] = value
        spelled = toenv(value)
        if spelled:
            setenv(self.key, spelled[0])

    def __delete__(self, obj) -> None:
        obj.__dict__.pop(self.name, None)

    def get(self):
        raise NotImplementedError(f"{type(self).__name__}.get")

    def transform(self, value):
        return value


class env_str(env_base):

    def __init__(self, key: str, default: str) -> None:
        super().__init__(key)
        self.default = default

    def get(self) -> str:
        return getenv(self.key, self.default)


class env_str_callable_default(env_base):
    """A string whose default is computed when read (it may depend on other knobs)."""

    def __init__(self, key: str, default_factory: Callable[[], str]) -> None:
        super().__init__(key)
        self.default_factory = default_factory

    def get(self) -> str:
        v = getenv(self.key)
        return self.default_factory() if v is None else v


class env_bool(env_base):

    def __init__(self, key: str, default: bool = False) -> None:
        super().__init__(key)
        self.default = default

    def get(self) -> bool:
        return getenv_bool(self.key, self.default)


class env_int(env_base):

    def __init__(self, key: str, default: int = 0) -> None:
        super().__init__(key)
        self.default = default

    def get(self) -> int:
        v = getenv(self.key)
        if v is None:
            return self.default
        try:
            return int(v)
        except ValueError:
            raise RuntimeError(f"{self.key}={v!r} is not an integer") from None


class env_opt_str(env_base):
    """A string, None when the variable is unset."""

    def get(self) -> Optional[str]:
        return getenv(self.key)


class env_opt_bool(env_base):
    """A bool, None when the variable is unset."""

    def get(self) -> Optional[bool]:
        return getenv_bool(self.key, None)


class env_class(env_base):
    """A class named `module:Class` whose bases include one called `type`."""

    def __init__(self, key: str, type: str) -> None:  # noqa: A002 - Triton's name
        super().__init__(key)
        self.type = type

    def get(self):
        v = getenv(self.key)
        if v is None:
            return None
        module, sep, name = v.partition(":")
        if not sep:
            raise RuntimeError(f"{self.key}={v!r}: expected MODULE:CLASS")
        cls = getattr(importlib.import_module(module), name)
        if not any(c.__name__ == self.type for c in cls.mro()):
            raise RuntimeError(f"{self.key}={v!r}: {name} is not a {self.type}")
        return cls


@dataclasses.dataclass
class NvidiaTool:
    """A CUDA tool and its release ("12.8")."""
    path: str
    version: str

    @staticmethod
    @functools.lru_cache
    def from_path(path: str) -> Optional["NvidiaTool"]:
        try:
            out = subprocess.check_output([path, "--version"], stderr=subprocess.STDOUT,
                                          timeout=60)
        except (OSError, subprocess.SubprocessError):
            return None
        m = re.search(r"release (\d+\.\d+)", out.decode("utf-8", "replace"))
        return NvidiaTool(path, m.group(1)) if m else None


class env_nvidia_tool(env_base):
    """A CUDA tool: TRITON_<TOOL>_PATH when that runs, else the one tilec finds."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        super().__init__(f"TRITON_{binary.upper().replace('-', '_')}_PATH")

    def get(self) -> NvidiaTool:
        return self.transform(getenv(self.key))

    def transform(self, path: Optional[str]) -> NvidiaTool:
        # ptxas-blackwell is Triton's second ptxas; tilec has one
        found = _introspect.find_tool(self.binary.replace("-blackwell", ""))
        for p in (path, found):
            tool = NvidiaTool.from_path(p) if p else None
            if tool is not None:
                return tool
        raise RuntimeError(f"cannot find {self.binary} (set {self.key}, or see TILEC_PTXAS in "
                           "tilec's docs/ENV.md)")


@dataclasses.dataclass(frozen=True)
class CompileTimes:
    """Times of one compilation in microseconds (what `compilation.listener` receives)."""
    ir_initialization: int
    lowering_stages: list
    store_results: int

    @property
    def total_lowering(self) -> int:
        return sum(t for _, t in self.lowering_stages)

    @property
    def total(self) -> int:
        return self.ir_initialization + self.total_lowering + self.store_results


class HookChain:
    """Hooks of one kind, called in order (in reverse order when `reversed`)."""

    def __init__(self, reversed: bool = False) -> None:  # noqa: A002 - Triton's name
        self.calls: list = []
        self.reversed = reversed

    def add(self, func) -> None:
        if func not in self.calls:
            self.calls.append(func)
        _fastpath.drop()  # launches take the Python path, which calls the hooks

    def remove(self, func) -> None:
        if func in self.calls:
            self.calls.remove(func)

    def __call__(self, *args, **kwargs) -> None:
        for f in (self.calls[::-1] if self.reversed else list(self.calls)):
            f(*args, **kwargs)


class base_knobs:
    """A set of knobs; the descriptors on its class are its knobs."""

    @property
    def knob_descriptors(self) -> dict:
        return {k: v for k, v in type(self).__dict__.items() if isinstance(v, env_base)}

    @property
    def knobs(self) -> dict:
        return {k: getattr(self, k) for k in self.knob_descriptors}

    def copy(self):
        out = type(self)()
        out.__dict__.update(self.__dict__)
        return out

    def reset(self):
        """Forgets every value set in Python (the environment is left as it is)."""
        for name in self.knob_descriptors:
            delattr(self, name)
        return self

    @contextlib.contextmanager
    def scope(self):
        """Restores, on exit, the values set in Python and the knobs' environment
        variables as they were on entry."""
        saved_env = {d.key: getenv(d.key) for d in self.knob_descriptors.values()}
        saved = dict(self.__dict__)
        try:
            yield
        finally:
            self.__dict__.clear()
            self.__dict__.update(saved)
            for key, value in saved_env.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


class build_knobs(base_knobs):
    cc = env_opt_str("CC")
    cudacrt_path = env_opt_str("TRITON_CUDACRT_PATH")
    cudart_path = env_opt_str("TRITON_CUDART_PATH")
    impl = None

    @property
    def backend_dirs(self) -> set:
        return {p for p in (self.cudacrt_path, self.cudart_path) if p is not None}


class redis_knobs(base_knobs):
    key_format = env_str("TRITON_REDIS_KEY_FORMAT", "triton:{key}:{filename}")
    host = env_str("TRITON_REDIS_HOST", "localhost")
    port = env_int("TRITON_REDIS_PORT", 6379)


def _tilec_cache_dir() -> str:
    return _C.gpu_cache_dir()  # TILEC_CACHE_DIR, else ~/.cache/tilec


class cache_knobs(base_knobs):
    home_dir = env_str("TRITON_HOME", os.path.expanduser("~/"))
    dump_dir = env_str_callable_default("TRITON_DUMP_DIR", lambda: cache.get_triton_dir("dump"))
    override_dir = env_str_callable_default("TRITON_OVERRIDE_DIR",
                                            lambda: cache.get_triton_dir("override"))
    dir = env_str_callable_default("TRITON_CACHE_DIR", _tilec_cache_dir)
    manager_class = env_class("TRITON_CACHE_MANAGER", "CacheManager")
    remote_manager_class = env_class("TRITON_REMOTE_CACHE_BACKEND", "RemoteCacheBackend")

    def get_triton_dir(self, dirname: str) -> str:
        return os.path.join(self.home_dir, ".triton", dirname)


class compilation_knobs(base_knobs):
    override = env_bool("TRITON_KERNEL_OVERRIDE")
    dump_ir = env_bool("TRITON_KERNEL_DUMP")
    dump_ir_extract_di_local_variables = env_bool("LLVM_EXTRACT_DI_LOCAL_VARIABLES")
    store_binary_only = env_bool("TRITON_STORE_BINARY_ONLY")
    always_compile = env_bool("TRITON_ALWAYS_COMPILE")
    use_ir_loc = env_opt_str("USE_IR_LOC")
    enable_asan = env_bool("TRITON_ENABLE_ASAN")
    disable_line_info = env_bool("TRITON_DISABLE_LINE_INFO")
    front_end_debugging = env_bool("TRITON_FRONT_END_DEBUGGING")
    allow_non_constexpr_globals = env_bool("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS")
    # plain values read once, as in Triton (they sit on the launch path there)
    instrumentation_mode: str = env_str("TRITON_INSTRUMENTATION_MODE", "").get()
    listener = None


class autotuning_knobs(base_knobs):
    cache = env_bool("TRITON_CACHE_AUTOTUNING")
    print = env_bool("TRITON_PRINT_AUTOTUNING")  # noqa: A003 - Triton's name


class runtime_knobs(base_knobs):
    interpret = env_bool("TRITON_INTERPRET")
    debug: bool = env_bool("TRITON_DEBUG").get()
    override_arch = env_opt_str("TRITON_OVERRIDE_ARCH")
    launch_enter_hook = HookChain()
    launch_exit_hook = HookChain(reversed=True)
    kernel_load_start_hook = HookChain()
    kernel_load_end_hook = HookChain(reversed=True)
    jit_cache_hook = None
    jit_post_compile_hook = None
    add_stages_inspection_hook = None

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name in ("launch_enter_hook", "launch_exit_hook") and value is not None:
            _fastpath.drop()  # a hook assigned, not added: launches must see it too


class language_knobs(base_knobs):
    fp32_default = env_opt_str("TRITON_F32_DEFAULT")
    default_fp_fusion = env_bool("TRITON_DEFAULT_FP_FUSION", True)


class nvidia_knobs(base_knobs):
    cuobjdump = env_nvidia_tool("cuobjdump")
    nvdisasm = env_nvidia_tool("nvdisasm")
    ptxas = env_nvidia_tool("ptxas")
    ptxas_blackwell = env_nvidia_tool("ptxas-blackwell")
    dump_nvptx = env_bool("NVPTX_ENABLE_DUMP")
    disable_ptxas_opt = env_bool("DISABLE_PTXAS_OPT")
    ptxas_options = env_opt_str("PTXAS_OPTIONS")
    mock_ptx_version = env_opt_str("TRITON_MOCK_PTX_VERSION")
    dump_ptxas_log = env_bool("TRITON_DUMP_PTXAS_LOG")
    libdevice_path = env_opt_str("TRITON_LIBDEVICE_PATH")
    libcuda_path = env_opt_str("TRITON_LIBCUDA_PATH")


class amd_knobs(base_knobs):
    use_buffer_ops = env_bool("AMDGCN_USE_BUFFER_OPS", True)
    use_buffer_atomics = env_bool("AMDGCN_USE_BUFFER_ATOMICS", True)
    buffer_ops_analyze_small_tensor_range = env_bool("AMDGCN_ANALYZE_SMALL_TENSOR_RANGE", False)
    dump_amdgcn = env_bool("AMDGCN_ENABLE_DUMP")
    libhip_path = env_opt_str("TRITON_LIBHIP_PATH")
    use_block_pingpong = env_opt_bool("TRITON_HIP_USE_BLOCK_PINGPONG")
    use_in_thread_transpose = env_opt_bool("TRITON_HIP_USE_IN_THREAD_TRANSPOSE")
    use_async_copy = env_bool("TRITON_HIP_USE_ASYNC_COPY")
    scalarize_packed_fops = env_bool("AMDGCN_SCALARIZE_PACKED_FOPS")


class proton_knobs(base_knobs):
    disable = env_bool("TRITON_PROTON_DISABLE", False)
    cupti_lib_dir = env_str("TRITON_CUPTI_LIB_PATH", "")
    enable_nvtx = env_bool("TRITON_ENABLE_NVTX", True)


build = build_knobs()
redis = redis_knobs()
cache = cache_knobs()
compilation = compilation_knobs()
autotuning = autotuning_knobs()
runtime = runtime_knobs()
language = language_knobs()
nvidia = nvidia_knobs()
amd = amd_knobs()
proton = proton_knobs()


def refresh_knobs() -> None:
    """Rereads the knobs that are plain values read once (runtime.debug,
    compilation.instrumentation_mode)."""
    runtime.debug = env_bool("TRITON_DEBUG").get()
    compilation.instrumentation_mode = env_str("TRITON_INSTRUMENTATION_MODE", "").get()


__all__ = ["Env", "env", "propagate_env", "getenv", "getenv_bool", "setenv", "toenv", "env_base",
           "env_str", "env_str_callable_default", "env_bool", "env_int", "env_opt_str",
           "env_opt_bool", "env_class", "NvidiaTool", "env_nvidia_tool", "CompileTimes",
           "HookChain", "base_knobs", "build_knobs", "redis_knobs", "cache_knobs",
           "compilation_knobs", "autotuning_knobs", "runtime_knobs", "language_knobs",
           "nvidia_knobs", "amd_knobs", "proton_knobs", "build", "redis", "cache", "compilation",
           "autotuning", "runtime", "language", "nvidia", "amd", "proton", "refresh_knobs"]
