#include "ir/Type.h"

#include <bit>

#include "support/Diagnostics.h"

namespace tilec::ir {

namespace {
struct DTypeInfo {
  const char *ir;
  const char *py;
  int bits;
  DTypeKind kind;
  int mant;
};
const DTypeInfo kInfo[] = {
#define DTYPE(id, ir, py, bits, kind, mant) {ir, py, bits, DTypeKind::kind, mant},
#include "ir/DTypes.def"
#undef DTYPE
};
const DTypeInfo &info(DType d) { return kInfo[static_cast<size_t>(d)]; }
constexpr size_t kNumDTypes = sizeof(kInfo) / sizeof(kInfo[0]);
} // namespace

int bits(DType d) { return info(d).bits; }
DTypeKind kind(DType d) { return info(d).kind; }
int mantissa_bits(DType d) { return info(d).mant; }
std::optional<FloatFormat> float_format(DType d) {
  switch (d) {
  case DType::F8E4NV:
    return kFp8E4NVFormat;
  case DType::F8E5:
    return kFp8E5Format;
  case DType::F16:
    return kFp16Format;
  case DType::BF16:
    return kBf16Format;
  case DType::F32:
    return kFp32Format;
  default:
    return std::nullopt;
  }
}

uint64_t float_bits(double v, DType d) {
  if (d == DType::F64)
    return std::bit_cast<uint64_t>(v);
  if (d == DType::F32) // the hardware's rounding, to nearest even
    return std::bit_cast<uint32_t>(static_cast<float>(v));
  if (d == DType::F8E4B15) // Triton's software encoding
    return fp8e4b15_from_double(v);
  auto f = float_format(d);
  TILEC_ASSERT(f.has_value(), "float_bits: not a float dtype");
  return tilec::float_bits(*f, v);
}

double round_to_dtype(double v, DType d) {
  if (d == DType::F64)
    return v;
  if (d == DType::F32)
    return static_cast<double>(static_cast<float>(v));
  if (d == DType::F8E4B15)
    return fp8e4b15_to_float(fp8e4b15_from_double(v));
  auto f = float_format(d);
  TILEC_ASSERT(f.has_value(), "round_to_dtype: not a float dtype");
  return float_value(*f, tilec::float_bits(*f, v));
}

int byte_size(DType d) { return d == DType::I1 ? 1 : info(d).bits / 8; }
std::string_view ir_name(DType d) { return info(d).ir; }
std::string_view python_name(DType d) { return info(d).py; }

std::optional<DType> dtype_from_ir_name(std::string_view s) {
  for (size_t i = 0; i < kNumDTypes; ++i)
    if (s == kInfo[i].ir)
      return static_cast<DType>(i);
  return std::nullopt;
}

std::optional<DType> dtype_from_python_name(std::string_view s) {
  for (size_t i = 0; i < kNumDTypes; ++i)
    if (s == kInfo[i].py)
      return static_cast<DType>(i);
  return std::nullopt;
}

int64_t Type::numel() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string Type::str() const {
  std::string e =
      ptr ? std::string(is_const ? "ptr<const " : "ptr<") + std::string(ir_name(elem)) + ">"
          : std::string(ir_name(elem));
  if (shape.empty())
    return e;
  std::string s = "tile<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  if (layout)
    e += ", " + layout->str();
  return s + e + ">";
}

static std::optional<Type> parse_element(std::string_view s) {
  if (s.substr(0, 4) == "ptr<" && s.back() == '>') {
    auto d = dtype_from_ir_name(s.substr(4, s.size() - 5));
    if (!d)
      return std::nullopt;
    return Type(*d, true);
  }
  auto d = dtype_from_ir_name(s);
  if (!d)
    return std::nullopt;
  return Type(*d);
}

std::optional<Type> parse_type(std::string_view s) {
  if (s.substr(0, 5) != "tile<" || s.back() != '>')
    return parse_element(s);
  std::string_view body = s.substr(5, s.size() - 6);
  Shape shape;
  while (!body.empty() && body[0] >= '0' && body[0] <= '9') {
    size_t x = body.find('x');
    if (x == std::string_view::npos)
      return std::nullopt;
    int64_t v = 0;
    for (char c : body.substr(0, x)) {
      if (c < '0' || c > '9')
        return std::nullopt;
      v = v * 10 + (c - '0');
    }
    shape.push_back(v);
    body = body.substr(x + 1);
  }
  if (shape.empty())
    return std::nullopt;
  LayoutRef layout;
  if (size_t comma = body.find(','); comma != std::string_view::npos) {
    std::string_view rest = body.substr(comma + 1);
    while (!rest.empty() && rest[0] == ' ')
      rest.remove_prefix(1);
    size_t used = 0;
    auto l = parse_layout(rest, &used);
    if (!l || used != rest.size() || !*l)
      return std::nullopt;
    layout = *l;
    body = body.substr(0, comma);
  }
  auto e = parse_element(body);
  if (!e)
    return std::nullopt;
  return e->with_shape(shape).with_layout(layout);
}

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

} // namespace tilec::ir
