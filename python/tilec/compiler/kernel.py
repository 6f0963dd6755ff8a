"""`CompiledKernel`, the base of every compiled kernel tilec returns (Triton's
`triton.compiler.CompiledKernel`): `HostKernel` (compiler/host.py: the tile interpreter,
the SIMT simulator) and `GpuCompiledKernel` (gpu.py). Each has `name`, `function` (the @jit
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

    @property
    def _native(self):
        """The C++ kernel (kept in `module`, the attribute Inductor clears for a move)."""
        return self.module

    def portable(self):
        """Makes the kernel's __dict__ ready to be sent to another process (as Inductor's
        compile workers send it); kernels that cannot move say so in _init_handles."""

    def _restore_handles(self):
        """After a move between processes: the method `run` (not the None Inductor left in
        its place) and the @jit function as `function`."""
        if "run" in self.__dict__ and self.__dict__["run"] is None:
            del self.__dict__["run"]
        if self.__dict__.get("function") is None and self.src is not None:
            self.function = self.src.fn

    def run(self, grid_0, grid_1, grid_2, stream, function, metadata, launch_metadata,
            launch_enter_hook, launch_exit_hook, *args):
        """Triton's launcher entry (what Inductor's generated launchers call): `args` are
        every @jit parameter in order, constexprs included (their values are ignored: this
        kernel was compiled with them)."""
        if launch_enter_hook is not None:
            launch_enter_hook(launch_metadata)
        self._launch_args((grid_0, grid_1, grid_2), stream, args)
        if launch_exit_hook is not None:
            launch_exit_hook(launch_metadata)

    def _launch_args(self, grid, stream, args):
        raise NotImplementedError(f"{type(self).__name__} has no launcher")

    def _init_handles(self):
        """Triton loads the module here (before n_regs / n_spills are read). Inductor moves
        a kernel between processes as its `__dict__` (with `module`, `function` and `run`
        set to None) and rebuilds it as a bare CompiledKernel: the class it was is in
        `_class`, and that class's _init_handles reloads the module."""
        cls = self.__dict__.get("_class")
        if type(self) is CompiledKernel and cls is not None and cls is not CompiledKernel:
            self.__class__ = cls
            self._init_handles()

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
