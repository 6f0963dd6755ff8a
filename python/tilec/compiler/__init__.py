"""`triton.compiler`: compiled kernels and `compile`.

- kernel.py: `CompiledKernel`, the base of every compiled kernel (`launcher`, `LazyDict`);
- host.py: `HostKernel` and `compile_kernel`, what a launch with host arrays compiles (the
  tile interpreter; TILEC_SIMT=1: the SIMT simulator);
- gpu.py: `GpuCompiledKernel` and compiling for a GPU: a launch's specialisation (for the
  launch path, _gpu.py), triton.compile's, and tilec.compile's ahead-of-time form;
- compiler.py: Triton's ahead-of-time entry point, `compile(ASTSource(...), target,
  options)`, on tilec's (`tilec.compile(fn, signature, ...)`, the same function);
- errors.py: the compile errors under Triton's module name."""

from . import compiler, errors
from .compiler import (ASTSource, IRSource, compile, get_cache_key, make_backend,
                       triton_key)
from .errors import CompilationError, CompileTimeAssertionFailure, UnsupportedLanguageConstruct
from .host import HostKernel, compile_kernel
from .kernel import CompiledKernel, LazyDict, launcher

__all__ = ["compile", "make_backend", "ASTSource", "IRSource", "CompiledKernel",
           "CompilationError", "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct",
           "LazyDict", "get_cache_key", "triton_key", "HostKernel", "compile_kernel", "launcher",
           "compiler", "errors"]
