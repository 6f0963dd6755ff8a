// Shuffles, votes, active masks and barriers.
#include "SimTestUtil.h"

using namespace tilec;
using namespace tilec::simt;
using namespace tilec::simt::test;

namespace {
using V = std::vector<uint64_t>;

// Every lane shuffles (lane * 10 + 1) with the given b and c; returns {value, valid} per lane.
std::pair<V, V> shuffle(ShflMode mode, int b_val, int c_val) {
  V lane_ids(32);
  for (int l = 0; l < 32; ++l)
    lane_ids[l] = static_cast<uint64_t>(l);
  V vals = lanes({Ty::U32}, Ty::U32, {lane_ids}, [&](Builder &b, std::vector<Reg> s) {
    Reg v = b.mad(Ty::U32, s[0], imm(10), imm(1));
    return b.shfl(mode, v, imm(b_val), imm(c_val));
  });
  V valid = lanes({Ty::U32}, Ty::Pred, {lane_ids}, [&](Builder &b, std::vector<Reg> s) {
    Reg p;
    b.shfl(mode, s[0], imm(b_val), imm(c_val), imm(-1), &p);
    return p;
  });
  return {vals, valid};
}

// The source lane CUDA's __shfl_*_sync(mask, v, b, width) documents, and whether it is
// valid (an invalid source returns the lane's own value): a lane may read from its own
// or an earlier group of `width` lanes, never a later one.
std::pair<int, bool> cuda_source(ShflMode mode, int lane, int b, int width) {
  int seg = lane & ~(width - 1), seg_end = seg + width - 1;
  int j = mode == ShflMode::Up     ? lane - b
          : mode == ShflMode::Down ? lane + b
          : mode == ShflMode::Bfly ? lane ^ b
                                   : seg + (b & (width - 1));
  bool valid = mode == ShflMode::Up ? j >= seg : j <= seg_end;
  return {valid ? j : lane, valid};
}
} // namespace

TEST(SimWarp, ShuffleModesMatchCudaWidths) {
  for (ShflMode mode : {ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx})
    for (int width : {32, 16, 8, 2})
      for (int bv : {0, 1, 3, 7, 16}) {
        // CUDA: c = ((32 - width) << 8) | (up ? 0 : 0x1f)
        int c = ((32 - width) << 8) | (mode == ShflMode::Up ? 0 : 0x1f);
        auto [vals, valid] = shuffle(mode, bv, c);
        for (int l = 0; l < 32; ++l) {
          auto [src, ok] = cuda_source(mode, l, bv, width);
          ASSERT_EQ(vals[l], static_cast<uint64_t>(src * 10 + 1))
              << shfl_name(mode) << " width " << width << " b " << bv << " lane " << l;
          ASSERT_EQ(valid[l], static_cast<uint64_t>(ok))
              << shfl_name(mode) << " width " << width << " b " << bv << " lane " << l;
        }
      }
}

TEST(SimWarp, ShuffleClampWithoutSegments) {
  // c = 15 without a segment mask: down may read up to lane 15 only, lanes above keep theirs.
  auto [vals, valid] = shuffle(ShflMode::Down, 4, 15);
  EXPECT_EQ(vals[0], 41u);
  EXPECT_EQ(valid[11], 1u);
  EXPECT_EQ(vals[12], 121u); // 12 + 4 = 16 > 15: own value
  EXPECT_EQ(valid[12], 0u);
  EXPECT_EQ(vals[20], 201u);
}

TEST(SimWarp, PartialMemberMask) {
  // Only the lower 16 lanes shuffle (guarded), with membermask 0xffff: fine.
  std::vector<uint32_t> out(32, 0);
  Function fn;
  fn.name = "partial";
  fn.num_warps = 1;
  uint32_t po = fn.add_param("out", Ty::U64);
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg tid = b.special(Sreg::TidX);
  Reg lo = b.setp(Cmp::Lt, Ty::U32, tid, imm(16));
  Reg v = b.mov(Ty::U32, imm(0));
  {
    auto g = b.guarded(lo);
    b.mov_to(v, b.shfl(ShflMode::Bfly, tid, imm(1), imm(0x1f), imm(0xffff)));
  }
  b.st(Space::Global, Ty::U32, Operand::addr(elem_addr(b, b.ld_param(po), tid, 4)), {v});
  b.ret();
  run(fn, {SimArg::pointer(out.data())}, {buffer(out, "out")});
  for (int l = 0; l < 16; ++l)
    EXPECT_EQ(out[l], static_cast<uint32_t>(l ^ 1));
  EXPECT_EQ(out[20], 0u);

  // The same with a full member mask: lanes 16..31 never arrive.
  for (Instr &in : fn.blocks[0].instrs)
    if (in.op == Op::Shfl)
      in.src[3] = imm(-1);
  std::string err =
      sim_error([&] { run(fn, {SimArg::pointer(out.data())}, {buffer(out, "out")}); });
  EXPECT_TRUE(contains(err, "lane 16 of member mask 0xffffffff does not execute this instruction"))
      << err;
}

TEST(SimWarp, ShuffleFromANonParticipatingLane) {
  // Lanes 0..15 take part with membermask 0xffff but read lane l + 16 (idx).
  Function fn;
  fn.name = "bad_src";
  fn.num_warps = 1;
  Builder b(fn);
  b.set_block(b.new_block("entry"));
  Reg tid = b.special(Sreg::TidX);
  Reg lo = b.setp(Cmp::Lt, Ty::U32, tid, imm(16));
  {
    auto g = b.guarded(lo);
    b.shfl(ShflMode::Idx, tid, b.add(Ty::U32, tid, imm(16)), imm(0x1f), imm(0xffff));
  }
  b.ret();
  std::string err = sim_error([&] { run(fn, {}, {}); });
  EXPECT_TRUE(contains(err, "reads lane 16, which does not take part in the shuffle")) << err;
}

TEST(SimWarp, VoteAndActivemask) {
  V ids(32);
  for (int l = 0; l < 32; ++l)
    ids[l] = static_cast<uint64_t>(l);
  V ballot = lanes({Ty::U32}, Ty::B32, {ids}, [](Builder &b, std::vector<Reg> s) {
    return b.vote(VoteMode::Ballot, b.setp(Cmp::Lt, Ty::U32, s[0], imm(5)));
  });
  EXPECT_EQ(ballot[0], 0x1fu);
  EXPECT_EQ(ballot[31], 0x1fu);
  V any = lanes({Ty::U32}, Ty::Pred, {ids}, [](Builder &b, std::vector<Reg> s) {
    return b.vote(VoteMode::Any, b.setp(Cmp::Eq, Ty::U32, s[0], imm(31)));
  });
  EXPECT_EQ(any[3], 1u);
  V all = lanes({Ty::U32}, Ty::Pred, {ids}, [](Builder &b, std::vector<Reg> s) {
    return b.vote(VoteMode::All, b.setp(Cmp::Lt, Ty::U32, s[0], imm(31)));
  });
  EXPECT_EQ(all[3], 0u);
  // activemask inside a divergent branch: odd lanes only
  std::vector<uint32_t> out(32, 0);
  Function fn;
  fn.name = "active";
  fn.num_warps = 1;
  uint32_t po = fn.add_param("out", Ty::U64);
  Builder b(fn);
  BlockId entry = b.new_block("entry"), odd = b.new_block("odd"), join = b.new_block("join");
  b.set_block(entry);
  Reg tid = b.special(Sreg::TidX);
  Reg m = b.mov(Ty::B32, imm(0));
  Reg even = b.setp(Cmp::Eq, Ty::B32, b.and_(Ty::B32, tid, imm(1)), imm(0));
  b.bra_if(even, join);
  b.set_block(odd);
  Instr am;
  am.op = Op::Activemask;
  am.ty = Ty::B32;
  am.dst = {m};
  b.emit(am);
  b.set_block(join);
  b.st(Space::Global, Ty::U32, Operand::addr(elem_addr(b, b.ld_param(po), tid, 4)), {m});
  b.ret();
  run(fn, {SimArg::pointer(out.data())}, {buffer(out, "out")});
  EXPECT_EQ(out[1], 0xaaaaaaaau);
  EXPECT_EQ(out[2], 0u);
}

TEST(SimBarrier, ProducerConsumerWithNamedBarriers) {
  // Warps 0-1 write shared memory and bar.arrive(1, 128); warps 2-3 bar.sync(1, 128) and
  // read what the producers wrote.
  Function fn;
  fn.name = "prodcons";
  fn.num_warps = 4;
  fn.shared_bytes = 64 * 4;
  uint32_t po = fn.add_param("out", Ty::U64);
  Builder b(fn);
  BlockId entry = b.new_block("entry"), prod = b.new_block("producer"),
          cons = b.new_block("consumer"), done = b.new_block("done");
  b.set_block(entry);
  Reg tid = b.special(Sreg::TidX);
  Reg out = b.ld_param(po);
  Reg is_cons = b.setp(Cmp::Ge, Ty::U32, tid, imm(64));
  b.bra_if(is_cons, cons);
  b.set_block(prod);
  Reg v = b.mad(Ty::U32, tid, imm(3), imm(7));
  b.st(Space::Shared, Ty::U32, Operand::addr(b.mad(Ty::U32, tid, imm(4), b.shared_addr())), {v});
  Instr arrive;
  arrive.op = Op::BarArrive;
  arrive.src = {imm(1), imm(128)};
  b.emit(arrive);
  b.bra(done);
  b.set_block(cons);
  b.bar_sync(imm(1), imm(128));
  Reg idx = b.sub(Ty::U32, tid, imm(64));
  Reg got =
      b.ld1(Space::Shared, Ty::U32, Operand::addr(b.mad(Ty::U32, idx, imm(4), b.shared_addr())));
  b.st(Space::Global, Ty::U32, Operand::addr(elem_addr(b, out, idx, 4)), {got});
  b.set_block(done);
  b.ret();
  // 128 threads = 64 arriving producers + 64 waiting consumers.
  std::vector<uint32_t> res(64, 0);
  run(fn, {SimArg::pointer(res.data())}, {buffer(res, "out")});
  for (int i = 0; i < 64; ++i)
    EXPECT_EQ(res[i], static_cast<uint32_t>(i * 3 + 7));
}

TEST(SimBarrier, WaitersBlockUntilAllArrive) {
  // Warp 0 reaches bar.sync first and must wait there until warp 1 has written the value.
  Function fn;
  fn.name = "order";
  fn.num_warps = 2;
  fn.shared_bytes = 4;
  uint32_t po = fn.add_param("out", Ty::U64);
  Builder b(fn);
  BlockId entry = b.new_block("entry"), w1 = b.new_block("w1"), sync = b.new_block("sync");
  b.set_block(entry);
  Reg tid = b.special(Sreg::TidX);
  Reg is_w0 = b.setp(Cmp::Lt, Ty::U32, tid, imm(32));
  b.bra_if(is_w0, sync);
  b.set_block(w1);
  Reg one = b.setp(Cmp::Eq, Ty::U32, tid, imm(32));
  {
    auto g = b.guarded(one);
    b.st(Space::Shared, Ty::U32, Operand::shared(0), {imm(42)});
  }
  b.set_block(sync);
  b.bar_sync(0);
  Reg v = b.ld1(Space::Shared, Ty::U32, Operand::shared(0));
  b.st(Space::Global, Ty::U32, Operand::addr(elem_addr(b, b.ld_param(po), tid, 4)), {v});
  b.ret();
  std::vector<uint32_t> out(64, 0);
  run(fn, {SimArg::pointer(out.data())}, {buffer(out, "out")});
  EXPECT_EQ(out[0], 42u);
  EXPECT_EQ(out[63], 42u);
}

TEST(SimBarrier, ExitedThreadsDoNotBlockAndDeadlockIsReported) {
  // Warps 1..3 exit; warp 0's bar.sync 0 (every live thread) completes.
  Function fn;
  fn.name = "exits";
  fn.num_warps = 4;
  Builder b(fn);
  BlockId entry = b.new_block("entry"), rest = b.new_block("rest");
  b.set_block(entry);
  Reg tid = b.special(Sreg::TidX);
  Reg high = b.setp(Cmp::Ge, Ty::U32, tid, imm(32));
  {
    auto g = b.guarded(high);
    b.exit();
  }
  b.set_block(rest);
  b.bar_sync(0);
  b.ret();
  EXPECT_NO_THROW(run(fn, {}, {}));
  // With an explicit count of 128 the barrier can never complete.
  for (Instr &in : fn.blocks[1].instrs)
    if (in.op == Op::Bar)
      in.src = {imm(0), imm(128)};
  std::string err = sim_error([&] { run(fn, {}, {}); });
  EXPECT_TRUE(contains(err, "deadlock in CTA (0, 0, 0)")) << err;
  EXPECT_TRUE(contains(err, "warp 0: waits on barrier 0 warp 1: exited")) << err;
}
