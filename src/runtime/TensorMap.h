// The tensor maps of TMA copies (cp.async.bulk.tensor): a kernel compiled with TMA takes,
// for each host TensorDescriptor it copies through TMA, one 128-byte .param (the map)
// beside the descriptor's parts. The kernel fixes the box and swizzle (TmaBox, in its
// metadata); the launch supplies the tensor (TmaTensor, from the argument) and encodes the
// map: the driver's CUtensorMap on a GPU, simt::SimTensorMap for the SIMT simulator.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "simt/TensorMap.h"

namespace tilec::runtime {

inline constexpr int kMaxTmaRank = simt::kTensorMapMaxRank;
inline constexpr int kMaxTmaBoxDim = simt::kTensorMapMaxBox;

// What a kernel's copies fix of the map (box, swizzle, NaN fill): simt/TensorMap.h.
using simt::parse_tma_box;
using simt::tma_box_text;
using simt::TmaBox;

// The tensor of one launch: a TensorDescriptor argument's fields, outermost first,
// strides in elements (the last one 1).
struct TmaTensor {
  uint64_t base = 0;
  std::string_view dtype; // an ir dtype name ("fp16", "i32", ...)
  int elem_bytes = 0;
  int rank = 0;
  int64_t shape[kMaxTmaRank] = {}, strides[kMaxTmaRank] = {};
};

struct alignas(simt::kTensorMapAlign) TensorMapBytes {
  uint8_t bytes[simt::kTensorMapBytes] = {};
};

// What keeps `t` and `b` from making a tensor map (TMA's rules: 16-byte aligned base and
// strides, strides under 2^40 bytes, boxes of at most 256 per dim whose innermost row is
// a multiple of 16 bytes and fits the swizzle); "" when they can. `where` starts the text.
std::string tensor_map_error(const TmaTensor &t, const TmaBox &b, std::string_view where);

// The driver's tensor map (cuTensorMapEncodeTiled, CUDA 12.0 on); throws CudaError (or
// RuntimeError for a tensor_map_error) naming `where`.
void encode_tensor_map(const TmaTensor &t, const TmaBox &b, std::string_view where,
                       TensorMapBytes &out);

// The SIMT simulator's map of the same tensor and box; throws RuntimeError as above.
void encode_sim_tensor_map(const TmaTensor &t, const TmaBox &b, std::string_view where,
                           TensorMapBytes &out);

} // namespace tilec::runtime
