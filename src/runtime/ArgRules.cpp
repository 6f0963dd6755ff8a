#include "runtime/ArgRules.h"

namespace tilec::runtime {

namespace {

std::string list_text(const int64_t *v, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

constexpr int kLog2MaxBlockElements = 20;
static_assert(kMaxBlockElements == int64_t{1} << kLog2MaxBlockElements);

bool is_power_of_two(int64_t v) { return v > 0 && !(v & (v - 1)); }

// log2 of a block's element count (powers of two: the exponents add up, nothing
// overflows); -1 when an entry is not a power of two.
int log2_numel(const int64_t *block, int n) {
  int log2 = 0;
  for (int i = 0; i < n; ++i) {
    if (!is_power_of_two(block[i]))
      return -1;
    log2 += __builtin_ctzll(uint64_t(block[i]));
  }
  return log2;
}

RuleError value_error(std::string_view where, const std::string &what) {
  return {RuleError::Value, std::string(where) + ": " + what};
}

} // namespace

const char *int_kind_name(IntKind k) {
  switch (k) {
  case IntKind::I32:
    return "i32";
  case IntKind::I64:
    return "i64";
  case IntKind::U64:
    return "u64";
  }
  return "i32";
}

IntSpec int_spec(int64_t bits, bool is_u64, bool specialize) {
  IntSpec s;
  s.kind = is_u64                                     ? IntKind::U64
           : (bits >= INT32_MIN && bits <= INT32_MAX) ? IntKind::I32
                                                      : IntKind::I64;
  if (specialize) {
    s.div16 = is_u64 ? uint64_t(bits) % 16 == 0 : bits % 16 == 0;
    s.one = !is_u64 && bits == 1;
  }
  return s;
}

RuleError block_shape_error(const int64_t *block, int n, std::string_view what) {
  for (int i = 0; i < n; ++i)
    if (!is_power_of_two(block[i]))
      return {RuleError::Value, std::string(what) + " element " + std::to_string(i) +
                                    " must be a power of 2, got " + std::to_string(block[i])};
  int log2 = log2_numel(block, n);
  if (log2 > kLog2MaxBlockElements)
    return {RuleError::Value,
            std::string(what) + " " + list_text(block, n) + " has " +
                (log2 < 63 ? std::to_string(int64_t{1} << log2) : "2**" + std::to_string(log2)) +
                " elements, more than the maximum tensor numel (" +
                std::to_string(kMaxBlockElements) + ")"};
  return {};
}

RuleError descriptor_error(const DescriptorFields &d, std::string_view where,
                           std::string_view padding_repr) {
  int n = d.rank;
  int log2 = log2_numel(d.block, n); // the message is built only on an error
  if (log2 < 0 || log2 > kLog2MaxBlockElements)
    return block_shape_error(d.block, n, std::string(where) + ": block_shape");
  if (d.dtype == "i1")
    return {RuleError::Type,
            std::string(where) + ": bool elements are not supported (pass the memory as int8)"};
  if (!d.aligned)
    return value_error(where, "the base must be 16-byte aligned");
  for (int i = 0; i < n; ++i)
    if (d.shape[i] < 1 || d.shape[i] >= (int64_t{1} << 31))
      return value_error(where, "shape[" + std::to_string(i) + "] = " + std::to_string(d.shape[i]) +
                                    " must be in [1, 2**31) (the kernel receives int32 shapes)");
  for (int i = 0; i + 1 < n; ++i)
    if ((d.strides[i] * d.elem_bytes) % 16)
      return value_error(where, "strides must be 16-byte aligned: stride " + std::to_string(i) +
                                    " is " + std::to_string(d.strides[i]) + " elements of " +
                                    std::to_string(d.elem_bytes) + " bytes");
  if (d.strides[n - 1] != 1)
    return value_error(where, "the last dimension must be contiguous (stride 1), got stride " +
                                  std::to_string(d.strides[n - 1]));
  if (d.padding != "zero" && d.padding != "nan")
    return value_error(where, "padding must be 'zero' or 'nan', got " + std::string(padding_repr));
  if (d.padding == "nan" && d.dtype.substr(0, 2) != "fp" && d.dtype.substr(0, 2) != "bf")
    return value_error(where, "padding `nan` needs a floating dtype, not " + std::string(d.dtype));
  return {};
}

uint32_t descriptor_divisibility(const DescriptorFields &d) {
  uint32_t div = 0;
  for (int k = 0; k < d.rank; ++k) {
    div |= uint32_t(d.shape[k] % 16 == 0) << k;
    if (k + 1 < d.rank)
      div |= uint32_t(d.strides[k] % 16 == 0) << (8 + k);
  }
  return div;
}

} // namespace tilec::runtime
