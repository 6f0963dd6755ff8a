// Float math. fp32 follows Triton's fast paths where Triton has them: exp and log
// through ex2/lg2.approx with a log2(e) / ln(2) scaling, exp2 as ex2.approx.ftz (Triton's
// libdevice under enable_reflect_ftz, its default; ex2.approx without it), tl.sqrt as
// sqrt.approx.ftz (tl.sqrt_rn: sqrt.rn), rsqrt.approx.ftz. sin/cos reduce by pi/2 in
// three parts and evaluate minimax polynomials (about 1 ulp for |x| < 1e5), erf uses two
// fitted pieces (|x| < 1: x * P(x^2); above: 1 - exp(Q(|x|) - x^2)), about 2 ulp. fp64 has
// the exact instructions PTX offers (sqrt.rn, floor, ceil); its transcendental functions
// are polynomials and series (LowerMath64.cpp).
#include "lower/LowerMath.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "lower/ExpVoteTail.h"
#include "support/Env.h"

namespace tilec::lower {

namespace {

using simt::Cmp;
using simt::Op;
using simt::Rnd;
using K = ir::OpKind;

constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2 = 0.693147180559945309f;

Operand fimm(Ty t, double v) {
  return t == Ty::F32 ? Operand::f32(static_cast<float>(v)) : Operand::f64(v);
}

// Horner: c[0] + x*(c[1] + x*(...)) with fma.
Reg poly(simt::Builder &b, Ty t, Reg x, std::initializer_list<double> coeffs) {
  std::vector<double> c(coeffs);
  Reg acc = b.mov(t, fimm(t, c.back()));
  for (size_t i = c.size() - 1; i-- > 0;)
    acc = b.fma(t, acc, x, fimm(t, c[i]));
  return acc;
}

Reg approx_ftz(simt::Builder &b, Op op, Ty t, Reg x) {
  simt::Mods m;
  m.approx = true;
  m.ftz = true;
  return b.unary(op, t, x, m);
}

// sin(x) (quadrant_offset 0) or cos(x) (1) in fp32.
Reg sin_cos_f32(LoweringContext &c, Reg x, int quadrant_offset) {
  simt::Builder &b = c.b();
  Ty t = Ty::F32;
  Reg j = b.cvt(t, t, b.mul(t, x, Operand::f32(0.636619772367581343f)), Rnd::Rni);
  // r = x - j*pi/2 with pi/2 split in three (Cody-Waite): the first products are exact.
  Reg r = b.fma(t, j, Operand::f32(-1.5703125f), x);
  r = b.fma(t, j, Operand::f32(-4.837512969970703125e-4f), r);
  r = b.fma(t, j, Operand::f32(-7.54978995489188216e-8f), r);
  Reg q = b.cvt(Ty::S32, t, j, Rnd::Rzi);
  if (quadrant_offset)
    q = b.add(Ty::S32, q, simt::imm(quadrant_offset));
  Reg z = b.mul(t, r, r);
  // sin(r) = r + r*z*S(z), cos(r) = 1 - z/2 + z*z*C(z) on [-pi/4, pi/4] (Cephes).
  Reg ps = poly(b, t, z, {-1.6666654611e-1, 8.3321608736e-3, -1.9515295891e-4});
  Reg s = b.fma(t, b.mul(t, r, z), ps, r);
  Reg pc = poly(b, t, z, {4.166664568298827e-2, -1.388731625493765e-3, 2.443315711809948e-5});
  Reg co = b.fma(t, b.mul(t, z, z), pc, b.fma(t, z, Operand::f32(-0.5f), Operand::f32(1.0f)));
  Reg odd = b.setp(Cmp::Ne, Ty::B32, b.and_(Ty::B32, q, simt::imm(1)), simt::imm(0));
  Reg v = b.selp(t, co, s, odd);
  Reg neg = b.setp(Cmp::Ne, Ty::B32, b.and_(Ty::B32, q, simt::imm(2)), simt::imm(0));
  return b.selp(t, b.neg(t, v), v, neg);
}

Reg erf_f32(LoweringContext &c, Reg x) {
  simt::Builder &b = c.b();
  Ty t = Ty::F32;
  Reg ax = b.abs(t, x);
  // |x| < 1: x * P(x^2)
  Reg u = b.mul(t, x, x);
  Reg p =
      poly(b, t, u,
           {1.12837911, -0.376123488, 0.112803645, -0.026716385, 0.00492327753, -0.000565410592});
  Reg small = b.mul(t, x, p);
  // 1 <= |x| < 3.92: 1 - exp(Q(|x|) - x^2); above, erf rounds to 1.
  Reg ac = b.min(t, ax, Operand::f32(3.92f));
  Reg q = poly(b, t, ac,
               {0.000317686092, -1.13022661, 0.368168086, -0.110080197, 0.0264245197, -0.0047619883,
                0.000597577484, -4.61809723e-05, 1.64496589e-06});
  Reg e = b.sub(t, q, b.mul(t, ac, ac));
  Reg ex = b.approx(Op::Ex2, t, b.mul(t, e, Operand::f32(kLog2e)));
  Reg one = b.mov(t, Operand::f32(1.0f));
  Reg big = b.sub(t, one, ex);
  Reg sat = b.setp(Cmp::Ge, t, ax, Operand::f32(3.92f));
  big = b.selp(t, one, big, sat);
  // copysign(big, x)
  Reg sign = b.and_(Ty::B32, x, simt::imm(0x80000000));
  Reg big_signed = b.or_(Ty::B32, big, sign);
  Reg is_small = b.setp(Cmp::Lt, t, ax, Operand::f32(1.0f));
  Reg r = b.selp(t, small, big_signed, is_small);
  // NaN in, NaN out (the selects above would give +-1)
  Reg nan = b.setp(Cmp::Nan, t, x, x);
  return b.selp(t, x, r, nan);
}

// The min of `level` by a tree of min.f32 (NaN skipped, as min does).
Reg min_tree(simt::Builder &b, std::vector<Operand> level) {
  while (level.size() > 1) {
    std::vector<Operand> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2)
      next.push_back(b.min(Ty::F32, level[i], level[i + 1]));
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level[0].reg();
}

bool writes_reg(const simt::Instr &in, const Operand &o) {
  return o.is_reg() && simt::instr_writes(in, o.index);
}

// When every input is `sub.f32 x, a, b` of the current block, read by nothing after it,
// whose a and b still hold what it read: the subs, taken out of the block (the caller
// emits them again on each path), and below them the vote's "some input < -126" from
// their operands: per subtrahend b, the min of its a's minus b, rounded as the sub rounds
// (rounding is monotonic: min(fl(a - b)) = fl(min(a) - b)), then scaled as each element
// is. The scores are ready before the subtractions, so the vote is too, and the scores
// die in the paths' subtractions (an exact copy's and the common path's: ptxas interleaves
// each sub, mul and ex2 there). Empty when the inputs are not such subs (at least four a
// subtrahend), or when ptxas could contract a sub with a product feeding it (a
// contractable sub whose operand some mul / fma / mad writes, directly or through movs):
// x would not be fl(a - b).
struct EarlyVote {
  std::vector<simt::Instr> subs; // xs' subtractions, in xs' order
  Reg low;                       // some input below -126 (this thread)
};

EarlyVote early_vote(LoweringContext &c, const std::vector<Reg> &xs) {
  simt::Function &fn = c.fn();
  std::vector<simt::Instr> &ins = fn.blocks[c.b().block()].instrs;
  std::vector<size_t> at;
  for (Reg x : xs) {
    size_t k = ins.size();
    while (k-- > 0 && !simt::instr_writes(ins[k], x.id)) {
    }
    if (k >= ins.size())
      return {};
    const simt::Instr &d = ins[k];
    if (d.op != Op::Sub || d.ty != Ty::F32 || d.guard.active() || d.dst.size() != 1 ||
        !d.src[0].is_reg() || !(d.src[1].is_reg() || d.src[1].is_imm()) ||
        (!at.empty() && !(d.m == ins[at[0]].m)))
      return {};
    for (size_t j = k + 1; j < ins.size(); ++j)
      if (simt::instr_reads(ins[j], x.id) || writes_reg(ins[j], d.src[0]) ||
          writes_reg(ins[j], d.src[1]))
        return {};
    at.push_back(k);
  }
  if (ins[at[0]].m.rnd == Rnd::None) { // contractable: no product may feed it
    std::set<uint32_t> operands;       // the subs' operands and what is moved into them
    for (size_t k : at)
      for (const Operand &o : ins[k].src)
        if (o.is_reg())
          operands.insert(o.index);
    for (size_t grown = 1, round = 0; grown; ++round) {
      if (round == 4) // a long chain of copies: give up
        return {};
      grown = 0;
      for (const simt::Block &blk : fn.blocks)
        for (const simt::Instr &in : blk.instrs)
          for (const Operand &d : in.dst)
            if (d.is_reg() && operands.count(d.index)) {
              if (in.op == Op::Mul || in.op == Op::Fma || in.op == Op::Mad)
                return {};
              if (in.op == Op::Mov && in.src[0].is_reg())
                grown += operands.insert(in.src[0].index).second;
            }
    }
  }
  std::vector<std::pair<Operand, std::vector<Operand>>> groups; // b -> its a's
  for (size_t k : at) {
    const Operand &bo = ins[k].src[1];
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto &e) {
      return e.first.kind == bo.kind && e.first.index == bo.index && e.first.value == bo.value;
    });
    if (g == groups.end())
      g = groups.insert(groups.end(), {bo, {}});
    g->second.push_back(ins[k].src[0]);
  }
  if (groups.size() * 4 > at.size())
    return {};
  EarlyVote ev;
  for (size_t k : at)
    ev.subs.push_back(ins[k]);
  std::vector<size_t> order = at;
  std::sort(order.begin(), order.end());
  for (size_t i = order.size(); i-- > 0;)
    ins.erase(ins.begin() + static_cast<long>(order[i]));
  simt::Builder &b = c.b();
  std::vector<Operand> lows;
  for (auto &[bo, as] : groups) {
    Reg d = b.reg(Ty::F32);
    simt::Instr in = ev.subs[0];
    in.dst = {d};
    in.src = {min_tree(b, as), bo};
    b.emit(std::move(in));
    lows.push_back(d);
  }
  Reg t = b.mul(Ty::F32, min_tree(b, lows), Operand::f32(kLog2e));
  ev.low = b.setp(Cmp::Lt, Ty::F32, t, Operand::f32(-126.0f));
  return ev;
}

} // namespace

Reg emit_math(LoweringContext &c, const ir::Op &op, Ty t, Reg x) {
  simt::Builder &b = c.b();
  K k = op.kind();
  if (k == K::Floor)
    return b.cvt(t, t, x, Rnd::Rmi);
  if (k == K::Ceil)
    return b.cvt(t, t, x, Rnd::Rpi);
  if (t == Ty::F64) {
    simt::Mods rn;
    rn.rnd = Rnd::Rn;
    if (k == K::Sqrt)
      return b.unary(Op::Sqrt, t, x, rn);
    if (k == K::Rsqrt)
      return b.div(t, Operand::f64(1.0), b.unary(Op::Sqrt, t, x, rn));
    return emit_math_f64(c, op, x);
  }
  switch (k) {
  case K::Exp:
    return b.approx(Op::Ex2, t, b.mul(t, x, Operand::f32(kLog2e)));
  case K::Exp2: // Triton: libdevice's __nv_exp2f, ftz under enable_reflect_ftz
    return c.opts().reflect_ftz ? approx_ftz(b, Op::Ex2, t, x) : b.approx(Op::Ex2, t, x);
  case K::Log:
    return b.mul(t, b.approx(Op::Lg2, t, x), Operand::f32(kLn2));
  case K::Log2:
    return b.approx(Op::Lg2, t, x);
  case K::Sqrt: {
    if (op.str_attr("rounding") == "rn") {
      simt::Mods rn;
      rn.rnd = Rnd::Rn;
      return b.unary(Op::Sqrt, t, x, rn);
    }
    return approx_ftz(b, Op::Sqrt, t, x);
  }
  case K::Rsqrt:
    return approx_ftz(b, Op::Rsqrt, t, x);
  case K::Sin:
    return sin_cos_f32(c, x, 0);
  case K::Cos:
    return sin_cos_f32(c, x, 1);
  case K::Erf:
    return erf_f32(c, x);
  default:
    break;
  }
  TILEC_ASSERT(false, "emit_math: not a math op: " + std::string(op.name()));
  return Reg{};
}

std::vector<Reg> emit_exp_f32_tile(LoweringContext &c, const std::vector<Reg> &xs) {
  simt::Builder &b = c.b();
  Ty t = Ty::F32;
  if (xs.size() >= kEarlyVoteMin && env::get(env::Var::ExpEarlyVote) != "0")
    if (EarlyVote ev = early_vote(c, xs); ev.low.valid()) {
      // Each path subtracts, scales and exponentiates; the exp-vote-tail stage
      // (ExpVoteTail.h) then gives the exact path its own copy of what follows, up to the
      // next warpgroup instruction, so that the common path runs on straight.
      Reg any = b.vote(simt::VoteMode::Any, ev.low);
      auto to_ftz = c.branch_ahead(any, /*negate=*/true);
      std::vector<Reg> ys;
      LoweringContext::PendingBranch to_join;
      for (bool ftz : {false, true}) {
        if (ftz)
          c.patch(to_ftz, c.new_block(kExpVoteFtz));
        else
          c.new_block(kExpVoteExact);
        for (size_t i = 0; i < xs.size(); ++i) {
          b.emit(ev.subs[i]);
          Reg a = b.mul(t, xs[i], Operand::f32(kLog2e));
          simt::Instr e = b.last(); // the ex2, into ys[i] on both paths
          e.op = Op::Ex2;
          e.m = simt::Mods{};
          e.m.approx = true;
          e.m.ftz = ftz;
          if (!ftz)
            ys.push_back(b.reg(t));
          e.dst = {ys[i]};
          e.src = {a};
          b.emit(std::move(e));
        }
        if (!ftz)
          to_join = c.branch_ahead(Reg{}, false);
      }
      c.patch(to_join, c.new_block(kExpVoteDone));
      return ys;
    }
  std::vector<Reg> args, ys;
  for (Reg x : xs)
    args.push_back(b.mul(t, x, Operand::f32(kLog2e)));
  // ex2.approx.f32 is ex2.approx.ftz.f32 (one MUFU.EX2) unless its input is below -126,
  // where ptxas halves it and squares the result. min() skips NaN, which both forms map
  // alike; so does a -126 or above.
  Reg low = b.setp(Cmp::Lt, t, min_tree(b, {args.begin(), args.end()}), Operand::f32(-126.0f));
  // Control flow is uniform (conditions are scalars), so the whole warp votes and
  // branches together. The exact form comes first, the common one is a branch away; each
  // computes the results from the inputs, so no input outlives them (computing the ftz
  // results before the test took 38 more registers in attention, for the same speed).
  Reg any = b.vote(simt::VoteMode::Any, low);
  auto to_ftz = c.branch_ahead(any, /*negate=*/true);
  c.new_block("exp_exact");
  for (Reg a : args)
    ys.push_back(b.approx(Op::Ex2, t, a));
  auto to_join = c.branch_ahead(Reg{}, false);
  c.patch(to_ftz, c.new_block("exp_ftz"));
  for (size_t i = 0; i < args.size(); ++i)
    b.mov_to(ys[i], approx_ftz(b, Op::Ex2, t, args[i]));
  c.patch(to_join, c.new_block("exp_done"));
  return ys;
}

Reg emit_fmod(LoweringContext &c, Ty t, Reg a, Reg b_) {
  simt::Builder &b = c.b();
  Ty it = t == Ty::F32 ? Ty::B32 : Ty::B64;
  Ty st = t == Ty::F32 ? Ty::S32 : Ty::S64;
  int64_t sign_bit = t == Ty::F32 ? int64_t{0x80000000} : INT64_MIN;
  // n = trunc(a / b), corrected by one when the rounded quotient crossed an integer, so
  // that r = a - n*b (exact, by fma) has a's sign and |r| < |b|.
  Reg q = b.div(t, a, b_);
  Reg n = b.cvt(t, t, q, Rnd::Rzi);
  Reg r = b.fma(t, b.neg(t, n), b_, a);
  Reg s =
      b.selp(t, fimm(t, -1.0), fimm(t, 1.0), b.setp(Cmp::Lt, st, b.xor_(it, a, b_), simt::imm(0)));
  Reg flipped = b.setp(Cmp::Lt, st, b.xor_(it, r, a), simt::imm(0));
  Reg nonzero = b.setp(Cmp::Ne, t, r, fimm(t, 0.0));
  Reg wrong = b.and_(Ty::Pred, flipped, nonzero);
  n = b.selp(t, b.sub(t, n, s), n, wrong);
  r = b.fma(t, b.neg(t, n), b_, a);
  Reg over = b.setp(Cmp::Ge, t, b.abs(t, r), b.abs(t, b_));
  n = b.selp(t, b.add(t, n, s), n, over);
  r = b.fma(t, b.neg(t, n), b_, a);
  // A zero result takes a's sign; an infinite divisor leaves a unchanged.
  Reg zero = b.setp(Cmp::Eq, t, r, fimm(t, 0.0));
  r = b.selp(it, b.and_(it, a, simt::imm(sign_bit)), r, zero);
  Reg inf = b.setp(Cmp::Eq, t, b.abs(t, b_), fimm(t, INFINITY));
  Reg finite_a = b.setp(Cmp::Lt, t, b.abs(t, a), fimm(t, INFINITY));
  return b.selp(t, a, r, b.and_(Ty::Pred, inf, finite_a));
}

} // namespace tilec::lower
