// PTX printing: the sample kernels and a kernel with every instruction form are printed
// and assembled by the local ptxas for sm_80 and sm_90a (skipped when ptxas is absent).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "../simt/Programs.h"
#include "codegen/PtxPrinter.h"

using namespace tilec;
using namespace tilec::simt;
using codegen::print_ptx;
using codegen::PtxTarget;

namespace {

std::string find_ptxas() {
  if (const char *e = std::getenv("TILEC_PTXAS"); e && *e && std::filesystem::exists(e))
    return e;
  if (const char *path = std::getenv("PATH")) {
    std::string p = path;
    size_t at = 0;
    while (at <= p.size()) {
      size_t end = p.find(':', at);
      if (end == std::string::npos)
        end = p.size();
      std::filesystem::path cand = std::filesystem::path(p.substr(at, end - at)) / "ptxas";
      if (!cand.empty() && std::filesystem::exists(cand))
        return cand.string();
      at = end + 1;
    }
  }
  for (const char *c : {"/usr/local/cuda/bin/ptxas", "/opt/cuda/bin/ptxas"})
    if (std::filesystem::exists(c))
      return c;
  return "";
}

struct PtxasResult {
  bool ok = false;
  std::string log;
};

PtxasResult run_ptxas(const std::string &ptx, const std::string &arch) {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path();
  std::string stem =
      "tilec_ptx_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  auto src = dir / (stem + ".ptx"), out = dir / (stem + ".cubin"), log = dir / (stem + ".log");
  std::ofstream(src) << ptx;
  std::string cmd = "\"" + find_ptxas() + "\" -arch=" + arch + " \"" + src.string() + "\" -o \"" +
                    out.string() + "\" > \"" + log.string() + "\" 2>&1";
  PtxasResult r;
  r.ok = std::system(cmd.c_str()) == 0;
  std::ifstream in(log);
  r.log.assign(std::istreambuf_iterator<char>(in), {});
  std::filesystem::remove(src);
  std::filesystem::remove(out);
  std::filesystem::remove(log);
  return r;
}

PtxTarget sm80() {
  PtxTarget t;
  t.sm = 80;
  return t;
}
PtxTarget sm90a() { return PtxTarget{}; }

#define REQUIRE_PTXAS()                                                                            \
  if (find_ptxas().empty())                                                                        \
  GTEST_SKIP() << "ptxas not found (set TILEC_PTXAS)"

void expect_assembles(const Function &fn, const PtxTarget &t) {
  std::string ptx = print_ptx(fn, t);
  PtxasResult r = run_ptxas(ptx, t.arch());
  EXPECT_TRUE(r.ok) << "ptxas -arch=" << t.arch() << " rejected " << fn.name << ":\n"
                    << r.log << "\n---\n"
                    << ptx;
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

bool int_range_contains(Ty outer, Ty inner) {
  bool os = ty_is_signed(outer), is = ty_is_signed(inner);
  if (os == is)
    return ty_bits(outer) >= ty_bits(inner);
  return os && ty_bits(outer) > ty_bits(inner);
}

// One kernel using every instruction form valid on sm_80 (and, with sm90, the forms
// that need sm_90).
Function all_forms(bool sm90) {
  Function fn;
  fn.name = sm90 ? "all_forms_sm90" : "all_forms";
  fn.num_warps = 4;
  fn.shared_bytes = 1024;
  uint32_t pp = fn.add_param("ptr", Ty::U64), pn = fn.add_param("n", Ty::S32),
           pf = fn.add_param("f", Ty::F32), pd = fn.add_param("d", Ty::F64),
           pl = fn.add_param("l", Ty::S64), ph = fn.add_param("h", Ty::F16);
  Builder b(fn);
  BlockId entry = b.new_block("entry");
  b.set_block(entry);
  Reg ptr = b.ld_param(pp), n = b.ld_param(pn), f = b.ld_param(pf), d = b.ld_param(pd),
      l = b.ld_param(pl), h = b.ld_param(ph);
  // special registers
  for (Sreg s : {Sreg::TidX,       Sreg::TidY,       Sreg::TidZ,       Sreg::NtidX,  Sreg::NtidY,
                 Sreg::NtidZ,      Sreg::CtaidX,     Sreg::CtaidY,     Sreg::CtaidZ, Sreg::NctaidX,
                 Sreg::NctaidY,    Sreg::NctaidZ,    Sreg::LaneId,     Sreg::WarpId, Sreg::NWarpId,
                 Sreg::LanemaskLt, Sreg::LanemaskLe, Sreg::LanemaskEq, Sreg::Clock,  Sreg::Clock64})
    b.special(s);
  Reg tid = b.special(Sreg::TidX);
  Reg p = b.setp(Cmp::Lt, Ty::S32, tid, n);
  // integer arithmetic over widths and signedness
  for (Ty t : {Ty::S16, Ty::U16, Ty::S32, Ty::U32, Ty::S64, Ty::U64}) {
    Reg a = b.mov(t, imm(7));
    Reg c = b.mov(t, imm(3));
    for (Op op : {Op::Add, Op::Sub, Op::Div, Op::Rem, Op::Min, Op::Max})
      b.binary(op, t, a, c);
    b.mul(t, a, c);
    b.mul_hi(t, a, c);
    b.mad(t, a, c, a);
    b.abs(ty_is_signed(t) ? t : ty_sint(ty_bits(t)), a);
    b.neg(ty_sint(ty_bits(t)), a);
    b.shl(ty_bits_of(ty_bits(t)), a, imm(3));
    b.shr(t, a, tid);
    for (Cmp cm : {Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge})
      b.setp(cm, t, a, c);
    b.selp(t, a, c, p);
    if (ty_bits(t) <= 32)
      b.mad_wide(t, a, c,
                 b.mov(ty_bits(t) == 16 ? (ty_is_signed(t) ? Ty::S32 : Ty::U32)
                                        : (ty_is_signed(t) ? Ty::S64 : Ty::U64),
                       imm(1)));
  }
  {
    Reg a = b.mov(Ty::S32, imm(5));
    Mods sat;
    sat.sat = true;
    b.binary(Op::Add, Ty::S32, a, a, sat);
    b.binary(Op::Sub, Ty::S32, a, a, sat);
    for (Cmp cm : {Cmp::Lo, Cmp::Ls, Cmp::Hi, Cmp::Hs})
      b.setp(cm, Ty::U32, a, tid);
  }
  for (Ty t : {Ty::B16, Ty::B32, Ty::B64}) {
    Reg a = b.mov(t, imm(0x55));
    b.and_(t, a, a);
    b.or_(t, a, imm(1));
    b.xor_(t, a, a);
    b.not_(t, a);
    if (t != Ty::B16) {
      b.unary(Op::Popc, t, a);
      b.unary(Op::Clz, t, a);
      b.unary(Op::Brev, t, a);
    }
  }
  b.ternary(Op::Prmt, Ty::B32, tid, n, imm(0x5410));
  {
    Reg q = b.setp(Cmp::Gt, Ty::S32, tid, imm(3));
    b.and_(Ty::Pred, p, q);
    b.or_(Ty::Pred, p, q);
    b.xor_(Ty::Pred, p, q);
    b.not_(Ty::Pred, p);
    b.mov(Ty::Pred, p);
  }
  // f32 / f64 arithmetic with rounding modes and ftz
  for (Ty t : {Ty::F32, Ty::F64}) {
    Reg a = t == Ty::F32 ? f : d;
    for (Rnd r : {Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp}) {
      Mods m;
      m.rnd = r;
      b.binary(Op::Add, t, a, a, m);
      b.binary(Op::Sub, t, a, a, m);
      b.binary(Op::Mul, t, a, a, m);
      b.binary(Op::Div, t, a, a, m);
      b.ternary(Op::Fma, t, a, a, a, m);
      b.unary(Op::Sqrt, t, a, m);
      b.unary(Op::Rcp, t, a, m);
    }
    Mods ftz;
    ftz.ftz = t == Ty::F32;
    ftz.sat = t == Ty::F32;
    ftz.rnd = Rnd::Rn;
    b.binary(Op::Add, t, a, a, ftz);
    b.ternary(Op::Mad, t, a, a, a, ftz);
    b.ternary(Op::Fma, t, a, a, a, ftz);
    b.abs(t, a);
    b.neg(t, a);
    b.min(t, a, a);
    b.max(t, a, a);
    for (Cmp cm : {Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Equ, Cmp::Neu,
                   Cmp::Ltu, Cmp::Leu, Cmp::Gtu, Cmp::Geu, Cmp::Num, Cmp::Nan})
      b.setp(cm, t, a, a);
    b.selp(t, a, a, p);
    b.approx(Op::Rsqrt, t, a);
    b.approx(Op::Rcp, t, a);
    b.last().m.ftz = t == Ty::F64; // rcp.approx.f64 exists only with .ftz
  }
  {
    Mods m;
    m.approx = true;
    m.ftz = true;
    for (Op op : {Op::Ex2, Op::Lg2, Op::Sqrt, Op::Rsqrt, Op::Rcp, Op::Sin, Op::Cos})
      b.unary(op, Ty::F32, f, m);
    b.approx(Op::Tanh, Ty::F32, f);
    b.approx(Op::Ex2, Ty::F32, f);
    b.binary(Op::Div, Ty::F32, f, f, m);
    Mods full;
    full.full = true;
    b.binary(Op::Div, Ty::F32, f, f, full);
    b.min(Ty::F32, f, f, true);
    Mods fm;
    fm.ftz = true;
    fm.nan = true;
    b.binary(Op::Max, Ty::F32, f, f, fm);
  }
  // f16 / bf16 / packed arithmetic
  Reg h2 = b.cvt_pack(Ty::F16x2, Ty::F32, f, f);
  Reg bh2 = b.cvt_pack(Ty::BF16x2, Ty::F32, f, f);
  Reg bh = b.cvt(Ty::BF16, Ty::F32, f, Rnd::Rn);
  for (Ty t : {Ty::F16, Ty::F16x2}) {
    Reg a = t == Ty::F16 ? h : h2;
    b.add(t, a, a);
    b.sub(t, a, a);
    b.mul(t, a, a);
    b.fma(t, a, a, a);
    b.min(t, a, a);
    b.max(t, a, a, true);
    b.neg(t, a);
    b.abs(t, a);
    b.approx(Op::Ex2, t, a);
    Mods relu;
    relu.rnd = Rnd::Rn;
    relu.relu = true;
    b.ternary(Op::Fma, t, a, a, a, relu);
  }
  b.setp(Cmp::Lt, Ty::F16, h, h);
  b.selp(Ty::F16, h, h, p);
  b.selp(Ty::BF16x2, bh2, bh2, p);
  b.atom(AtomOp::Exch, Ty::F32, Operand::addr(ptr), f);
  for (Ty t : {Ty::BF16, Ty::BF16x2}) {
    Reg a = t == Ty::BF16 ? bh : bh2;
    b.fma(t, a, a, a);
    b.min(t, a, a);
    b.max(t, a, a, true);
  }
  // conversions
  for (Ty it : {Ty::S8, Ty::U8, Ty::S16, Ty::U16, Ty::S32, Ty::U32, Ty::S64, Ty::U64}) {
    for (Ty ft : {Ty::F16, Ty::F32, Ty::F64}) {
      Reg x = ft == Ty::F16 ? h : ft == Ty::F32 ? f : d;
      for (Rnd r : {Rnd::Rni, Rnd::Rzi, Rnd::Rmi, Rnd::Rpi})
        b.cvt(it, ft, x, r);
      Reg i = b.cvt(it, ft, x, Rnd::Rzi, true);
      for (Rnd r : {Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp})
        b.cvt(ft, it, i, r);
    }
    for (Ty it2 : {Ty::S8, Ty::U8, Ty::S16, Ty::U16, Ty::S32, Ty::U32, Ty::S64, Ty::U64}) {
      if (it2 == it)
        continue;
      Reg i = b.mov(it2, imm(100));
      b.cvt(it, it2, i);
      if (!int_range_contains(it, it2))
        b.cvt(it, it2, i, Rnd::None, true);
    }
  }
  b.cvt(Ty::F64, Ty::F32, f);
  b.cvt(Ty::F32, Ty::F16, h);
  b.cvt(Ty::F64, Ty::F16, h);
  b.cvt(Ty::F32, Ty::BF16, bh);
  for (Rnd r : {Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp}) {
    b.cvt(Ty::F32, Ty::F64, d, r);
    b.cvt(Ty::F16, Ty::F32, f, r);
    b.cvt(Ty::F16, Ty::F64, d, r);
    b.cvt(Ty::BF16, Ty::F32, f, r);
  }
  for (Rnd r : {Rnd::Rni, Rnd::Rzi, Rnd::Rmi, Rnd::Rpi}) {
    b.cvt(Ty::F32, Ty::F32, f, r);
    b.cvt(Ty::F64, Ty::F64, d, r);
  }
  {
    Instr in;
    in.op = Op::Cvt;
    in.ty = Ty::F16;
    in.src_ty = Ty::F32;
    in.m.rnd = Rnd::Rn;
    in.m.relu = true;
    in.dst = {b.reg(Ty::F16)};
    in.src = {f};
    b.emit(in);
    b.cvt(Ty::F32, Ty::F32, f, Rnd::None, true); // cvt.sat.f32.f32
    b.last().m.ftz = true;
    b.cvt(Ty::TF32, Ty::F32, f, Rnd::Rna);
  }
  if (sm90) {
    Reg e4 = b.cvt_pack(Ty::E4M3x2, Ty::F32, f, f, Rnd::Rn, true);
    Reg e5 = b.cvt_pack(Ty::E5M2x2, Ty::F32, f, f, Rnd::Rn, true);
    b.cvt(Ty::F16x2, Ty::E4M3x2, e4, Rnd::Rn);
    b.cvt(Ty::F16x2, Ty::E5M2x2, e5, Rnd::Rn);
    Reg e4b = b.cvt(Ty::E4M3x2, Ty::F16x2, h2, Rnd::Rn);
    b.last().m.satfinite = true;
    (void)e4b;
    b.add(Ty::BF16, bh, bh);
    b.mul(Ty::BF16x2, bh2, bh2);
    b.cvt(Ty::BF16, Ty::F16, h, Rnd::Rn);
    b.approx(Op::Ex2, Ty::BF16, bh);
    b.last().m.ftz = true; // ex2.approx.bf16 exists only with .ftz
    b.atom(AtomOp::Add, Ty::BF16, Operand::addr(ptr), bh);
    b.atom(AtomOp::Add, Ty::BF16x2, Operand::addr(ptr), bh2);
  }
  // pack / unpack
  std::vector<Reg> halves = b.unpack(Ty::F16, 2, h2);
  b.pack(Ty::B32, {halves[0], halves[1]});
  std::vector<Reg> words = b.unpack(Ty::B32, 2, l);
  b.pack(Ty::B64, {words[1], words[0]});
  // memory: every space, width, vector, cache operator and hint
  Reg smem = b.shared_addr();
  Reg addr = b.mad_wide(Ty::S32, tid, imm(16), ptr);
  for (Ty t : {Ty::U8, Ty::S8, Ty::B16, Ty::B32, Ty::B64, Ty::F32, Ty::F64, Ty::U64}) {
    b.ld(Space::Global, t, Operand::addr(addr), 1);
    b.ld(Space::Shared, t, Operand::addr(smem, 16), 1);
    b.ld(Space::None, t, Operand::addr(addr), 1);
    Reg v = b.mov(t == Ty::U8 || t == Ty::S8 ? Ty::U16 : t, imm(1));
    b.st(Space::Global, t, Operand::addr(addr), {v});
    b.st(Space::Shared, t, Operand::addr(smem, 8), {v});
  }
  b.ld(Space::Shared, Ty::B32, Operand::shared(32), 4);
  for (int vec : {2, 4}) {
    std::vector<Reg> vs = b.ld(Space::Global, Ty::B32, Operand::addr(addr), vec);
    std::vector<Operand> ops(vs.begin(), vs.end());
    b.st(Space::Global, Ty::B32, Operand::addr(addr), ops);
    b.st(Space::Shared, Ty::B32, Operand::addr(smem), ops);
  }
  {
    std::vector<Reg> vs = b.ld(Space::Global, Ty::B64, Operand::addr(addr), 2);
    b.st(Space::Global, Ty::B64, Operand::addr(addr), {vs[0], vs[1]});
  }
  for (CacheOp c : {CacheOp::Ca, CacheOp::Cg, CacheOp::Cs, CacheOp::Lu, CacheOp::Cv})
    b.ld(Space::Global, Ty::B32, Operand::addr(addr), 4, {.cache = c});
  for (CacheOp c : {CacheOp::Wb, CacheOp::Cg, CacheOp::Cs, CacheOp::Wt})
    b.st(Space::Global, Ty::B32, Operand::addr(addr), {tid}, {.cache = c});
  for (Evict e : {Evict::Normal, Evict::First, Evict::Last, Evict::Unchanged, Evict::NoAllocate}) {
    b.ld(Space::Global, Ty::B32, Operand::addr(addr), 2, {.evict = e});
    b.st(Space::Global, Ty::B32, Operand::addr(addr), {tid}, {.evict = e});
  }
  for (Evict e : {Evict::First, Evict::Last, Evict::Normal, Evict::Unchanged}) {
    Reg pol = b.create_policy(e, e == Evict::Last ? 0.5f : 1.0f);
    b.ld(Space::Global, Ty::B32, Operand::addr(addr), 4, {.policy = pol});
    b.ld(Space::Global, Ty::B32, Operand::addr(addr), 1, {.evict = Evict::First, .policy = pol});
    b.st(Space::Global, Ty::F32, Operand::addr(addr), {f}, {.policy = pol});
  }
  b.ld(Space::Global, Ty::B32, Operand::addr(addr), 1, {.vol = true});
  b.st(Space::Global, Ty::B32, Operand::addr(addr), {tid}, {.vol = true});
  {
    auto g = b.guarded(p);
    b.ld(Space::Global, Ty::B32, Operand::addr(addr), 4);
  }
  // atomics
  for (Ty t : {Ty::U32, Ty::S32, Ty::U64, Ty::S64})
    for (AtomOp op : {AtomOp::Add, AtomOp::Min, AtomOp::Max})
      if (!(op == AtomOp::Add && t == Ty::S64))
        b.atom(op, t, Operand::addr(ptr), b.mov(t, imm(1)));
  for (Ty t : {Ty::B32, Ty::B64})
    for (AtomOp op : {AtomOp::And, AtomOp::Or, AtomOp::Xor, AtomOp::Exch}) {
      b.atom(op, t, Operand::addr(ptr), b.mov(t, imm(1)));
      b.red(op == AtomOp::Exch ? AtomOp::And : op, t, Operand::addr(ptr), b.mov(t, imm(1)));
    }
  for (Ty t : {Ty::B16, Ty::B32, Ty::B64})
    b.atom(AtomOp::Cas, t, Operand::addr(ptr), b.mov(t, imm(0)), b.mov(t, imm(1)));
  b.atom(AtomOp::Inc, Ty::U32, Operand::addr(ptr), imm(10));
  b.atom(AtomOp::Dec, Ty::U32, Operand::addr(ptr), imm(10));
  b.atom(AtomOp::Add, Ty::F32, Operand::addr(ptr), f);
  b.atom(AtomOp::Add, Ty::F64, Operand::addr(ptr), d);
  b.atom(AtomOp::Add, Ty::F16, Operand::addr(ptr), h);
  b.atom(AtomOp::Add, Ty::F16x2, Operand::addr(ptr), h2);
  b.red(AtomOp::Add, Ty::F32, Operand::addr(ptr), f);
  b.red(AtomOp::Add, Ty::U64, Operand::addr(ptr), l);
  b.atom(AtomOp::Add, Ty::U32, Operand::addr(smem), imm(1), {}, Sem::None, Scope::None,
         Space::Shared);
  for (Sem s : {Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel})
    for (Scope sc : {Scope::Cta, Scope::Gpu, Scope::Sys}) {
      b.atom(AtomOp::Add, Ty::U32, Operand::addr(ptr), imm(1), {}, s, sc);
      b.atom(AtomOp::Cas, Ty::B32, Operand::addr(ptr), imm(0), imm(1), s, sc);
      if (s == Sem::Relaxed || s == Sem::Release)
        b.red(AtomOp::Add, Ty::F32, Operand::addr(ptr), f, s, sc);
    }
  // warp operations
  for (ShflMode sm : {ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx}) {
    b.shfl(sm, f, imm(1), imm(sm == ShflMode::Up ? 0 : 0x1f));
    Reg valid;
    b.shfl(sm, tid, tid, imm(0x101f), imm(-1), &valid);
  }
  b.vote(VoteMode::Ballot, p);
  b.vote(VoteMode::Any, p);
  b.vote(VoteMode::All, p, imm(-1));
  b.vote(VoteMode::Uni, p);
  {
    Instr in;
    in.op = Op::Activemask;
    in.ty = Ty::B32;
    in.dst = {b.reg(Ty::B32)};
    b.emit(in);
  }
  b.bar_sync(0);
  b.bar_sync(imm(1), imm(64));
  {
    Instr in;
    in.op = Op::BarArrive;
    in.src = {imm(2), imm(128)};
    b.emit(in);
  }
  for (Scope s : {Scope::Cta, Scope::Gpu, Scope::Sys})
    b.membar(s);
  for (Sem s : {Sem::Sc, Sem::AcqRel})
    for (Scope sc : {Scope::Cta, Scope::Gpu, Scope::Sys})
      b.fence(s, sc);
  // control flow and debugging
  BlockId loop = b.new_block("loop"), tail = b.new_block("tail"), dead = b.new_block("dead");
  b.bra(loop, true);
  b.set_block(loop);
  Reg dd = b.cvt(Ty::F64, Ty::F32, f);
  {
    auto g = b.guarded(p);
    b.vprintf("tid %u f=%f l=%lld\n", {tid, dd, l});
  }
  b.vprintf("no args\n", {});
  Reg again = b.setp(Cmp::Gt, Ty::S32, n, imm(100));
  b.bra_if(again, loop);
  b.set_block(tail);
  Reg bad = b.setp(Cmp::Lt, Ty::S32, n, imm(0));
  {
    auto g = b.guarded(bad);
    b.assert_fail("n >= 0", "kernel.py", 12, "all_forms");
    b.trap();
    b.exit();
  }
  b.ret();
  b.set_block(dead);
  b.exit();
  return fn;
}

} // namespace

TEST(Ptx, HeaderAndDeclarations) {
  Function fn = test::block_reduce(8);
  std::string ptx = print_ptx(fn, sm80());
  EXPECT_TRUE(contains(ptx, ".version 8.0\n.target sm_80\n.address_size 64\n")) << ptx;
  EXPECT_TRUE(contains(ptx, ".visible .entry block_reduce(\n  .param .u64 block_reduce_param_0,\n"
                            "  .param .u64 block_reduce_param_1\n)\n.reqntid 256, 1, 1\n{"))
      << ptx;
  EXPECT_TRUE(contains(ptx, ".extern .shared .align 16 .b8 global_smem[];")) << ptx;
  EXPECT_TRUE(contains(ptx, "  .reg .pred %p<"));
  EXPECT_TRUE(contains(ptx, "$L__entry:\n"));
  EXPECT_TRUE(contains(ptx, "  bar.sync 0;\n"));
  EXPECT_FALSE(contains(ptx, "vprintf"));
  std::string p90 = print_ptx(fn, sm90a());
  EXPECT_TRUE(contains(p90, ".target sm_90a\n"));
  PtxTarget v83;
  v83.ptx_minor = 3;
  v83.arch_specific = false;
  EXPECT_TRUE(contains(print_ptx(fn, v83), ".version 8.3\n.target sm_90\n"));
}

TEST(Ptx, PrintfAndAssertExpansion) {
  Function fn = test::printf_kernel();
  std::string ptx = print_ptx(fn, sm80());
  EXPECT_TRUE(contains(ptx, ".extern .func (.param .b32 func_retval0) vprintf(")) << ptx;
  EXPECT_TRUE(contains(ptx, ".global .align 1 .b8 $str0[40] = {112, 105, 100,")) << ptx;
  EXPECT_TRUE(contains(ptx, ".local .align 8 .b8 __local_depot[24];")) << ptx;
  // args at offsets 0 (u32), 4 (u32), 8 (f64), 16 (s64)
  EXPECT_TRUE(contains(ptx, "st.local.b32 [%SPL+4], %r1;")) << ptx;
  EXPECT_TRUE(contains(ptx, "st.local.b64 [%SPL+16], %rd5;")) << ptx;
  EXPECT_TRUE(contains(ptx, "call.uni (retval0), vprintf, (param0, param1);")) << ptx;
}

TEST(Ptx, VerifierRunsFirst) {
  Function fn = test::vector_add();
  fn.blocks[0].instrs[0].src[0] = imm(3); // ld.param of an immediate
  EXPECT_THROW(print_ptx(fn), InternalError);
}

TEST(Ptxas, SampleKernels) {
  REQUIRE_PTXAS();
  for (const Function &fn : {test::vector_add(), test::warp_reduce(), test::block_reduce(),
                             test::atomic_counter(), test::printf_kernel(), test::divergent()}) {
    expect_assembles(fn, sm80());
    expect_assembles(fn, sm90a());
  }
}

TEST(Ptxas, EveryInstructionFormSm80) {
  REQUIRE_PTXAS();
  Function fn = all_forms(false);
  expect_assembles(fn, sm80());
  expect_assembles(fn, sm90a());
}

TEST(Ptxas, EveryInstructionFormSm90) {
  REQUIRE_PTXAS();
  expect_assembles(all_forms(true), sm90a());
}

TEST(Ptxas, RejectsWhatTheTargetLacks) {
  REQUIRE_PTXAS();
  // The check can fail: bf16 add needs sm_90, and ptxas says so for sm_80.
  Function fn = all_forms(true);
  PtxasResult r = run_ptxas(print_ptx(fn, sm80()), "sm_80");
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.log, "sm_90")) << r.log;
}
