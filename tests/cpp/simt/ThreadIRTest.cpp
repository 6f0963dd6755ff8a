#include <gtest/gtest.h>

#include "Programs.h"
#include "simt/Format.h"
#include "simt/Verifier.h"

using namespace tilec;
using namespace tilec::simt;

namespace {

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

std::string one(Function &fn) {
  RegNames rn(fn);
  return format_instr(fn, rn, fn.blocks.at(0).instrs.back());
}

struct Fixture {
  Function fn;
  Builder b{fn};
  Fixture() {
    fn.name = "k";
    b.set_block(b.new_block("entry"));
  }
};

} // namespace

TEST(ThreadIR, TypeTraits) {
  EXPECT_EQ(ty_bits(Ty::U8), 8);
  EXPECT_EQ(ty_reg_bits(Ty::S8), 16);
  EXPECT_EQ(ty_reg_bits(Ty::F16x2), 32);
  EXPECT_EQ(ty_reg_bits(Ty::E4M3x2), 16);
  EXPECT_EQ(ty_reg_bits(Ty::Pred), 1);
  EXPECT_TRUE(ty_is_float(Ty::BF16));
  EXPECT_TRUE(ty_is_signed(Ty::S64));
  EXPECT_FALSE(ty_is_signed(Ty::B32));
  EXPECT_STREQ(ty_name(Ty::BF16x2), "bf16x2");
  EXPECT_EQ(ty_uint(16), Ty::U16);
  EXPECT_STREQ(op_mnemonic(Op::Shfl), "shfl");
  EXPECT_EQ(op_num_src(Op::Fma), 3);
  EXPECT_EQ(op_num_dst(Op::Ld), -1);
}

TEST(ThreadIR, RegistersAreNamedByWidthClass) {
  Function fn;
  Reg a = fn.new_reg(Ty::F32), p = fn.new_reg(Ty::Pred), h = fn.new_reg(Ty::F16),
      c = fn.new_reg(Ty::U8), d = fn.new_reg(Ty::U64), e = fn.new_reg(Ty::F16x2);
  RegNames rn(fn);
  EXPECT_EQ(rn.name(a), "%r1");
  EXPECT_EQ(rn.name(p), "%p1");
  EXPECT_EQ(rn.name(h), "%rs1");
  EXPECT_EQ(rn.name(c), "%rs2");
  EXPECT_EQ(rn.name(d), "%rd1");
  EXPECT_EQ(rn.name(e), "%r2");
  EXPECT_EQ(rn.count_b32(), 3);
  EXPECT_EQ(rn.count_b16(), 3);
}

TEST(ThreadIR, ImmediatesPrintByType) {
  Fixture f;
  Reg x = f.b.reg(Ty::F32);
  f.b.add(Ty::F32, x, Operand::f32(1.0f));
  EXPECT_EQ(one(f.fn), "add.rn.f32 %r2, %r1, 0f3F800000;");
  f.b.add(Ty::F32, x, imm(2)); // an integer immediate read as f32 is its value
  EXPECT_EQ(one(f.fn), "add.rn.f32 %r3, %r1, 0f40000000;");
  Reg y = f.b.reg(Ty::F64);
  f.b.mul(Ty::F64, y, Operand::f64(0.5));
  EXPECT_EQ(one(f.fn), "mul.rn.f64 %rd2, %rd1, 0d3FE0000000000000;");
  Reg i = f.b.reg(Ty::S32);
  f.b.add(Ty::S32, i, imm(-3));
  EXPECT_EQ(one(f.fn), "add.s32 %r5, %r4, -3;");
  f.b.and_(Ty::B32, i, imm(0xffffffff));
  EXPECT_EQ(one(f.fn), "and.b32 %r6, %r4, 4294967295;");
  EXPECT_EQ(imm_bits(Operand::f32(1.5f), Ty::F64), 0x3FF8000000000000ull);
  EXPECT_EQ(imm_bits(imm(-1), Ty::U16), 0xffffu);
  EXPECT_EQ(imm_bits(imm(3), Ty::Pred), 1u);
}

TEST(ThreadIR, BuilderForms) {
  Fixture f;
  Builder &b = f.b;
  uint32_t pp = f.fn.add_param("ptr", Ty::U64);
  Reg ptr = b.ld_param(pp);
  EXPECT_EQ(one(f.fn), "ld.param.u64 %rd1, [k_param_0];");
  Reg tid = b.special(Sreg::TidX);
  EXPECT_EQ(one(f.fn), "mov.u32 %r1, %tid.x;");
  Reg w = b.mul_wide(Ty::S32, tid, imm(4));
  EXPECT_EQ(f.fn.reg_ty(w), Ty::S64);
  EXPECT_EQ(one(f.fn), "mul.wide.s32 %rd2, %r1, 4;");
  Reg p = b.setp(Cmp::Lt, Ty::S32, tid, imm(7));
  {
    auto g = b.guarded(p, true);
    b.ld(Space::Global, Ty::B32, Operand::addr(ptr, 16), 4, {.cache = CacheOp::Cg});
  }
  EXPECT_EQ(one(f.fn), "@!%p1 ld.global.cg.v4.b32 {%r2, %r3, %r4, %r5}, [%rd1+16];");
  b.ld1(Space::Global, Ty::F32, Operand::addr(ptr, -8), {.evict = Evict::Last});
  EXPECT_EQ(one(f.fn), "ld.global.L1::evict_last.f32 %r6, [%rd1+-8];"); // guard scope ended
  Reg pol = b.create_policy(Evict::First);
  EXPECT_EQ(one(f.fn), "createpolicy.fractional.L2::evict_first.b64 %rd3;");
  b.st(Space::Global, Ty::F32, Operand::addr(ptr), {Operand::f32(2.0f)}, {.policy = pol});
  EXPECT_EQ(one(f.fn), "st.global.L2::cache_hint.f32 [%rd1], 0f40000000, %rd3;");
  Reg h = b.cvt_pack(Ty::F16x2, Ty::F32, Operand::f32(1.0f), Operand::f32(2.0f));
  EXPECT_EQ(one(f.fn), "cvt.rn.f16x2.f32 %r7, 0f3F800000, 0f40000000;");
  std::vector<Reg> parts = b.unpack(Ty::F16, 2, h);
  EXPECT_EQ(one(f.fn), "mov.b32 {%rs1, %rs2}, %r7;");
  b.pack(Ty::BF16x2, {parts[1], parts[0]});
  EXPECT_EQ(one(f.fn), "mov.b32 %r8, {%rs2, %rs1};");
  Reg valid;
  b.shfl(ShflMode::Down, tid, imm(1), imm(0x1f), imm(-1), &valid);
  EXPECT_EQ(one(f.fn), "shfl.sync.down.b32 %r9|%p2, %r1, 1, 31, 4294967295;");
  b.atom(AtomOp::Cas, Ty::B32, Operand::addr(ptr), imm(0), imm(1), Sem::AcqRel, Scope::Gpu);
  EXPECT_EQ(one(f.fn), "atom.global.acq_rel.gpu.cas.b32 %r10, [%rd1], 0, 1;");
  Reg hv = b.reg(Ty::F16);
  b.red(AtomOp::Add, Ty::F16, Operand::addr(ptr), hv);
  EXPECT_EQ(one(f.fn), "red.global.add.noftz.f16 [%rd1], %rs3;");
  b.cvt(Ty::S32, Ty::F32, Operand::f32(1.5f), Rnd::Rzi);
  EXPECT_EQ(one(f.fn), "cvt.rzi.s32.f32 %r11, 0f3FC00000;");
  b.approx(Op::Ex2, Ty::F32, tid);
  EXPECT_EQ(one(f.fn), "ex2.approx.f32 %r12, %r1;");
  b.fence(Sem::AcqRel, Scope::Gpu);
  EXPECT_EQ(one(f.fn), "fence.acq_rel.gpu;");
  b.membar(Scope::Gpu);
  EXPECT_EQ(one(f.fn), "membar.gl;");
  b.bar_sync(0);
  EXPECT_EQ(one(f.fn), "bar.sync 0;");
  b.max(Ty::F32, tid, tid, true);
  EXPECT_EQ(one(f.fn), "max.NaN.f32 %r13, %r1, %r1;");
  b.vote(VoteMode::Ballot, p);
  EXPECT_EQ(one(f.fn), "vote.sync.ballot.b32 %r14, %p1, 4294967295;");
  Reg sm = b.shared_addr(64);
  EXPECT_EQ(one(f.fn), "mov.u32 %r15, global_smem+64;");
  b.ld1(Space::Shared, Ty::U8, Operand::addr(sm, 3));
  EXPECT_EQ(one(f.fn), "ld.shared.u8 %rs4, [%r15+3];");
  b.mov(Ty::F16, Operand::imm(0x3c00));
  EXPECT_EQ(one(f.fn), "mov.b16 %rs5, 15360;");
  b.selp(Ty::F16, hv, hv, p);
  EXPECT_EQ(one(f.fn), "selp.b16 %rs6, %rs3, %rs3, %p1;"); // PTX has no selp.f16
  b.atom(AtomOp::Exch, Ty::F32, Operand::addr(ptr), Operand::f32(1.0f));
  EXPECT_EQ(one(f.fn), "atom.global.exch.b32 %r16, [%rd1], 0f3F800000;");
  b.ret();
  EXPECT_NO_THROW(verify(f.fn));
}

TEST(ThreadIR, BlocksAndLabels) {
  Fixture f;
  BlockId l1 = f.b.new_block("loop body!");
  BlockId l2 = f.b.new_block("loop body!");
  EXPECT_EQ(f.fn.blocks[l1].label, "loop_body_");
  EXPECT_EQ(f.fn.blocks[l2].label, "loop_body__1");
  f.b.bra(l2, true);
  EXPECT_EQ(one(f.fn), "bra.uni $L__loop_body__1;");
  Reg p = f.b.reg(Ty::Pred);
  f.b.bra_if(p, l1, true);
  EXPECT_EQ(one(f.fn), "@!%p1 bra $L__loop_body_;");
}

TEST(ThreadIR, DumpShowsEverything) {
  Function fn = test::printf_kernel();
  std::string d = dump(fn);
  EXPECT_TRUE(contains(d, "func printf_kernel(x_ptr: u64) num_warps=1 shared=0"));
  EXPECT_TRUE(contains(d, "$str0 = \"pid (%u) tid %d: x=%.2f big=%lld 100%%\\n\""));
  EXPECT_TRUE(contains(d, "$L__print:"));
  EXPECT_TRUE(contains(d, "vprintf($str0, %r2, %r1, %rd3, %rd5);")) << d;
  EXPECT_TRUE(contains(d, "@!%p1 bra $L__done;")) << d;
}

TEST(ThreadIR, SamplesVerify) {
  EXPECT_NO_THROW(verify(test::vector_add()));
  EXPECT_NO_THROW(verify(test::warp_reduce()));
  EXPECT_NO_THROW(verify(test::block_reduce()));
  EXPECT_NO_THROW(verify(test::atomic_counter()));
  EXPECT_NO_THROW(verify(test::printf_kernel()));
  EXPECT_NO_THROW(verify(test::divergent()));
}

namespace {
void expect_invalid(Function &fn, const std::string &part) {
  try {
    verify(fn);
    ADD_FAILURE() << "expected a verifier error containing: " << part;
  } catch (const InternalError &e) {
    EXPECT_TRUE(contains(e.what(), part)) << e.what();
  }
}
} // namespace

TEST(ThreadIR, VerifierCatchesMistakes) {
  {
    Fixture f;
    Reg a = f.b.reg(Ty::U64);
    f.b.add(Ty::U32, a, imm(1)); // 64-bit register used as u32
    expect_invalid(f.fn, "register is .u64 but the instruction uses .u32");
  }
  {
    Fixture f;
    Reg a = f.b.reg(Ty::U32);
    f.b.set_guard(a); // not a predicate
    f.b.ret();
    expect_invalid(f.fn, "the guard is not a .pred register");
  }
  {
    Fixture f;
    Reg a = f.b.reg(Ty::U64);
    f.b.ld1(Space::Global, Ty::F32, Operand::addr(a), {.cache = CacheOp::Ca, .evict = Evict::Last});
    expect_invalid(f.fn, "cannot be combined with an eviction priority");
  }
  {
    Fixture f;
    Reg a = f.b.reg(Ty::U32);
    f.b.ld1(Space::Global, Ty::F32, Operand::addr(a));
    expect_invalid(f.fn, "an address register must be 64-bit");
  }
  {
    Fixture f;
    Reg a = f.b.reg(Ty::F16);
    f.b.add(Ty::F16, a, Operand::f32(1.0f));
    expect_invalid(f.fn, "PTX has no immediate of type .f16");
  }
  {
    Fixture f;
    f.b.mov(Ty::F16, Operand::f32(1.0f));
    expect_invalid(f.fn, "a float immediate cannot be read as .b16");
  }
  {
    Fixture f;
    Reg a = f.b.reg(Ty::F32);
    f.b.vprintf("%f", {a});
    expect_invalid(f.fn, "must be converted to f64");
  }
  {
    Fixture f;
    Instr in;
    in.op = Op::Mul;
    in.ty = Ty::S32;
    in.dst = {f.b.reg(Ty::S32)};
    in.src = {imm(1), imm(2)};
    f.b.emit(in);
    expect_invalid(f.fn, "integer mul/mad need .lo, .hi or .wide");
  }
  {
    Fixture f;
    f.fn.num_warps = 0;
    expect_invalid(f.fn, "num_warps must be 1..32");
  }
  {
    Fixture f;
    f.fn.name = "my-kernel";
    expect_invalid(f.fn, "the kernel name is not a PTX identifier");
  }
  {
    Fixture f;
    Reg a = f.b.reg(Ty::S32);
    f.b.cvt(Ty::S32, Ty::S8, a, Rnd::None, true);
    expect_invalid(f.fn, "register is .s32 but the instruction uses .s8");
    f.fn.blocks[0].instrs.clear();
    Reg c = f.b.reg(Ty::S8);
    f.b.cvt(Ty::S32, Ty::S8, c, Rnd::None, true);
    expect_invalid(f.fn, "cvt.sat between integers whose ranges nest");
  }
  {
    Fixture f;
    Reg a = f.b.reg(Ty::U64);
    f.b.atom(AtomOp::Add, Ty::S64, Operand::addr(a), imm(1));
    expect_invalid(f.fn, "no atom.add.s64");
  }
}
