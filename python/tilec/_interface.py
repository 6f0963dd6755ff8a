"""`KernelInterface`, what `kernel[grid]` means for @jit, @autotune and @heuristics objects
alike, and `Variant`, what `compiled_variants()` lists.

A leaf module: argument classification (_args.py) and source building (_sources.py) ask
whether a value is a kernel (`isinstance(v, KernelInterface)`: a @jit function passed as a
constexpr or named by a kernel's globals), and jit.py, which defines JITFunction, imports
them."""

from __future__ import annotations

import collections
import functools

from ._tensors import MockTensor

Variant = collections.namedtuple("Variant", "target specialization options kernel")


class KernelInterface:
    """What `kernel[grid]` means for @jit, @autotune and @heuristics objects alike. A
    wrapper (@autotune, @heuristics) holds what it wraps in `fn`; JITFunction, at the
    bottom, is its own `jit_function`."""

    def __getitem__(self, grid):
        return functools.partial(self.run, grid=grid, warmup=False)

    @property
    def jit_function(self):
        """The @jit function under the wrappers."""
        return self.fn.jit_function

    def warmup(self, *args, grid, **kwargs):
        """Compiles for these arguments (as a launch would) without running; returns the
        CompiledKernel. A torch dtype stands for a tensor of that dtype (a MockTensor)."""
        return self.run(*map(MockTensor.wrap_dtype, args), grid=grid, warmup=True, **kwargs)

    def compiled_variants(self) -> list:
        """Every compiled specialisation of the kernel, on the CPU and on GPUs, as
        Variant(target, specialization, options, kernel) tuples (oldest first)."""
        jit = self.jit_function
        out = []
        for (keys, options), k in jit.cache.items():
            out.append(Variant("cpu", _describe_keys(jit, keys), options._asdict(), k))
        for (keys, options, arch), k in jit.__dict__.get("_gpu_kernels", {}).items():
            out.append(Variant(arch, _describe_keys(jit, keys), options._asdict(), k))
        return out


def _describe_keys(jit, keys) -> dict:
    """{parameter: its specialisation key} (dtypes, alignment, constexpr values)."""
    return dict(zip(jit.arg_names, keys))


__all__ = ["KernelInterface", "Variant"]
