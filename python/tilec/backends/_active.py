"""The active driver: `triton.runtime.driver.active` (the object `driver` below; runtime/driver.py
shows it under Triton's name). It lives beside the registry of back ends it chooses from, so
that the compiler (`triton.compile` with no target compiles for the active driver's) reaches
it without importing the runtime package, which imports the @jit machinery and the compiler."""

from __future__ import annotations

from . import backends
from .cpu import CpuDriver
from .driver import DriverBase


def _create_driver() -> DriverBase:
    """The first active driver: CUDA's when a GPU is found, else the CPU's (always active;
    registered last)."""
    for b in backends.values():
        if b.driver.is_active():
            return b.driver()
    return CpuDriver()


class DriverConfig:
    """`driver.active` (chosen at first use), `driver.default`, `set_active`, `reset_active`."""

    def __init__(self):
        self._default = None
        self._active = None

    @property
    def default(self) -> DriverBase:
        if self._default is None:
            self._default = _create_driver()
        return self._default

    @property
    def active(self) -> DriverBase:
        return self._active if self._active is not None else self.default

    def set_active(self, driver) -> None:
        self._active = driver

    def reset_active(self) -> None:
        self._active = None


driver = DriverConfig()

__all__ = ["driver", "DriverConfig"]
