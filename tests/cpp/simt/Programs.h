// Hand-built Thread IR kernels shared by the Thread IR, PTX and simulator tests: they are
// printed and checked with ptxas (tests/cpp/codegen) and run on the simulator with
// checked results (tests/cpp/simt_interp).
#pragma once

#include "simt/Builder.h"

namespace tilec::simt::test {

// x_ptr + index * elem_bytes as a u64 address.
inline Reg elem_addr(Builder &b, Reg base, Reg index_s32, int elem_bytes) {
  return b.mad_wide(Ty::S32, index_s32, imm(elem_bytes), base);
}

// Global thread index: ctaid.x * ntid.x + tid.x (s32).
inline Reg global_tid(Builder &b) {
  Reg cta = b.special(Sreg::CtaidX), ntid = b.special(Sreg::NtidX), tid = b.special(Sreg::TidX);
  return b.mad(Ty::S32, cta, ntid, tid);
}

// out[i] = x[i] + y[i] for i < n (n a multiple of 4): 4 elements per thread, predicated
// v4 loads with `other` = 0 and a predicated v4 store.
inline Function vector_add(int num_warps = 4) {
  Function fn;
  fn.name = "vector_add";
  fn.num_warps = num_warps;
  uint32_t px = fn.add_param("x_ptr", Ty::U64), py = fn.add_param("y_ptr", Ty::U64),
           po = fn.add_param("out_ptr", Ty::U64), pn = fn.add_param("n", Ty::S32);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg x = b.ld_param(px), y = b.ld_param(py), out = b.ld_param(po), n = b.ld_param(pn);
  Reg first = b.shl(Ty::B32, global_tid(b), imm(2));
  Reg p = b.setp(Cmp::Lt, Ty::S32, first, n);
  Reg xa = elem_addr(b, x, first, 4), ya = elem_addr(b, y, first, 4),
      oa = elem_addr(b, out, first, 4);
  std::vector<Reg> xv = b.regs(Ty::F32, 4), yv = b.regs(Ty::F32, 4);
  for (int i = 0; i < 4; ++i) {
    b.mov_to(xv[i], Operand::f32(0.0f));
    b.mov_to(yv[i], Operand::f32(0.0f));
  }
  {
    auto g = b.guarded(p);
    b.ld_to(xv, Space::Global, Ty::B32, Operand::addr(xa));
    b.ld_to(yv, Space::Global, Ty::B32, Operand::addr(ya), {.cache = CacheOp::Cg});
  }
  std::vector<Operand> sum;
  for (int i = 0; i < 4; ++i)
    sum.push_back(b.add(Ty::F32, xv[i], yv[i]));
  {
    auto g = b.guarded(p);
    b.st(Space::Global, Ty::B32, Operand::addr(oa), sum);
  }
  b.ret();
  return fn;
}

// Butterfly sum of a warp's 32 values (as f32 bits): every lane ends with the total.
inline Reg warp_sum(Builder &b, Reg v) {
  for (int off = 16; off >= 1; off /= 2) {
    Reg o = b.shfl(ShflMode::Bfly, v, imm(off), imm(0x1f), imm(-1));
    v = b.add(Ty::F32, v, o);
  }
  return v;
}

// out[w] = sum of x[32 w .. 32 w + 31] for every warp w of the grid (shfl.sync.bfly).
inline Function warp_reduce(int num_warps = 2) {
  Function fn;
  fn.name = "warp_reduce";
  fn.num_warps = num_warps;
  uint32_t px = fn.add_param("x_ptr", Ty::U64), po = fn.add_param("out_ptr", Ty::U64);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg x = b.ld_param(px), out = b.ld_param(po);
  Reg gt = global_tid(b);
  Reg v = b.ld1(Space::Global, Ty::F32, Operand::addr(elem_addr(b, x, gt, 4)));
  Reg total = warp_sum(b, v);
  Reg lane = b.special(Sreg::LaneId);
  Reg is0 = b.setp(Cmp::Eq, Ty::U32, lane, imm(0));
  Reg w = b.shr(Ty::U32, gt, imm(5));
  Reg oa = elem_addr(b, out, w, 4);
  {
    auto g = b.guarded(is0);
    b.st(Space::Global, Ty::F32, Operand::addr(oa), {total});
  }
  b.ret();
  return fn;
}

// out[cta] = sum of the CTA's x values: warp sums, then through shared memory and
// bar.sync, warp 0 sums the partials.
inline Function block_reduce(int num_warps = 4) {
  Function fn;
  fn.name = "block_reduce";
  fn.num_warps = num_warps;
  fn.shared_bytes = static_cast<uint32_t>(num_warps * 4);
  uint32_t px = fn.add_param("x_ptr", Ty::U64), po = fn.add_param("out_ptr", Ty::U64);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg x = b.ld_param(px), out = b.ld_param(po);
  Reg gt = global_tid(b);
  Reg v = b.ld1(Space::Global, Ty::F32, Operand::addr(elem_addr(b, x, gt, 4)));
  Reg ws = warp_sum(b, v);
  Reg tid = b.special(Sreg::TidX);
  Reg lane = b.and_(Ty::B32, tid, imm(31));
  Reg warp = b.shr(Ty::U32, tid, imm(5));
  Reg smem = b.shared_addr();
  Reg slot = b.mad(Ty::U32, warp, imm(4), smem);
  Reg is_lane0 = b.setp(Cmp::Eq, Ty::U32, lane, imm(0));
  {
    auto g = b.guarded(is_lane0);
    b.st(Space::Shared, Ty::F32, Operand::addr(slot), {ws});
  }
  b.bar_sync(0);
  BlockId tail = b.new_block("tail"), done = b.new_block("done");
  Reg not_w0 = b.setp(Cmp::Ne, Ty::U32, warp, imm(0));
  b.bra_if(not_w0, done);
  b.set_block(tail);
  Reg part = b.mov(Ty::F32, Operand::f32(0.0f));
  Reg has = b.setp(Cmp::Lt, Ty::U32, lane, imm(num_warps));
  Reg lslot = b.mad(Ty::U32, lane, imm(4), smem);
  {
    auto g = b.guarded(has);
    b.ld_to({part}, Space::Shared, Ty::F32, Operand::addr(lslot));
  }
  Reg total = warp_sum(b, part);
  Reg cta = b.special(Sreg::CtaidX);
  Reg oa = elem_addr(b, out, cta, 4);
  {
    auto g = b.guarded(is_lane0);
    b.st(Space::Global, Ty::F32, Operand::addr(oa), {total});
  }
  b.set_block(done);
  b.ret();
  return fn;
}

// out[gtid] = atom.global.add.u32(counter, 1): the olds are a permutation of 0..N-1.
inline Function atomic_counter(int num_warps = 2) {
  Function fn;
  fn.name = "atomic_counter";
  fn.num_warps = num_warps;
  uint32_t pc = fn.add_param("counter", Ty::U64), po = fn.add_param("out_ptr", Ty::U64);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg counter = b.ld_param(pc), out = b.ld_param(po);
  Reg old =
      b.atom(AtomOp::Add, Ty::U32, Operand::addr(counter), imm(1), {}, Sem::Relaxed, Scope::Gpu);
  Reg oa = elem_addr(b, out, global_tid(b), 4);
  b.st(Space::Global, Ty::U32, Operand::addr(oa), {old});
  b.ret();
  return fn;
}

// Threads 0 and 1 of each CTA print their ids and x[tid] (f32 -> f64 for varargs).
inline Function printf_kernel() {
  Function fn;
  fn.name = "printf_kernel";
  fn.num_warps = 1;
  uint32_t px = fn.add_param("x_ptr", Ty::U64);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg x = b.ld_param(px);
  Reg tid = b.special(Sreg::TidX), cta = b.special(Sreg::CtaidX);
  Reg p = b.setp(Cmp::Lt, Ty::U32, tid, imm(2));
  BlockId body = b.new_block("print"), done = b.new_block("done");
  b.bra_if(p, done, /*negate=*/true);
  b.set_block(body);
  Reg v = b.ld1(Space::Global, Ty::F32, Operand::addr(elem_addr(b, x, tid, 4)));
  Reg d = b.cvt(Ty::F64, Ty::F32, v);
  Reg big = b.cvt(Ty::S64, Ty::S32, tid);
  big = b.add(Ty::S64, big, imm(int64_t(1) << 40));
  b.vprintf("pid (%u) tid %d: x=%.2f big=%lld 100%%\n", {cta, tid, d, big});
  b.set_block(done);
  b.ret();
  return fn;
}

// Divergence: out[t] = (sum_{k < t % 5} k) * 2 for odd t, + 100 for even t — a loop with
// a thread-dependent trip count and an if/else, both reconverging.
inline Function divergent(int num_warps = 1) {
  Function fn;
  fn.name = "divergent";
  fn.num_warps = num_warps;
  uint32_t po = fn.add_param("out_ptr", Ty::U64);
  Builder b(fn);
  BlockId entry = b.new_block("entry"), loop = b.new_block("loop"), after = b.new_block("after"),
          odd = b.new_block("odd"), even = b.new_block("even"), join = b.new_block("join");
  b.set_block(entry);
  Reg out = b.ld_param(po);
  Reg tid = b.special(Sreg::TidX);
  Reg trips = b.rem(Ty::U32, tid, imm(5));
  Reg k = b.mov(Ty::U32, imm(0)), acc = b.mov(Ty::U32, imm(0));
  Reg none = b.setp(Cmp::Eq, Ty::U32, trips, imm(0));
  b.bra_if(none, after);
  b.set_block(loop);
  b.mov_to(acc, b.add(Ty::U32, acc, k));
  b.mov_to(k, b.add(Ty::U32, k, imm(1)));
  Reg more = b.setp(Cmp::Lt, Ty::U32, k, trips);
  b.bra_if(more, loop);
  b.set_block(after);
  Reg is_odd = b.setp(Cmp::Ne, Ty::U32, b.and_(Ty::B32, tid, imm(1)), imm(0));
  b.bra_if(is_odd, even, true);
  b.set_block(odd);
  b.mov_to(acc, b.shl(Ty::B32, acc, imm(1)));
  b.bra(join);
  b.set_block(even);
  b.mov_to(acc, b.add(Ty::U32, acc, imm(100)));
  b.set_block(join);
  // a full-warp shuffle after the join proves the lanes reconverged
  Reg nb = b.shfl(ShflMode::Idx, acc, imm(0), imm(0x1f));
  Reg sum = b.add(Ty::U32, acc, b.mul(Ty::U32, nb, imm(1000)));
  b.st(Space::Global, Ty::U32, Operand::addr(elem_addr(b, out, tid, 4)), {sum});
  b.ret();
  return fn;
}

} // namespace tilec::simt::test
