// The specialisation rules of a launch's int and tensor-descriptor arguments, written once:
// the launch fast path keys launches with them (python/src/GpuDispatchKey.cpp), and the
// Python launch paths (tilec/_args.py: a GPU launch's miss, the CPU interpreter) call them
// through _C (int_spec, descriptor_key), so the kernel compiled on a miss is the one the fast
// path finds next time and both report the same errors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tilec::runtime {

// An int argument's kernel type: i32 when the value fits, else i64, else u64 (values in
// [2^63, 2^64)).
enum class IntKind : uint8_t { I32, I64, U64 };
const char *int_kind_name(IntKind k); // "i32", "i64", "u64"

// What an int argument specialises on (Triton's rules): its type and, unless the parameter
// is do_not_specialize, whether the value is a multiple of 16 and whether it is 1.
struct IntSpec {
  IntKind kind = IntKind::I32;
  bool div16 = false;
  bool one = false;
};
// `bits`: the value's 64 bits (two's complement, or the unsigned value when `is_u64`).
IntSpec int_spec(int64_t bits, bool is_u64, bool specialize);

inline constexpr int kMaxDescriptorRank = 5;
inline constexpr int64_t kMaxBlockElements = int64_t{1} << 20;

// A host TensorDescriptor argument (tilec/tools/tensor_descriptor.py) over memory of
// `dtype` (an ir dtype name), its fields as ints.
struct DescriptorFields {
  std::string_view dtype;
  int elem_bytes = 0;
  bool aligned = false; // the base is 16-byte aligned
  int rank = 0;
  int64_t shape[kMaxDescriptorRank] = {}, strides[kMaxDescriptorRank] = {},
          block[kMaxDescriptorRank] = {};
  std::string_view padding; // "zero" or "nan" when valid
};

struct RuleError {
  enum Kind : uint8_t { None, Type, Value } kind = None;
  std::string message;
  explicit operator bool() const { return kind != None; }
};

// Whether a block shape's `n` entries are powers of two with at most kMaxBlockElements
// elements in all (Triton's validate_block_shape); messages start with `what`.
RuleError block_shape_error(const int64_t *block, int n, std::string_view what);

// The first rule `d` breaks, with a message that starts with `where` (for example
// "argument 'desc' (a TensorDescriptor)"); `padding_repr` is how the message shows an
// invalid padding. Kind None when `d` can be passed to a kernel.
RuleError descriptor_error(const DescriptorFields &d, std::string_view where,
                           std::string_view padding_repr);

// What a valid descriptor's kernel depends on beyond dtype, block shape and padding: bit k
// set when shape[k] is a multiple of 16, bit 8 + k when strides[k] is (all but the last
// stride, which is 1).
uint32_t descriptor_divisibility(const DescriptorFields &d);

} // namespace tilec::runtime
