"""`tl.extra.cuda`: only its libdevice module exists in tilec."""

from . import libdevice

__all__ = ["libdevice"]
