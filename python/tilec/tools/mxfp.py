"""`triton.tools.mxfp`: host tensors of the OCP microscaling formats, for building the
operands of `tl.dot_scaled` and checking its results.

- `MXFP4Tensor`: E2M1 values (4 bits: sign, 2 exponent bits with bias 1, 1 mantissa bit;
  no infinities or NaNs), one per uint8 in `.data`, packed two per byte on request;
- `MXScaleTensor`: E8M0 scales (an 8-bit biased exponent: 2**(code - 127); 255 is NaN).

Both hold torch tensors (torch is needed to use this module)."""

from __future__ import annotations

import torch

# E2M1 magnitudes by their 3 low bits (exponent << 1 | mantissa)
_E2M1 = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
# the midpoints between neighbouring magnitudes: a value on one rounds to the code with an
# even mantissa (round to nearest, ties to even)
_E2M1_MIDPOINTS = (0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0)
_E8M0_BIAS = 127
_E8M0_NAN = 255


class MXFP4Tensor:
    """E2M1 values: from float32 `data` (rounded to nearest, ties to even; beyond 6 and
    Inf/NaN clamp to +-6), or of shape `size` to fill with `random()`."""

    def __init__(self, data=None, size=None, device=None):
        self.device = device
        if data is not None:
            if not isinstance(data, torch.Tensor):
                raise TypeError("MXFP4Tensor: data must be a torch tensor of float32 values")
            self.device = data.device
            self.data = self._from_float(data)
        elif size is not None:
            self.size = size if isinstance(size, tuple) else (size,)
        else:
            raise ValueError("MXFP4Tensor: pass data or size")

    def random(self) -> "MXFP4Tensor":
        """Every one of the 16 codes equally likely."""
        self.data = torch.randint(0, 16, size=self.size, dtype=torch.uint8, device=self.device)
        return self

    def to(self, dtype) -> torch.Tensor:
        """The values as float32 (the only dtype offered, as in Triton); -0.0 stays -0.0."""
        if dtype != torch.float32:
            raise ValueError("MXFP4Tensor.to: only torch.float32 is supported")
        table = torch.tensor(_E2M1, dtype=torch.float32, device=self.data.device)
        mag = table[(self.data & 0x7).long()]
        return torch.where((self.data & 0x8) != 0, -mag, mag)

    def _from_float(self, values: torch.Tensor) -> torch.Tensor:
        sign = torch.signbit(values).to(torch.uint8)
        mag = values.abs().to(torch.float32)
        mag = torch.where(torch.isnan(mag) | torch.isinf(mag), torch.full_like(mag, 6.0), mag)
        mids = torch.tensor(_E2M1_MIDPOINTS, dtype=torch.float32, device=mag.device)
        code = torch.bucketize(mag, mids, right=True)  # the upper code on a midpoint
        prev = mids[(code - 1).clamp(min=0)]
        on_mid = (code > 0) & (mag == prev)
        code = torch.where(on_mid & (code % 2 == 1), code - 1, code)  # ties to even mantissa
        return ((sign << 3) | code.to(torch.uint8)).to(torch.uint8)

    def to_packed_tensor(self, dim: int) -> torch.Tensor:
        """Two codes per byte along `dim` (element 2i in the low nibble, 2i + 1 in the high
        one); an odd length is padded with a zero code."""
        data = self.data
        if not 0 <= dim < data.ndim:
            raise ValueError(f"to_packed_tensor: dim {dim} is not a dimension of a "
                             f"{data.ndim}-d tensor")
        if data.size(dim) % 2:
            pad = [0] * (2 * data.ndim)
            pad[2 * (data.ndim - 1 - dim) + 1] = 1
            data = torch.nn.functional.pad(data, pad, value=0)
        shape = list(data.shape)
        shape[dim] //= 2
        shape.insert(dim + 1, 2)
        pairs = data.reshape(shape)
        return (pairs.select(dim + 1, 1) << 4) | pairs.select(dim + 1, 0)

    def unpack_packed_tensor(self, packed_tensor, dim: int, original_shape) -> torch.Tensor:
        """The codes of a tensor packed by to_packed_tensor, one per uint8, cut to
        `original_shape[dim]` along `dim`."""
        both = torch.stack((packed_tensor & 0xF, (packed_tensor >> 4) & 0xF), dim=dim + 1)
        shape = list(both.shape)
        data = both.reshape(shape[:dim] + [shape[dim] * 2] + shape[dim + 2:])
        if original_shape[dim] % 2:
            data = data.narrow(dim, 0, original_shape[dim])
        return data.to(torch.uint8)


class MXScaleTensor:
    """E8M0 scales: from float32 `data` (2**floor(log2(v)); v <= 0, Inf and NaN become the
    NaN code), or of shape `size` to fill with `random(low, high)`."""

    def __init__(self, data=None, size=None, device=None):
        self.device = device
        if data is not None:
            if not isinstance(data, torch.Tensor):
                raise TypeError("MXScaleTensor: data must be a torch tensor of float32 values")
            self.device = data.device
            self.data = self._from_float(data)
        elif size is not None:
            self.size = size if isinstance(size, tuple) else (size,)
        else:
            raise ValueError("MXScaleTensor: pass data or size")

    def random(self, low=None, high=None) -> "MXScaleTensor":
        """Codes drawn uniformly from the exponents of [low, high] (log2 truncated toward
        zero, as Triton does), never the NaN code."""
        lo = 0 if low is None else max(0, int(torch.log2(torch.tensor(low))) + _E8M0_BIAS)
        hi = 254 if high is None else \
            min(254, max(0, int(torch.log2(torch.tensor(high))) + _E8M0_BIAS))
        if lo > hi:
            raise ValueError("MXScaleTensor.random: low must not exceed high")
        self.data = torch.randint(lo, hi + 1, size=self.size, dtype=torch.uint8,
                                  device=self.device)
        return self

    def to(self, dtype) -> torch.Tensor:
        if dtype != torch.float32:
            raise ValueError("MXScaleTensor.to: only torch.float32 is supported")
        e = self.data.to(torch.float32)
        value = torch.pow(2.0, e - _E8M0_BIAS)
        return torch.where(self.data == _E8M0_NAN, torch.full_like(value, float("nan")), value)

    def _from_float(self, values: torch.Tensor) -> torch.Tensor:
        bad = torch.isnan(values) | torch.isinf(values) | (values <= 0)
        safe = torch.where(bad, torch.ones_like(values), values).to(torch.float32)
        e = (torch.floor(torch.log2(safe)) + _E8M0_BIAS).clamp(0, 254).to(torch.uint8)
        return torch.where(bad, torch.full_like(e, _E8M0_NAN), e)


__all__ = ["MXFP4Tensor", "MXScaleTensor"]
