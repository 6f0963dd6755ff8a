"""`triton.language.extra.cuda.libdevice`: the same functions as
`tilec.language.extra.libdevice` (one list, re-exported)."""

from ..libdevice import *  # noqa: F401,F403
from ..libdevice import __all__  # noqa: F401
