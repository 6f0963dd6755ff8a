// mma.sync and ldmatrix: warp-wide tensor-core instructions, executed by the fragment
// layouts of the PTX ISA ("Matrix fragments for mma.m16n8k*", "ldmatrix").
//
// Precision: products of the A/B elements are exact (every supported input format's
// product fits a double, and an f32), the sum over k is taken in k order in fp32 with
// round-to-nearest after each addition, starting from C; an f16 accumulator is read as
// f32 and the result rounded to f16 once. fp64 mma: a fused multiply-add per k, in order. Integer
// mma wraps in 32 bits. Real tensor cores add several products at once with their own internal
// precision, so GPU results differ from the simulator's in the last bits (tests compare with a
// tolerance there).
#include <bit>
#include <cmath>
#include <cstring>

#include "interp/simt/SimFloat.h"
#include "interp/simt/SimInternal.h"
#include "support/FloatFormats.h"

namespace tilec::simt::sim {

namespace {

// Every lane of the warp must execute a warp-wide instruction, unguarded.
void require_full_warp(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask,
                       const char *what) {
  uint32_t act = m.guarded(c, d, warp, mask);
  if (act != 0xffffffffu) {
    int missing = std::countr_zero(~act);
    m.fault(c, d, warp * kWarp + (act ? std::countr_zero(act) : 0),
            std::string(what) + " is warp-wide: lane " + std::to_string(missing) +
                " of the warp does not execute it");
  }
}

// Position (row, col) of element e of lane l in the A (m16 x k) and B (k x n8) fragments
// and the C/D (m16 x n8) fragment. kw = elements per 32-bit register (2 for f16/bf16, 1
// for tf32, 4 for 8-bit types); K = 8 * kw. Written out from the PTX ISA's tables:
//   A: a_i row = groupID + 8 * ((i / kw) % 2), col = threadID_in_group * kw + i % kw
//      + 4 * kw * (i / (2 * kw))
//   B: b_i row = threadID_in_group * kw + i % kw + 4 * kw * (i / kw), col = groupID
//   C: c_i row = groupID + 8 * (i / 2), col = threadID_in_group * 2 + i % 2
struct Pos {
  int row, col;
};
Pos a_pos(int lane, int e, int kw) {
  int g = lane >> 2, t = lane & 3;
  return {g + 8 * ((e / kw) & 1), t * kw + e % kw + 4 * kw * (e / (2 * kw))};
}
Pos b_pos(int lane, int e, int kw) {
  int g = lane >> 2, t = lane & 3;
  return {t * kw + e % kw + 4 * kw * (e / kw), g};
}
Pos c_pos(int lane, int e) {
  int g = lane >> 2, t = lane & 3;
  return {g + 8 * (e / 2), t * 2 + e % 2};
}

// One packed A/B element (bits `v` of width eb) as a number.
double element(uint64_t v, Ty ab) {
  switch (ab) {
  case Ty::F16:
  case Ty::BF16:
    return float_value(v, ab);
  case Ty::TF32: // the tensor core reads the top 19 bits of the register
    return f32_from_bits(v & 0xffffe000u);
  case Ty::S8:
    return static_cast<int8_t>(v);
  case Ty::U8:
    return static_cast<uint8_t>(v);
  case Ty::E4M3x2:
    return tilec::fp8e4nv_to_float(static_cast<uint8_t>(v));
  case Ty::E5M2x2:
    return tilec::fp8e5_to_float(static_cast<uint8_t>(v));
  case Ty::F64:
    return f64_from_bits(v);
  default:
    return 0;
  }
}

} // namespace

void exec_Mma(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  const Instr &in = *d.in;
  MmaRegs r = mma_regs(in);
  if (r.a == 0)
    m.fault(c, d, warp * kWarp, "mma: unsupported shape or types");
  require_full_warp(m, c, d, warp, mask, "mma");
  const int M = in.m.mma.m, N = in.m.mma.n, K = in.m.mma.k;
  const int eb = mma_elem_bits(in.src_ty), kw = eb == 64 ? 1 : 32 / eb;
  const bool is_int = in.ty == Ty::S32, f16_acc = in.ty == Ty::F16, f64 = in.ty == Ty::F64;
  std::vector<double> A(static_cast<size_t>(M * K)), B(static_cast<size_t>(K * N));
  std::vector<double> C(static_cast<size_t>(M * N));
  std::vector<uint32_t> Ci(static_cast<size_t>(M * N));
  for (int l = 0; l < kWarp; ++l) {
    int t = warp * kWarp + l;
    for (int i = 0; i < r.a * kw; ++i) {
      uint64_t reg = m.src(c, d, static_cast<size_t>(i / kw), t);
      Pos p = a_pos(l, i, kw);
      A[static_cast<size_t>(p.row * K + p.col)] = element(reg >> (eb * (i % kw)), in.src_ty);
    }
    for (int i = 0; i < r.b * kw; ++i) {
      uint64_t reg = m.src(c, d, static_cast<size_t>(r.a + i / kw), t);
      Pos p = b_pos(l, i, kw);
      B[static_cast<size_t>(p.row * N + p.col)] = element(reg >> (eb * (i % kw)), in.src_ty);
    }
    for (int i = 0; i < r.c * (f16_acc ? 2 : 1); ++i) {
      Pos p = c_pos(l, i);
      size_t at = static_cast<size_t>(p.row * N + p.col);
      if (f64) {
        C[at] = f64_from_bits(m.src(c, d, static_cast<size_t>(r.a + r.b + i), t));
      } else if (f16_acc) {
        uint64_t reg = m.src(c, d, static_cast<size_t>(r.a + r.b + i / 2), t);
        C[at] = float_value((reg >> (16 * (i % 2))) & 0xffff, Ty::F16);
      } else {
        uint64_t reg = m.src(c, d, static_cast<size_t>(r.a + r.b + i), t);
        Ci[at] = static_cast<uint32_t>(reg);
        C[at] = f32_from_bits(reg);
      }
    }
  }
  // D = A * B + C
  std::vector<uint64_t> D(static_cast<size_t>(M * N));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      size_t at = static_cast<size_t>(i * N + j);
      if (is_int) {
        uint32_t s = Ci[at];
        for (int k = 0; k < K; ++k)
          s += static_cast<uint32_t>(static_cast<int64_t>(A[static_cast<size_t>(i * K + k)]) *
                                     static_cast<int64_t>(B[static_cast<size_t>(k * N + j)]));
        D[at] = s;
        continue;
      }
      if (f64) {
        double s = C[at];
        for (int k = 0; k < K; ++k)
          s = std::fma(A[static_cast<size_t>(i * K + k)], B[static_cast<size_t>(k * N + j)], s);
        D[at] = bits_from_f64(s);
        continue;
      }
      float s = static_cast<float>(C[at]);
      for (int k = 0; k < K; ++k)
        s = s + static_cast<float>(A[static_cast<size_t>(i * K + k)] *
                                   B[static_cast<size_t>(k * N + j)]);
      D[at] = f16_acc ? round_f16(Exact{s, 0}, Rnd::Rn) : bits_from_f32(s);
    }
  for (int l = 0; l < kWarp; ++l) {
    int t = warp * kWarp + l;
    if (f16_acc) {
      for (int i = 0; i < 2; ++i) {
        Pos lo = c_pos(l, 2 * i), hi = c_pos(l, 2 * i + 1);
        m.set_dst(c, d, static_cast<size_t>(i), t,
                  D[static_cast<size_t>(lo.row * N + lo.col)] |
                      D[static_cast<size_t>(hi.row * N + hi.col)] << 16);
      }
    } else {
      for (int i = 0; i < r.d; ++i) {
        Pos p = c_pos(l, i);
        m.set_dst(c, d, static_cast<size_t>(i), t, D[static_cast<size_t>(p.row * N + p.col)]);
      }
    }
  }
}

// Where, in the [matrix][row][col] block ldmatrix and stmatrix move, half h of lane l's
// word i lives: element (l/4, 2(l%4)+h) of matrix i, or with .trans (2(l%4)+h, l/4).
namespace {
size_t fragment_at(int i, int lane, int h, bool trans) {
  int g = lane >> 2, t = 2 * (lane & 3) + h;
  return static_cast<size_t>(i * 64 + (trans ? t * 8 + g : g * 8 + t));
}
} // namespace

// ldmatrix.m8n8.x{1,2,4}[.trans].b16: lanes 8i..8i+7 give the addresses of the 8 rows
// (16 bytes each) of matrix i; lane l receives, in its register i, its fragment
// (fragment_at), the low half first.
void exec_Ldmatrix(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  require_full_warp(m, c, d, warp, mask, "ldmatrix");
  const Instr &in = *d.in;
  int num = in.m.vec;
  if (m.space_of(d) != Space::Shared)
    m.fault(c, d, warp * kWarp, "ldmatrix reads shared memory");
  std::vector<uint16_t> mat(static_cast<size_t>(num * 64)); // [matrix][row][col]
  for (int i = 0; i < num; ++i)
    for (int row = 0; row < 8; ++row) {
      int t = warp * kWarp + i * 8 + row;
      const uint8_t *p = m.memory(c, d, t, m.address(c, d, t), 16, false);
      std::memcpy(&mat[static_cast<size_t>(i * 64 + row * 8)], p, 16);
    }
  for (int l = 0; l < kWarp; ++l)
    for (int i = 0; i < num; ++i) {
      uint64_t v = mat[fragment_at(i, l, 0, in.m.trans)] |
                   uint64_t{mat[fragment_at(i, l, 1, in.m.trans)]} << 16;
      m.set_dst(c, d, static_cast<size_t>(i), warp * kWarp + l, v);
    }
}

// stmatrix.m8n8.x{1,2,4}[.trans].b16, ldmatrix's mirror: lanes 8i..8i+7 give the
// addresses of the rows of matrix i; lane l's word i holds its fragment, low half first.
void exec_Stmatrix(Machine &m, Cta &c, const Decoded &d, int warp, uint32_t mask) {
  require_full_warp(m, c, d, warp, mask, "stmatrix");
  const Instr &in = *d.in;
  int num = in.m.vec;
  if (m.space_of(d) != Space::Shared)
    m.fault(c, d, warp * kWarp, "stmatrix writes shared memory");
  std::vector<uint16_t> mat(static_cast<size_t>(num * 64)); // [matrix][row][col]
  for (int l = 0; l < kWarp; ++l)
    for (int i = 0; i < num; ++i) {
      uint64_t w = m.src(c, d, 1 + static_cast<size_t>(i), warp * kWarp + l);
      mat[fragment_at(i, l, 0, in.m.trans)] = static_cast<uint16_t>(w);
      mat[fragment_at(i, l, 1, in.m.trans)] = static_cast<uint16_t>(w >> 16);
    }
  for (int i = 0; i < num; ++i)
    for (int row = 0; row < 8; ++row) {
      int t = warp * kWarp + i * 8 + row;
      uint8_t *p = m.memory(c, d, t, m.address(c, d, t), 16, true);
      std::memcpy(p, &mat[static_cast<size_t>(i * 64 + row * 8)], 16);
    }
}

} // namespace tilec::simt::sim
