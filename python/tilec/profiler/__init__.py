"""A profiler with Proton's interface (`import triton.profiler as proton` under the drop-in
switch, or `import tilec.profiler as proton`):

    session = proton.start("matmul", hook="triton")   # NAME.hatchet on finalize
    with proton.scope("fp16", {"flops16": 2 * M * N * K, "bytes": ...}):
        matmul(a, b)
    proton.finalize()
    # python -m tilec.profiler.viewer -m time/ms,tflop/s matmul.hatchet

Every launch while a session is active is timed (GPU: CUDA events on its stream; CPU
executor: wall time) under the open scopes; `hook="triton"` adds the metrics a kernel's
`launch_metadata` returns. `activate`/`deactivate` pause recording, `finalize` writes the
tree (or a Chrome trace: `data="trace"` / `output_format="chrome_trace"`). While a session
is active, GPU launches keep the C++ fast path: two CUDA events recorded around each, read
at `finalize` (only kernels with a `launch_metadata` callback under `hook="triton"` go
through Python, to call it)."""

from ._profile import (DEFAULT_PROFILE_NAME, activate, deactivate, finalize, profile,
                       start)
from ._scope import cpu_timed_scope, enter_scope, exit_scope, scope

__all__ = ["DEFAULT_PROFILE_NAME", "activate", "cpu_timed_scope", "deactivate", "enter_scope",
           "exit_scope", "finalize", "profile", "scope", "start", "viewer"]


def __getattr__(name):  # `proton.viewer` loads on first use (`python -m` runs it fresh)
    if name == "viewer":
        import importlib

        return importlib.import_module(".viewer", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
