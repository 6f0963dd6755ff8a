"""`@autotune` and `@heuristics`. Configs are timed with testing.do_bench (the wall clock
on the CPU, device events on a GPU); the best one is kept per key (the values of the key
arguments and the dtypes of the array arguments), and on disk with cache_results=True or
TILEC_CACHE_AUTOTUNING=1. TILEC_PRINT_AUTOTUNING=1 prints every config's time."""

from __future__ import annotations

import builtins
import concurrent.futures
import contextlib
import inspect
import os
import sys
import time
import warnings

from . import _gpu, _sources, _tunecache, knobs, testing
from ._interface import KernelInterface
from .errors import AutotunerError, CompilationError, OutOfResources
from .tools.tensor_descriptor import TensorDescriptor


class Config:
    """One point of an autotuning space: meta-parameters (`kwargs`) and launch options."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,
                 pre_hook=None, ir_override=None):
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.num_ctas = num_ctas
        self.maxnreg = maxnreg
        self.pre_hook = pre_hook
        self.ir_override = ir_override

    def all_kwargs(self) -> dict:
        opts = {"num_warps": self.num_warps, "num_stages": self.num_stages,
                "num_ctas": self.num_ctas, "maxnreg": self.maxnreg}
        return {**self.kwargs, **{k: v for k, v in opts.items() if v is not None}}

    def _key(self):
        return (tuple(sorted(self.kwargs.items())), self.num_warps, self.num_stages,
                self.num_ctas, self.maxnreg)

    def __eq__(self, other):
        return isinstance(other, Config) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}",
                  f"num_stages: {self.num_stages}", f"maxnreg: {self.maxnreg}"]
        return ", ".join(parts)

    __repr__ = __str__


def _dtype_key(v):
    dt = getattr(v, "dtype", None)
    return str(dt) if dt is not None and hasattr(v, "shape") else None


def _zero(v):
    if hasattr(v, "zero_"):
        v.zero_()
    else:
        v[...] = 0


def _clone(v):
    return v.clone() if hasattr(v, "clone") else v.copy()


def _timing_device(values):
    """A context that makes the device of the first CUDA torch tensor among `values` current
    while configs are timed: the timer's events and L2-flush buffer live on the current
    device, so tensors on another GPU would otherwise be timed on an idle one."""
    torch = sys.modules.get("torch")
    if torch is not None:
        for v in values:
            if isinstance(v, torch.Tensor) and v.is_cuda:
                if v.device.index != torch.cuda.current_device():
                    return torch.cuda.device(v.device.index)
                break
    return contextlib.nullcontext()


def _restore(dst, src):
    if hasattr(dst, "copy_"):
        dst.copy_(src)
    else:
        dst[...] = src


class Autotuner(KernelInterface):
    """Tries each Config on the first launch per key and keeps the fastest: the configs are
    compiled first (in parallel threads: the C++ compile releases the GIL), then timed one
    by one; a config that fails to compile or does not fit the device counts as infinitely
    slow. `best_config`, `configs_timings` (config -> ms), `configs_failures` (config ->
    why), `bench_time` (seconds, compiles included) and `compile_time` (seconds spent
    compiling the configs up front) describe the last tuning."""

    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None,
                 pre_hook=None, post_hook=None, prune_configs_by=None, warmup=None, rep=None,
                 use_cuda_graph=False, do_bench=None, cache_results=False):
        self.fn = fn
        self.arg_names = list(arg_names)
        self.configs = list(configs) if configs else [Config({})]
        # A key naming no parameter is ignored, as Triton does (tutorial 08 passes one).
        self.keys = list(key)
        self.base_fn = self.jit_function.fn  # the innermost Python function, as in Triton
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        for name in self.reset_to_zero + self.restore_value:
            if name not in self.arg_names:
                raise ValueError(f"autotune: '{name}' is not a parameter of "
                                 f"'{self.jit_function.__name__}'")
        self.user_pre_hook = pre_hook
        self.user_post_hook = post_hook
        prune_configs_by = prune_configs_by or {}
        self.perf_model = prune_configs_by.get("perf_model")
        self.configs_top_k = prune_configs_by.get("top_k", 1.0)
        self.early_config_prune = prune_configs_by.get("early_config_prune")
        self.num_warmups = 25 if warmup is None else warmup
        self.num_reps = 100 if rep is None else rep
        # with nothing said about timing, configs are timed in two rounds (_time_configs)
        self.two_rounds = warmup is None and rep is None and do_bench is None and \
            not use_cuda_graph
        self.use_cuda_graph = use_cuda_graph
        self._do_bench = do_bench
        self.cache_results = cache_results
        self.cache = {}
        self.best_config = None
        self.configs_timings = None
        self.configs_failures = {}
        self.bench_time = 0.0
        self.compile_time = 0.0
        self.from_disk_cache = False
        self.nargs = None
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)

    def _key(self, all_args):
        key = [all_args[k] for k in self.keys if k in all_args]
        for name in self.arg_names:
            if name in all_args:
                dk = _dtype_key(all_args[name])
                if dk is not None:
                    key.append(dk)
        return tuple(key)

    def prune_configs(self, kwargs, nargs):
        configs = self.configs
        if self.early_config_prune:
            configs = list(self.early_config_prune(configs, nargs, **kwargs))
            if not configs:  # Triton's error and words
                raise AutotunerError("No valid autotuner configs after pruning. "
                                     "`early_config_prune` should return at least one config.")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(configs) * top_k)
            top_k = max(int(top_k), 1)
            if len(configs) > top_k:
                est = {c: self.perf_model(**nargs, **kwargs, **c.all_kwargs()) for c in configs}
                configs = sorted(est, key=est.get)[:top_k]
        return configs

    @staticmethod
    def _check_conflicts(kwargs, config):
        conflicts = set(kwargs) & set(config.kwargs)
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(sorted(conflicts))}. "
                             "Make sure that you don't re-define auto-tuned symbols.")

    def _bench(self, args, kwargs, nargs, config, grid, warmup=None, rep=None):
        warmup = self.num_warmups if warmup is None else warmup
        rep = self.num_reps if rep is None else rep

        self._check_conflicts(kwargs, config)
        current = {**kwargs, **config.all_kwargs()}
        full = {**nargs, **current}

        def call():
            saved = [(full[n], _clone(full[n])) for n in self.restore_value]
            for name in self.reset_to_zero:
                _zero(full[name])
            if config.pre_hook:
                config.pre_hook(full)
            if self.user_pre_hook:
                self.user_pre_hook(full)
            try:
                self.fn.run(*args, grid=grid, **current)
            except Exception as e:
                if self.user_post_hook:
                    self.user_post_hook(full, exception=e)
                raise
            finally:
                for dst, src in saved:
                    _restore(dst, src)
            if self.user_post_hook:
                self.user_post_hook(full, exception=None)

        quantiles = (0.5, 0.2, 0.8)
        with _timing_device(full.values()):
            if self._do_bench is not None:
                return _call_user_bench(self._do_bench, call, warmup, rep, quantiles)
            if self.use_cuda_graph:
                return testing.do_bench_cudagraph(call, rep=rep, quantiles=quantiles)
            return testing.do_bench(call, warmup=warmup, rep=rep, quantiles=quantiles)

    def _precompile(self, configs, args, kwargs, nargs, grid):
        """Compiles every config (without launching); returns {config: why} for those that
        failed. Several configs compile at once on several threads."""
        failures = {}

        def compile_one(job):
            c, a, kw = job
            try:
                self.fn.run(*a, grid=grid, warmup=True, **kw, **c.all_kwargs())
            except (CompilationError, OutOfResources) as e:
                return c, _first_line(e)
            return c, None

        _sources.function_source(self.jit_function)  # built once, before the threads
        jobs = [(c, args, kwargs) for c in configs]
        # A config's pre_hook may change what a TensorDescriptor argument specialises on
        # (the fused-attention tutorial sets its block_shape): each such hook runs here
        # once, in turn, on the arguments (timing runs it again before every call), values
        # named by restore_value put back after it, and its config compiles on a snapshot
        # of the descriptors as the hook left them.
        if any(isinstance(v, TensorDescriptor) for v in (*args, *kwargs.values())):
            jobs = [(c, args, kwargs) if c.pre_hook is None else self._hooked(c, args, kwargs, nargs)
                    for c in configs]
        workers = min(len(jobs), os.cpu_count() or 1, 8)
        if workers <= 1:
            results = [compile_one(j) for j in jobs]
        else:
            with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
                results = list(pool.map(compile_one, jobs))
        for c, why in results:
            if why is not None:
                failures[c] = why
        return failures

    def _hooked(self, config, args, kwargs, nargs):
        """(config, args, kwargs) for compiling `config` as its pre_hook sets its arguments:
        the hook run once on them, its TensorDescriptors then copied."""
        full = {**nargs, **kwargs, **config.all_kwargs()}
        saved = [(full[n], _clone(full[n])) for n in self.restore_value]
        try:
            config.pre_hook(full)
        finally:
            for dst, src in saved:
                _restore(dst, src)

        def snap(v):
            if not isinstance(v, TensorDescriptor):
                return v
            return TensorDescriptor(v.base, list(v.shape), list(v.strides), list(v.block_shape),
                                    v.padding)
        return config, [snap(a) for a in args], {k: snap(v) for k, v in kwargs.items()}

    # Two rounds when the caller chose no timing (warmup/rep/do_bench/cuda graph): every
    # config briefly, then the few within 10% of the fastest again, longer. The ranking of
    # close configs gets the long measurement; clearly slower ones do not cost it (8 seed
    # matmul configs: ~0.3 s instead of ~1 s at 25 + 100 ms each).
    QUICK = (5, 10)         # warmup, rep (ms) of the first round
    FINAL = (10, 40)        # of the second
    FINALISTS, CLOSE = 3, 1.10

    def _time_configs(self, configs, failures, args, kwargs, nargs, grid):
        """config -> ms (inf for the failed ones, which are added to `failures`)."""
        def time_all(cs, *timing):  # timing: () (the tuner's own) or (warmup, rep)
            out = {}
            for c in cs:
                if c not in failures:
                    try:
                        t = self._bench(args, kwargs, nargs, c, grid, *timing)
                    except (OutOfResources, CompilationError) as e:
                        failures[c] = _first_line(e)
                    else:
                        out[c] = float(t[0] if isinstance(t, (list, tuple)) else t)
                if c in failures:
                    out[c] = float("inf")
            return out

        live = [c for c in configs if c not in failures]
        if not self.two_rounds or len(live) <= 1:
            return time_all(configs)
        timings = time_all(configs, *self.QUICK)
        best = builtins.min(timings.values())
        close = sorted((c for c, t in timings.items() if t <= best * self.CLOSE),
                       key=timings.get)[:self.FINALISTS]
        if len(close) > 1:
            timings.update(time_all(close, *self.FINAL))
        return timings

    def _tune(self, key, args, kwargs, nargs, grid):
        verbose = _tunecache.env_flag("TILEC_PRINT_AUTOTUNING") or knobs.autotuning.print
        disk = self.cache_results or _tunecache.env_flag("TILEC_CACHE_AUTOTUNING") or \
            knobs.autotuning.cache
        for c in self.configs:
            self._check_conflicts(kwargs, c)
        entry = None
        if disk:
            entry = _tunecache.entry_key(self.jit_function, key, self.configs,
                                         _gpu.wants_gpu(args, kwargs))
            config = self._from_disk(_tunecache.load(entry))
            if config is not None:
                if verbose:
                    print(f"tilec autotuning for '{self.__name__}' with key {key}: result "
                          f"read from the disk cache; best config: {config}", flush=True)
                return config
        self.from_disk_cache = False
        start = time.perf_counter()
        pruned = self.prune_configs(kwargs, nargs)
        failures = self._precompile(pruned, args, kwargs, nargs, grid)
        self.compile_time = time.perf_counter() - start
        timings = self._time_configs(pruned, failures, args, kwargs, nargs, grid)
        self.bench_time = time.perf_counter() - start
        self.configs_timings = timings
        self.configs_failures = failures
        if verbose:
            lines = [f"tilec autotuning for '{self.__name__}' with key {key}:"]
            for c, t in timings.items():
                what = f"{t:.4f} ms" if c not in failures else f"inf (failed: {failures[c]})"
                lines.append(f"  {c}: {what}")
        compile_errors = {c: w for c, w in failures.items() if w.startswith("CompilationError")}
        if compile_errors and not verbose:
            warnings.warn(f"autotune: {len(compile_errors)} config(s) of '{self.__name__}' "
                          "failed to compile and were skipped: " +
                          "; ".join(f"[{c}] {w}" for c, w in compile_errors.items()),
                          stacklevel=4)
        if all(t == float("inf") for t in timings.values()):
            raise OutOfResources(f"autotune: no config of '{self.__name__}' compiles and fits "
                                 "the device: " +
                                 "; ".join(f"[{c}] {w}" for c, w in failures.items()))
        config = builtins.min(timings, key=timings.get)
        if verbose:
            lines.append(f"  finished after {self.bench_time:.2f} s; best config: {config}")
            print("\n".join(lines), flush=True)
        if entry is not None:
            _tunecache.store(entry, {
                "kernel": self.__name__, "key": repr(key),
                "best": self.configs.index(config), "best_config": str(config),
                "configs_timings": [[str(c), t] for c, t in timings.items()],
                "bench_time": self.bench_time})
        # the timed runs wrote into these: the real launch starts from zero again
        all_args = {**nargs, **kwargs}
        for name in self.reset_to_zero:
            _zero(all_args[name])
        return config

    def _from_disk(self, data):
        """The best config a disk-cache entry names, if it still matches self.configs."""
        if not data:
            return None
        i = data.get("best")
        if not isinstance(i, int) or not 0 <= i < len(self.configs) or \
                str(self.configs[i]) != data.get("best_config"):
            return None
        by_str = {str(c): c for c in self.configs}
        timings = {}
        for s, t in data.get("configs_timings", []):
            if s in by_str:
                timings[by_str[s]] = float(t)
        self.configs_timings = timings
        self.configs_failures = {}
        self.bench_time = self.compile_time = 0.0
        self.from_disk_cache = True
        return self.configs[i]

    def run(self, *args, grid, warmup=False, **kwargs):
        if len(args) > len(self.arg_names):
            # let the JITFunction report the arity error
            return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs)
        nargs = dict(zip(self.arg_names, args))
        self.nargs = nargs
        all_args = {**nargs, **kwargs}
        key = self._key(all_args)
        config = self.cache.get(key)
        if config is None:
            if len(self.configs) == 1:
                config = self.configs[0]
            else:
                config = self._tune(key, args, kwargs, nargs, grid)
            self.cache[key] = config
        self.best_config = config
        self._check_conflicts(kwargs, config)
        if config.pre_hook is not None and not warmup:
            config.pre_hook({**nargs, **kwargs, **config.all_kwargs()})
        return self.fn.run(*args, grid=grid, warmup=warmup, **kwargs, **config.all_kwargs())

    def warmup(self, *args, grid, **kwargs):
        return self.run(*args, grid=grid, warmup=True, **kwargs)


def _first_line(e) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


def _call_user_bench(bench, fn, warmup, rep, quantiles):
    """A do_bench given to autotune: Triton's take (fn, quantiles); older ones warmup/rep."""
    try:
        params = inspect.signature(bench).parameters
    except (TypeError, ValueError):
        params = {}
    kw = {"quantiles": quantiles}
    if "warmup" in params:
        kw["warmup"] = warmup
    if "rep" in params:
        kw["rep"] = rep
    return bench(fn, **kw)


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None,
             pre_hook=None, post_hook=None, warmup=None, rep=None, use_cuda_graph=False,
             do_bench=None, cache_results=False):
    """Decorator: try each Config on the first launch per key and keep the fastest."""

    def decorator(fn):
        if not isinstance(fn, KernelInterface):
            raise TypeError("@autotune must decorate a @jit function (put @jit below it)")
        return Autotuner(fn, fn.jit_function.arg_names, configs, key, reset_to_zero,
                         restore_value, pre_hook=pre_hook, post_hook=post_hook,
                         prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench,
                         cache_results=cache_results)

    return decorator


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values):
        self.fn = fn
        self.arg_names = list(arg_names)
        self.values = dict(values)
        self.__name__ = getattr(fn, "__name__", "kernel")

    def run(self, *args, **kwargs):
        for name, heur in self.values.items():
            kwargs[name] = heur({**dict(zip(self.arg_names, args)), **kwargs})
        return self.fn.run(*args, **kwargs)


def heuristics(values):
    """Decorator: compute meta-parameters from the arguments, e.g.
    `@heuristics(values={'BLOCK': lambda args: 128 if args['n'] < 4096 else 1024})`."""

    def decorator(fn):
        if not isinstance(fn, KernelInterface):
            raise TypeError("@heuristics must decorate a @jit function (put @jit below it)")
        return Heuristics(fn, fn.jit_function.arg_names, values)

    return decorator
