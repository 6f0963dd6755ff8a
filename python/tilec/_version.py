"""The two versions tilec reports: `tilec.__version__` (and so `triton.__version__`) is the
Triton release whose language and Python surface tilec follows, since libraries check it
to pick code paths; `tilec.__tilec_version__` is tilec's own (the C++ build's)."""

from . import _C

TRITON_VERSION = "3.6.0"
TILEC_VERSION = _C.__version__
