// TMA tensor maps: what a `cp.async.bulk.tensor` copy reads of its tensor-map operand.
//
// On a GPU the tensor map is the driver's opaque 128-byte CUtensorMap
// (runtime/TensorMap.h encodes it with cuTensorMapEncodeTiled). The SIMT simulator cannot
// read that format, so kernels it runs take this one instead: the same fields, written
// by tilec (sim_tensor_map) and read by the simulator's copy. A kernel's code is the
// same either way: the map is a 128-byte, 64-byte-aligned .param whose generic address
// (cvta.param) the copy takes.
//
// Dims are innermost first, as in the PTX coordinates {c0, c1, ...} and the driver's
// arguments (a descriptor's block_shape and offsets are outermost first).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tilec::simt {

inline constexpr int kTensorMapBytes = 128;
inline constexpr int kTensorMapAlign = 64;
inline constexpr int kTensorMapMaxRank = 5;
inline constexpr int kTensorMapMaxBox = 256; // the hardware's limit on each box dim

// What a kernel's copies fix of one map: the box (elements along each dim, outermost
// first, as a descriptor's block_shape), the shared-memory swizzle and the padding of
// reads outside the tensor. The launch supplies the tensor (runtime/TensorMap.h).
struct TmaBox {
  int rank = 0;
  int32_t box[kTensorMapMaxRank] = {};
  int swizzle_bytes = 0; // 0, 32, 64 or 128
  bool nan_fill = false; // padding="nan" (float elements only)
  bool operator==(const TmaBox &) const = default;
};

// "b2x64x64s128" (rank, box, swizzle, 'n' when nan_fill): how kernel metadata carries a
// TmaBox; parse_tma_box reads it back (false on malformed text).
std::string tma_box_text(const TmaBox &b);
bool parse_tma_box(std::string_view text, TmaBox &out);

struct SimTensorMap {
  static constexpr uint32_t kMagic = 0x50414d54; // "TMAP"
  uint32_t magic = kMagic;
  uint8_t rank = 0;                         // 1..5
  uint8_t elem_bytes = 0;                   // 1, 2, 4 or 8
  uint8_t swizzle_bytes = 0;                // 0 (none), 32, 64 or 128: the shared-memory swizzle
  uint8_t nan_fill = 0;                     // 1: out-of-bounds float elements read NaN, else 0
  uint64_t base = 0;                        // global address of element (0, ..., 0)
  uint64_t dims[kTensorMapMaxRank] = {};    // elements
  uint64_t strides[kTensorMapMaxRank] = {}; // bytes; strides[0] = elem_bytes
  uint32_t box[kTensorMapMaxRank] = {};     // elements of one copy along each dim
  uint32_t reserved[3] = {};
};
static_assert(sizeof(SimTensorMap) == kTensorMapBytes, "a tensor map is 128 bytes");

} // namespace tilec::simt
