// A compiled GPU kernel as the runtime keeps it: PTX, cubin and the metadata a launch
// needs (entry name, warps, dynamic shared memory, the .param list). The disk cache
// stores the metadata as a small JSON object.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simt/TensorMap.h"

namespace tilec::runtime {

// How one kernel parameter travels in the cuLaunchKernel parameter array. Every value is
// packed into an 8-byte slot, integers sign- or zero-extended, floats in their own format
// in the low bytes: a PTX .param of any width up to 8 bytes reads the right value.
// TensorMap: a host descriptor's 128-byte TMA map (runtime/TensorMap.h), passed by value;
// its KernelParam carries the box ("tmap:<tma_box_text>" in metadata).
// Scratch: the address of global scratch memory that the launch allocates, scratch_bytes
// per program ("scratch:<bytes>"; the tensor maps a kernel builds); no @jit parameter.
enum class ParamKind : uint8_t {
  Ptr,
  I1,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64,
  TensorMap,
  Scratch
};

// "ptr", "i1", "i32", "u64", "fp16", "bf16", "fp32", "fp64", ... (Tile IR dtype names).
const char *param_kind_name(ParamKind k);
std::optional<ParamKind> param_kind_from_name(std::string_view name);
bool param_kind_is_int(ParamKind k);
bool param_kind_is_signed(ParamKind k);
int param_kind_bits(ParamKind k);

struct KernelParam {
  KernelParam() = default;
  KernelParam(std::string n, ParamKind k, simt::TmaBox box = {})
      : name(std::move(n)), kind(k), tma_box(box) {}
  std::string name; // the @jit parameter it comes from
  ParamKind kind = ParamKind::Ptr;
  simt::TmaBox tma_box;      // TensorMap: the box of the kernel's copies (parsed once, at load)
  int64_t scratch_bytes = 0; // Scratch: bytes per program
  bool operator==(const KernelParam &) const = default;
};

// A parameter from its name and kind text ("ptr", "i32", ..., "tmap:b2x64x64s128",
// "scratch:256");
// nullopt for a kind the runtime cannot pass.
std::optional<KernelParam> kernel_param(std::string name, std::string_view kind);
// The kind text of `p` (kernel_param's inverse).
std::string kernel_param_kind_text(const KernelParam &p);

struct KernelMetadata {
  std::string name;  // the PTX .entry
  int num_warps = 4; // block = 32 * num_warps threads (a warp-specialised kernel's producer
                     // warps included)
  int num_stages = 3;
  int shared = 0;                  // dynamic shared memory bytes, passed at every launch
  std::string arch;                // "sm_90a"
  std::vector<KernelParam> params; // the .param list, in order
  std::string compiler;            // what built the cubin (ptxas path, or the driver JIT)

  std::string to_json() const;
  // Throws std::runtime_error on text that is not metadata this version wrote.
  static KernelMetadata from_json(std::string_view text);
  bool operator==(const KernelMetadata &) const = default;
};

// The global scratch bytes per program a kernel's launches allocate (0: none).
int64_t scratch_bytes_per_program(const KernelMetadata &meta);

struct KernelBinary {
  KernelMetadata meta;
  std::string ptx;
  std::string cubin; // may be empty: the driver then JIT-compiles the PTX at load
};

} // namespace tilec::runtime
