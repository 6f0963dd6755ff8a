"""`CompiledKernel`, the base of every compiled kernel tilec returns (Triton's
`triton.compiler.CompiledKernel`): `HostKernel` (compiler/host.py: the tile interpreter,
the SIMT simulator) and `GpuCompiledKernel` (_gpu.py). Each has `name`, `function` (the @jit
function, None for some ahead-of-time kernels), `metadata`, `asm`; `kernel[grid](*args)`
launches it as Triton's tutorials launch a kernel they compiled with `warmup`."""

from __future__ import annotations


class LazyDict:
    """Triton's launch metadata: a dict whose extra entries are computed when read."""

    def __init__(self, data: dict):
        self.data = data
        self.extras = []

    def add(self, func, args) -> None:
        self.extras.append((func, args))

    def get(self) -> dict:
        for func, args in self.extras:
            self.data = self.data | func(*args)
        self.extras.clear()
        return self.data


class CompiledKernel:
    function = None
    src = None  # the ASTSource of a kernel made by triton.compile
    hash = None

    def _launch_options(self) -> dict:
        """The launch options (num_warps, ...) the kernel was compiled with."""
        raise NotImplementedError

    def __getitem__(self, grid):
        return launcher(self, grid)

    def _init_handles(self):
        """Triton loads the module here (before n_regs / n_spills are read)."""

    def launch_metadata(self, grid, stream, *args) -> LazyDict:
        """What Triton's launch hooks receive: name and stream, and what the @jit function's
        `launch_metadata` callback adds."""
        out = LazyDict({"name": self.name, "function": self.function, "stream": stream})
        fn = self.function
        if fn is not None and getattr(fn, "launch_metadata", None) is not None:
            out.add(fn.launch_metadata, (grid, self.metadata, dict(zip(fn.arg_names, args))))
        return out

    def __repr__(self):
        return f"CompiledKernel({self.name}, {self.metadata.target})"


def launcher(kernel: CompiledKernel, grid):
    """`compiled[grid](*args)`: every @jit argument positionally (constexprs included), run
    with the options the kernel was compiled with through the @jit function's own launch
    (which finds this compilation in its cache when the arguments specialise alike)."""
    jitfn = kernel.function
    if jitfn is None:
        raise TypeError(f"{kernel!r} was compiled ahead of time: launch it through its @jit "
                        "function")
    options = {k: v for k, v in kernel._launch_options().items() if k not in jitfn._index}

    def run(*args, stream=None, **kwargs):
        if stream is not None:
            kwargs["stream"] = stream
        return jitfn.run(*args, grid=grid, warmup=False, **{**options, **kwargs})

    return run


__all__ = ["CompiledKernel", "LazyDict", "launcher"]
