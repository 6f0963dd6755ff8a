#include "runtime/TensorMap.h"

#include <cstring>

#include "runtime/Driver.h"
#include "support/Diagnostics.h"

namespace tilec::runtime {

namespace {

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// cuda.h's CUtensorMapDataType for an ir dtype: the float formats the fill can make NaN
// of, else the unsigned / signed integer of the element's width (fp8: bytes).
int driver_dtype(std::string_view dtype, int elem_bytes) {
  if (dtype == "fp16")
    return 6;
  if (dtype == "bf16")
    return 9;
  if (dtype == "fp32")
    return 7;
  if (dtype == "fp64")
    return 8;
  if (dtype == "i32")
    return 3;
  if (dtype == "i64")
    return 5;
  switch (elem_bytes) {
  case 1:
    return 0; // UINT8
  case 2:
    return 1; // UINT16
  case 4:
    return 2; // UINT32
  default:
    return 4; // UINT64
  }
}

bool nan_capable(std::string_view dtype) {
  return dtype == "fp16" || dtype == "bf16" || dtype == "fp32" || dtype == "fp64";
}

// cuTensorMapEncodeTiled(map, dtype, rank, base, dims, strides, box, elementStrides,
// interleave, swizzle, l2Promotion, oobFill)
using EncodeFn = CUresult (*)(void *, int, uint32_t, void *, const uint64_t *, const uint64_t *,
                              const uint32_t *, const uint32_t *, int, int, int, int);

// The map's fields as the hardware lists them (innermost first, strides in bytes): the
// simulator's map itself, and the arrays cuTensorMapEncodeTiled takes.
simt::SimTensorMap innermost_first(const TmaTensor &t, const TmaBox &b) {
  simt::SimTensorMap m;
  m.rank = static_cast<uint8_t>(t.rank);
  m.elem_bytes = static_cast<uint8_t>(t.elem_bytes);
  m.swizzle_bytes = static_cast<uint8_t>(b.swizzle_bytes);
  m.nan_fill = b.nan_fill ? 1 : 0;
  m.base = t.base;
  for (int i = 0; i < t.rank; ++i) {
    int j = t.rank - 1 - i;
    m.dims[i] = static_cast<uint64_t>(t.shape[j]);
    m.strides[i] = static_cast<uint64_t>(t.strides[j] * t.elem_bytes);
    m.box[i] = static_cast<uint32_t>(b.box[j]);
  }
  return m;
}

int swizzle_code(int bytes) { return bytes == 128 ? 3 : bytes == 64 ? 2 : bytes == 32 ? 1 : 0; }

} // namespace

std::string tensor_map_error(const TmaTensor &t, const TmaBox &b, std::string_view where) {
  std::string w(where);
  if (t.rank < 1 || t.rank > kMaxTmaRank || t.rank != b.rank)
    return w + ": a tensor of rank " + std::to_string(t.rank) + " for a TMA box of rank " +
           std::to_string(b.rank);
  if (!is_pow2(t.elem_bytes) || t.elem_bytes > 8)
    return w + ": elements of " + std::to_string(t.elem_bytes) + " bytes";
  if (t.base % 16)
    return w + ": the base must be 16-byte aligned for TMA";
  for (int i = 0; i < t.rank; ++i) {
    if (t.shape[i] < 1 || t.shape[i] > (int64_t{1} << 32))
      return w + ": shape[" + std::to_string(i) + "] = " + std::to_string(t.shape[i]) +
             " is outside TMA's [1, 2**32]";
    if (b.box[i] < 1 || b.box[i] > kMaxTmaBoxDim)
      return w + ": a TMA box dim of " + std::to_string(b.box[i]);
  }
  for (int i = 0; i + 1 < t.rank; ++i) {
    int64_t bytes = t.strides[i] * t.elem_bytes;
    if (bytes <= 0 || bytes % 16 || bytes >= (int64_t{1} << 40))
      return w +
             ": TMA needs strides that are positive multiples of 16 bytes under 2**40; "
             "stride " +
             std::to_string(i) + " is " + std::to_string(t.strides[i]) + " elements";
  }
  if (t.strides[t.rank - 1] != 1)
    return w + ": the last dimension must be contiguous";
  int64_t row = int64_t{b.box[b.rank - 1]} * t.elem_bytes;
  if (row % 16)
    return w + ": the TMA box's innermost dim must span a multiple of 16 bytes";
  if (b.swizzle_bytes && row > b.swizzle_bytes)
    return w + ": the TMA box's innermost dim spans more than its " +
           std::to_string(b.swizzle_bytes) + "-byte swizzle";
  if (b.nan_fill && !nan_capable(t.dtype))
    return w + ": NaN padding through TMA needs fp16, bf16, fp32 or fp64 elements";
  return "";
}

void encode_tensor_map(const TmaTensor &t, const TmaBox &b, std::string_view where,
                       TensorMapBytes &out) {
  std::string err = tensor_map_error(t, b, where);
  if (!err.empty())
    throw RuntimeError(err);
  static EncodeFn fn = reinterpret_cast<EncodeFn>(optional_symbol("cuTensorMapEncodeTiled"));
  if (!fn)
    throw RuntimeError(std::string(where) +
                       ": this CUDA driver has no cuTensorMapEncodeTiled (CUDA 12.0 or newer "
                       "is needed for TMA)");
  simt::SimTensorMap m = innermost_first(t, b);
  uint32_t estr[kMaxTmaRank] = {1, 1, 1, 1, 1};
  CUresult r = fn(out.bytes, driver_dtype(t.dtype, t.elem_bytes), static_cast<uint32_t>(t.rank),
                  reinterpret_cast<void *>(t.base), m.dims, m.strides + 1, m.box, estr,
                  /*interleave*/ 0, swizzle_code(b.swizzle_bytes), /*L2 promotion 128B*/ 2,
                  b.nan_fill ? 1 : 0);
  if (r != CUDA_SUCCESS)
    throw_cuda_error(r, "cuTensorMapEncodeTiled", {},
                     std::string(where) + " (box " + tma_box_text(b) + ")");
}

void encode_sim_tensor_map(const TmaTensor &t, const TmaBox &b, std::string_view where,
                           TensorMapBytes &out) {
  std::string err = tensor_map_error(t, b, where);
  if (!err.empty())
    throw RuntimeError(err);
  simt::SimTensorMap m = innermost_first(t, b);
  std::memcpy(out.bytes, &m, sizeof m);
}

} // namespace tilec::runtime
