#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <functional>

#include "../simt/Programs.h"
#include "interp/simt/Simulator.h"

namespace tilec::simt::test {

inline uint64_t fbits(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t dbits(double d) { return std::bit_cast<uint64_t>(d); }
inline float bf(uint64_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b)); }
inline double bd(uint64_t b) { return std::bit_cast<double>(b); }

template <typename T> SimBuffer buffer(std::vector<T> &v, const std::string &name) {
  return SimBuffer{reinterpret_cast<uint64_t>(v.data()), v.size() * sizeof(T), name};
}

// Runs a one-warp kernel in which lane l reads src k from in[k][l] (read as type
// src_tys[k]), computes emit(b, srcs) and writes the result of type out_ty. Returns the
// result bits of each lane given (inputs shorter than 32 lanes are padded with lane 0's).
inline std::vector<uint64_t> lanes(const std::vector<Ty> &src_tys, Ty out_ty,
                                   std::vector<std::vector<uint64_t>> in,
                                   const std::function<Reg(Builder &, std::vector<Reg>)> &emit) {
  size_t n = in.at(0).size();
  for (auto &v : in)
    v.resize(32, v.at(0));
  Function fn;
  fn.name = "lanes";
  fn.num_warps = 1;
  std::vector<uint32_t> params;
  for (size_t k = 0; k < in.size(); ++k)
    params.push_back(fn.add_param("in" + std::to_string(k), Ty::U64));
  uint32_t po = fn.add_param("out", Ty::U64);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg tid = b.special(Sreg::TidX);
  std::vector<Reg> srcs;
  for (size_t k = 0; k < in.size(); ++k) {
    Reg base = b.ld_param(params[k]);
    Reg a = b.mad_wide(Ty::U32, tid, imm(8), base);
    Ty t = src_tys[k];
    if (t == Ty::Pred) {
      Reg v = b.ld1(Space::Global, Ty::U8, Operand::addr(a));
      srcs.push_back(b.setp(Cmp::Ne, Ty::U16, v, imm(0)));
    } else {
      srcs.push_back(b.ld1(Space::Global, t, Operand::addr(a)));
    }
  }
  Reg r = emit(b, srcs);
  Reg oa = b.mad_wide(Ty::U32, tid, imm(8), b.ld_param(po));
  if (out_ty == Ty::Pred)
    b.st(Space::Global, Ty::U32, Operand::addr(oa), {b.selp(Ty::U32, imm(1), imm(0), r)});
  else
    b.st(Space::Global, out_ty, Operand::addr(oa), {r});
  b.ret();
  std::vector<uint64_t> out(32, 0);
  std::vector<SimArg> args;
  std::vector<SimBuffer> bufs;
  for (size_t k = 0; k < in.size(); ++k) {
    args.push_back(SimArg::pointer(in[k].data()));
    bufs.push_back(buffer(in[k], "in" + std::to_string(k)));
  }
  args.push_back(SimArg::pointer(out.data()));
  bufs.push_back(buffer(out, "out"));
  run(fn, args, bufs, {});
  out.resize(n);
  return out;
}

// One instruction applied per lane: op.ty over srcs of type t.
inline std::vector<uint64_t> unary(Op op, Ty t, std::vector<uint64_t> a, Mods m = {}) {
  return lanes({t}, t, {a},
               [&](Builder &b, std::vector<Reg> s) { return b.unary(op, t, s[0], m); });
}
inline std::vector<uint64_t> binary(Op op, Ty t, std::vector<uint64_t> a, std::vector<uint64_t> c,
                                    Mods m = {}) {
  return lanes({t, t}, t, {a, c},
               [&](Builder &b, std::vector<Reg> s) { return b.binary(op, t, s[0], s[1], m); });
}
inline std::vector<uint64_t> cvt(Ty dst, Ty src, std::vector<uint64_t> a, Rnd r = Rnd::None,
                                 Mods extra = {}) {
  return lanes({src}, dst, {a}, [&](Builder &b, std::vector<Reg> s) {
    Reg d = b.cvt(dst, src, s[0], r, extra.sat);
    b.last().m.ftz = extra.ftz;
    b.last().m.relu = extra.relu;
    b.last().m.satfinite = extra.satfinite;
    return d;
  });
}

inline Mods rnd(Rnd r) {
  Mods m;
  m.rnd = r;
  return m;
}

// The message of the SimError that `f` throws ("" if none).
inline std::string sim_error(const std::function<void()> &f) {
  try {
    f();
  } catch (const SimError &e) {
    return e.what();
  }
  return "";
}

inline bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

} // namespace tilec::simt::test
