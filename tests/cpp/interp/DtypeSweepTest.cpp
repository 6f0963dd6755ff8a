// Every elementwise binary op over every dtype against a reference computed in double
// (floats: the exact result rounded once to the dtype) or in 64-bit modular arithmetic.
#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include "TestUtil.h"

using namespace tilec;
using namespace tilec::interp;
using namespace tilec::interp::test;

namespace {

const DType kAll[] = {DType::I1,   DType::I8,  DType::I16,  DType::I32, DType::I64,
                      DType::U8,   DType::U16, DType::U32,  DType::U64, DType::F8E4NV,
                      DType::F8E5, DType::F16, DType::BF16, DType::F32, DType::F64};

int nbytes(DType d) { return tilec::ir::byte_size(d); }

uint64_t get_bits(const std::vector<uint8_t> &v, size_t i, int nb) {
  uint64_t b = 0;
  std::memcpy(&b, v.data() + i * static_cast<size_t>(nb), static_cast<size_t>(nb));
  return b;
}

double to_double(DType d, uint64_t b) {
  switch (d) {
  case DType::F8E4NV:
    return fp8e4nv_to_float(uint8_t(b));
  case DType::F8E5:
    return fp8e5_to_float(uint8_t(b));
  case DType::F16:
    return fp16_to_float(uint16_t(b));
  case DType::BF16:
    return bf16_to_float(uint16_t(b));
  case DType::F32:
    return std::bit_cast<float>(uint32_t(b));
  case DType::F64:
    return std::bit_cast<double>(b);
  default:
    return 0;
  }
}

uint64_t from_double(DType d, double x) {
  switch (d) {
  case DType::F8E4NV:
    return fp8e4nv_from_double(x);
  case DType::F8E5: // rounding to fp8e5 saturates, as the GPU's cvt .satfinite does
    return fp8e5_from_double(std::isnan(x) ? x : std::clamp(x, -57344.0, 57344.0));
  case DType::F16:
    return fp16_from_double(x);
  case DType::BF16:
    return bf16_from_double(x);
  case DType::F32:
    return std::bit_cast<uint32_t>(static_cast<float>(x));
  case DType::F64:
    return std::bit_cast<uint64_t>(x);
  default:
    return 0;
  }
}

int64_t to_int(DType d, uint64_t b) { // sign- or zero-extend
  int bits = tilec::ir::bits(d);
  if (bits == 64)
    return static_cast<int64_t>(b);
  uint64_t m = (uint64_t(1) << bits) - 1;
  b &= m;
  if (tilec::ir::is_signed_int(d) && (b >> (bits - 1)))
    return static_cast<int64_t>(b | ~m);
  return static_cast<int64_t>(b);
}

uint64_t mask_of(DType d) {
  int bits = tilec::ir::bits(d);
  return bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

std::vector<uint8_t> random_values(DType d, size_t n, std::mt19937_64 &rng) {
  std::vector<uint8_t> v(n * static_cast<size_t>(nbytes(d)));
  std::uniform_real_distribution<double> u(-3, 3);
  std::uniform_int_distribution<int> e(-8, 8);
  for (size_t i = 0; i < n; ++i) {
    uint64_t b =
        tilec::ir::is_float(d) ? from_double(d, std::ldexp(u(rng), e(rng))) : (rng() & mask_of(d));
    std::memcpy(v.data() + i * static_cast<size_t>(nbytes(d)), &b, static_cast<size_t>(nbytes(d)));
  }
  return v;
}

std::vector<uint8_t> run_op(OpKind k, DType d, std::vector<uint8_t> a, std::vector<uint8_t> b,
                            int64_t n, std::vector<NamedAttr> attrs = {}) {
  KB kb;
  DType rd = k == OpKind::Cmp ? DType::I1 : d;
  Value *pa = kb.arg(ptr(d), "a"), *pb = kb.arg(ptr(d), "b"), *pr = kb.arg(ptr(rd), "out");
  Value *offs = kb.arange(n);
  Value *x = kb.load(kb.addptr(pa, offs)), *y = kb.load(kb.addptr(pb, offs));
  kb.store(kb.addptr(pr, offs), kb.op(k, {x, y}, tile(rd, {n}), attrs));
  std::vector<uint8_t> res(static_cast<size_t>(n * nbytes(rd)));
  kb.run(
      {KernelArg::pointer(a.data()), KernelArg::pointer(b.data()), KernelArg::pointer(res.data())},
      {Buffer{reinterpret_cast<uint64_t>(a.data()), a.size(), "a"},
       Buffer{reinterpret_cast<uint64_t>(b.data()), b.size(), "b"},
       Buffer{reinterpret_cast<uint64_t>(res.data()), res.size(), "out"}});
  return res;
}

} // namespace

TEST(DtypeSweep, BinaryOpsMatchReference) {
  std::mt19937_64 rng(11);
  const int64_t n = 256;
  for (DType d : kAll) {
    bool fl = tilec::ir::is_float(d);
    int nb = nbytes(d);
    auto a = random_values(d, n, rng), b = random_values(d, n, rng);
    std::vector<OpKind> ops{OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Max, OpKind::Min};
    if (fl)
      ops.push_back(OpKind::Div);
    else
      ops.insert(ops.end(), {OpKind::And, OpKind::Or, OpKind::Xor});
    for (OpKind k : ops) {
      auto r = run_op(k, d, a, b, n);
      for (int64_t i = 0; i < n; ++i) {
        uint64_t ab = get_bits(a, size_t(i), nb), bb = get_bits(b, size_t(i), nb),
                 got = get_bits(r, size_t(i), nb);
        uint64_t want;
        if (fl) {
          double x = to_double(d, ab), y = to_double(d, bb), z = 0;
          switch (k) {
          case OpKind::Add:
            z = x + y;
            break;
          case OpKind::Sub:
            z = x - y;
            break;
          case OpKind::Mul:
            z = x * y;
            break;
          case OpKind::Div:
            z = x / y;
            break;
          case OpKind::Max:
            z = std::fmax(x, y);
            break;
          default:
            z = std::fmin(x, y);
            break;
          }
          want = from_double(d, z);
        } else {
          int64_t x = to_int(d, ab), y = to_int(d, bb);
          uint64_t ux = uint64_t(x), uy = uint64_t(y), z = 0;
          bool uns = !tilec::ir::is_signed_int(d);
          switch (k) {
          case OpKind::Add:
            z = ux + uy;
            break;
          case OpKind::Sub:
            z = ux - uy;
            break;
          case OpKind::Mul:
            z = ux * uy;
            break;
          case OpKind::And:
            z = ux & uy;
            break;
          case OpKind::Or:
            z = ux | uy;
            break;
          case OpKind::Xor:
            z = ux ^ uy;
            break;
          case OpKind::Max:
            z = uns ? std::max(ux, uy) : uint64_t(std::max(x, y));
            break;
          default:
            z = uns ? std::min(ux, uy) : uint64_t(std::min(x, y));
            break;
          }
          want = z & mask_of(d);
        }
        ASSERT_EQ(got, want) << tilec::ir::ir_name(d) << " " << tilec::ir::op_name(k) << " element "
                             << i << ": " << ab << ", " << bb;
      }
    }
    // Comparisons: lt under the dtype's order (unsigned for unsigned dtypes).
    auto lt = run_op(OpKind::Cmp, d, a, b, n, {{"pred", std::string("lt")}});
    for (int64_t i = 0; i < n; ++i) {
      uint64_t ab = get_bits(a, size_t(i), nb), bb = get_bits(b, size_t(i), nb);
      bool want;
      if (fl)
        want = to_double(d, ab) < to_double(d, bb);
      else if (tilec::ir::is_signed_int(d))
        want = to_int(d, ab) < to_int(d, bb);
      else
        want = (ab & mask_of(d)) < (bb & mask_of(d));
      ASSERT_EQ(lt[size_t(i)], want) << tilec::ir::ir_name(d) << " lt element " << i;
    }
  }
}
