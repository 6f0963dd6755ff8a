"""`tl.extra.cuda`: the GPU's global timer and SM id, the launch's thread and warp counts,
grid dependency control for programmatic dependent launch (`gdc_wait`,
`gdc_launch_dependents`; launch with `launch_pdl=True`), Triton's fp8e4b15 conversions
(`convert_custom_float8_sm80` / `_sm70`), and the libdevice module.
Host-side stubs: the C++ front end implements them (docs/LANGUAGE.md); their names come
from its builtin table (prefix "cuda.")."""

from ... import _stubs
from . import libdevice

_stubs.install(globals(), _stubs.prefixed_names("cuda."), "cuda.")

__all__ = [n for n in globals() if not n.startswith("_")]
