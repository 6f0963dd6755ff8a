#include "simt/Builder.h"

#include <cctype>
#include <unordered_set>

namespace tilec::simt {

namespace {
Instr make(Op op, Ty t) {
  Instr in;
  in.op = op;
  in.ty = t;
  return in;
}
// mul.wide / mad.wide results are twice as wide as the operands.
Ty widened(Ty t) {
  switch (t) {
  case Ty::S16:
    return Ty::S32;
  case Ty::U16:
    return Ty::U32;
  case Ty::S32:
    return Ty::S64;
  case Ty::U32:
    return Ty::U64;
  default:
    TILEC_ASSERT(false, std::string("no wide form of .") + ty_name(t));
  }
  return Ty::None;
}
} // namespace

BlockId Builder::new_block(const std::string &hint) {
  std::unordered_set<std::string> used;
  for (const Block &b : fn_.blocks)
    used.insert(b.label);
  // Labels print as `$L__<label>`: keep them PTX identifiers.
  std::string base;
  for (char c : hint)
    base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (base.empty())
    base = "L";
  std::string label = base;
  for (int i = 1; used.count(label); ++i)
    label = base + "_" + std::to_string(i);
  fn_.blocks.push_back(Block{label, {}});
  return static_cast<BlockId>(fn_.blocks.size() - 1);
}

std::vector<Reg> Builder::regs(Ty t, int n) {
  std::vector<Reg> r;
  for (int i = 0; i < n; ++i)
    r.push_back(reg(t));
  return r;
}

Instr &Builder::emit(Instr in) {
  TILEC_ASSERT(cur_ < fn_.blocks.size(), "Builder: no current block (call set_block)");
  if (!in.guard.active())
    in.guard = guard_;
  if (!in.loc.valid())
    in.loc = loc_;
  if (smem_hi_ > 0 && in.smem_hi == 0 &&
      (((in.op == Op::Ld || in.op == Op::St) && in.m.space == Space::Shared) ||
       in.op == Op::Ldmatrix || in.op == Op::Stmatrix)) {
    in.smem_lo = smem_lo_;
    in.smem_hi = smem_hi_;
  }
  auto &v = fn_.blocks[cur_].instrs;
  v.push_back(std::move(in));
  return v.back();
}

Instr &Builder::last() {
  TILEC_ASSERT(cur_ < fn_.blocks.size() && !fn_.blocks[cur_].instrs.empty(),
               "Builder::last: nothing emitted in the current block");
  return fn_.blocks[cur_].instrs.back();
}

Reg Builder::mov(Ty t, Operand a) {
  Reg d = reg(t);
  mov_to(d, a);
  return d;
}

void Builder::mov_to(Reg d, Operand a) {
  Instr in = make(Op::Mov, fn_.reg_ty(d));
  // PTX has no mov.f16 / mov.u8: 8-bit values move as their 16-bit register, the half
  // and packed formats as bits.
  if (ty_bits(in.ty) == 8)
    in.ty = ty_is_signed(in.ty) ? Ty::S16 : Ty::U16;
  else if (ty_is_float(in.ty) && in.ty != Ty::F32 && in.ty != Ty::F64)
    in.ty = ty_bits_of(ty_bits(in.ty));
  in.dst = {d};
  in.src = {a};
  emit(std::move(in));
}

Reg Builder::special(Sreg s) {
  Ty t = s == Sreg::Clock64 || s == Sreg::Globaltimer ? Ty::U64 : Ty::U32;
  return mov(t, Operand::sreg(s));
}

Reg Builder::ld_param(uint32_t param) {
  TILEC_ASSERT(param < fn_.params.size(), "ld_param: no such parameter");
  TILEC_ASSERT(!fn_.params[param].is_blob(),
               "ld_param: '" + fn_.params[param].name + "' is a byte array (use cvta_param)");
  Ty t = fn_.params[param].ty;
  Reg d = reg(t);
  Instr in = make(Op::Ld, t);
  in.m.space = Space::Param;
  in.dst = {d};
  in.src = {Operand::param(param)};
  emit(std::move(in));
  return d;
}

Reg Builder::shared_addr(int64_t offset) { return mov(Ty::U32, Operand::shared(offset)); }

Reg Builder::pack(Ty t, std::initializer_list<Operand> parts) {
  Reg d = reg(t);
  Instr in = make(Op::Pack, ty_bits_of(ty_bits(t)));
  in.dst = {d};
  in.src.assign(parts.begin(), parts.end());
  emit(std::move(in));
  return d;
}

std::vector<Reg> Builder::unpack(Ty part, int n, Operand a) {
  std::vector<Reg> ds = regs(part, n);
  Instr in = make(Op::Unpack, ty_bits_of(ty_bits(part) * n));
  for (Reg r : ds)
    in.dst.push_back(r);
  in.src = {a};
  emit(std::move(in));
  return ds;
}

Reg Builder::binary(Op op, Ty t, Operand a, Operand b, Mods m) {
  Reg d = reg(op == Op::Setp ? Ty::Pred : t);
  Instr in = make(op, t);
  in.m = m;
  in.dst = {d};
  in.src = {a, b};
  emit(std::move(in));
  return d;
}

Reg Builder::unary(Op op, Ty t, Operand a, Mods m) {
  Reg d = reg(op == Op::Popc || op == Op::Clz ? Ty::U32 : t);
  Instr in = make(op, t);
  in.m = m;
  in.dst = {d};
  in.src = {a};
  emit(std::move(in));
  return d;
}

Reg Builder::ternary(Op op, Ty t, Operand a, Operand b, Operand c, Mods m) {
  Reg d = reg(t);
  Instr in = make(op, t);
  in.m = m;
  in.dst = {d};
  in.src = {a, b, c};
  emit(std::move(in));
  return d;
}

Reg Builder::add(Ty t, Operand a, Operand b) {
  Mods m;
  if (ty_is_float(t))
    m.rnd = Rnd::Rn;
  return binary(Op::Add, t, a, b, m);
}

Reg Builder::sub(Ty t, Operand a, Operand b) {
  Mods m;
  if (ty_is_float(t))
    m.rnd = Rnd::Rn;
  return binary(Op::Sub, t, a, b, m);
}

Reg Builder::mul(Ty t, Operand a, Operand b) {
  Mods m;
  if (ty_is_float(t))
    m.rnd = Rnd::Rn;
  else
    m.mul = MulMode::Lo;
  return binary(Op::Mul, t, a, b, m);
}

Reg Builder::mul_hi(Ty t, Operand a, Operand b) {
  Mods m;
  m.mul = MulMode::Hi;
  return binary(Op::Mul, t, a, b, m);
}

Reg Builder::mul_wide(Ty t, Operand a, Operand b) {
  Reg d = reg(widened(t));
  Instr in = make(Op::Mul, t);
  in.m.mul = MulMode::Wide;
  in.dst = {d};
  in.src = {a, b};
  emit(std::move(in));
  return d;
}

Reg Builder::mad(Ty t, Operand a, Operand b, Operand c) {
  Mods m;
  if (ty_is_float(t))
    m.rnd = Rnd::Rn;
  else
    m.mul = MulMode::Lo;
  return ternary(Op::Mad, t, a, b, c, m);
}

Reg Builder::mad_wide(Ty t, Operand a, Operand b, Operand c) {
  Reg d = reg(widened(t));
  Instr in = make(Op::Mad, t);
  in.m.mul = MulMode::Wide;
  in.dst = {d};
  in.src = {a, b, c};
  emit(std::move(in));
  return d;
}

Reg Builder::fma(Ty t, Operand a, Operand b, Operand c, Rnd r) {
  Mods m;
  m.rnd = r;
  return ternary(Op::Fma, t, a, b, c, m);
}

Reg Builder::div(Ty t, Operand a, Operand b) {
  Mods m;
  if (ty_is_float(t))
    m.rnd = Rnd::Rn;
  return binary(Op::Div, t, a, b, m);
}

Reg Builder::min(Ty t, Operand a, Operand b, bool nan) {
  Mods m;
  m.nan = nan;
  return binary(Op::Min, t, a, b, m);
}

Reg Builder::max(Ty t, Operand a, Operand b, bool nan) {
  Mods m;
  m.nan = nan;
  return binary(Op::Max, t, a, b, m);
}

Reg Builder::setp(Cmp c, Ty t, Operand a, Operand b) {
  Mods m;
  m.cmp = c;
  return binary(Op::Setp, t, a, b, m);
}

Reg Builder::selp(Ty t, Operand a, Operand b, Reg p) {
  return ternary(Op::Selp, t, a, b, Operand(p));
}

Reg Builder::cvt(Ty dst, Ty src, Operand a, Rnd r, bool sat) {
  Reg d = reg(dst);
  Instr in = make(Op::Cvt, dst);
  in.src_ty = src;
  in.m.rnd = r;
  in.m.sat = sat;
  in.dst = {d};
  in.src = {a};
  emit(std::move(in));
  return d;
}

Reg Builder::cvt_pack(Ty dst, Ty src, Operand hi, Operand lo, Rnd r, bool satfinite) {
  Reg d = reg(dst);
  Instr in = make(Op::Cvt, dst);
  in.src_ty = src;
  in.m.rnd = r;
  in.m.satfinite = satfinite;
  in.dst = {d};
  in.src = {hi, lo};
  emit(std::move(in));
  return d;
}

Reg Builder::approx(Op op, Ty t, Operand a) {
  Mods m;
  m.approx = true;
  return unary(op, t, a, m);
}

std::vector<Reg> Builder::ld(Space s, Ty t, Operand addr, int vec, MemHints h) {
  std::vector<Reg> ds = regs(t, vec);
  ld_to(ds, s, t, addr, h);
  return ds;
}

void Builder::ld_to(const std::vector<Reg> &dst, Space s, Ty t, Operand addr, MemHints h) {
  Instr in = make(Op::Ld, t);
  in.m.space = s;
  in.m.vec = static_cast<uint8_t>(dst.size());
  in.m.cache = h.cache;
  in.m.evict = h.evict;
  in.m.vol = h.vol;
  for (Reg r : dst)
    in.dst.push_back(r);
  in.src = {addr};
  if (h.policy.valid()) {
    in.m.l2_hint = true;
    in.src.push_back(h.policy);
  }
  emit(std::move(in));
}

void Builder::st(Space s, Ty t, Operand addr, std::vector<Operand> vals, MemHints h) {
  Instr in = make(Op::St, t);
  in.m.space = s;
  in.m.vec = static_cast<uint8_t>(vals.size());
  in.m.cache = h.cache;
  in.m.evict = h.evict;
  in.m.vol = h.vol;
  in.src.push_back(addr);
  for (Operand &v : vals)
    in.src.push_back(v);
  if (h.policy.valid()) {
    in.m.l2_hint = true;
    in.src.push_back(h.policy);
  }
  emit(std::move(in));
}

Reg Builder::atom(AtomOp op, Ty t, Operand addr, Operand b, Operand c, Sem sem, Scope scope,
                  Space s) {
  Reg d = reg(t);
  Instr in = make(Op::Atom, t);
  in.m.atom = op;
  in.m.sem = sem;
  in.m.scope = scope;
  in.m.space = s;
  in.m.noftz =
      op == AtomOp::Add && (t == Ty::F16 || t == Ty::BF16 || t == Ty::F16x2 || t == Ty::BF16x2);
  in.dst = {d};
  in.src = {addr, b};
  if (!c.is_none())
    in.src.push_back(c);
  emit(std::move(in));
  return d;
}

void Builder::red(AtomOp op, Ty t, Operand addr, Operand b, Sem sem, Scope scope, Space s) {
  Instr in = make(Op::Red, t);
  in.m.atom = op;
  in.m.sem = sem;
  in.m.scope = scope;
  in.m.space = s;
  in.m.noftz =
      op == AtomOp::Add && (t == Ty::F16 || t == Ty::BF16 || t == Ty::F16x2 || t == Ty::BF16x2);
  in.src = {addr, b};
  emit(std::move(in));
}

void Builder::prefetch_l1(Operand addr) {
  Instr in = make(Op::Prefetch, Ty::None);
  in.m.space = Space::Global;
  in.src = {addr};
  emit(std::move(in));
}

Reg Builder::create_policy(Evict e, float fraction) {
  Reg d = reg(Ty::B64);
  Instr in = make(Op::CreatePolicy, Ty::B64);
  in.m.evict = e;
  in.dst = {d};
  if (fraction != 1.0f)
    in.src = {Operand::f32(fraction)};
  emit(std::move(in));
  return d;
}

Reg Builder::shfl(ShflMode mode, Operand a, Operand b, Operand c, Operand mask, Reg *valid) {
  Reg d = reg(Ty::B32);
  Instr in = make(Op::Shfl, Ty::B32);
  in.m.shfl = mode;
  in.dst = {d};
  if (valid) {
    *valid = reg(Ty::Pred);
    in.dst.push_back(*valid);
  }
  in.src = {a, b, c, mask};
  emit(std::move(in));
  return d;
}

Reg Builder::vote(VoteMode mode, Reg p, Operand mask) {
  Ty t = mode == VoteMode::Ballot ? Ty::B32 : Ty::Pred;
  Reg d = reg(t);
  Instr in = make(Op::Vote, t);
  in.m.vote = mode;
  in.dst = {d};
  in.src = {Operand(p), mask};
  emit(std::move(in));
  return d;
}

std::vector<Reg> Builder::mma(MmaShape shape, Ty acc, Ty ab, const std::vector<Reg> &a,
                              const std::vector<Reg> &b, const std::vector<Operand> &c) {
  Instr in = make(Op::Mma, acc);
  in.src_ty = ab;
  in.m.mma = shape;
  in.guard = {};
  MmaRegs r = mma_regs(in);
  std::vector<Reg> d = regs(acc == Ty::F16 ? Ty::F16x2 : acc, r.d);
  in.dst.assign(d.begin(), d.end());
  in.src.assign(a.begin(), a.end());
  in.src.insert(in.src.end(), b.begin(), b.end());
  in.src.insert(in.src.end(), c.begin(), c.end());
  emit(std::move(in));
  return d;
}

std::vector<Reg> Builder::ldmatrix(int num, bool trans, Operand addr) {
  Instr in = make(Op::Ldmatrix, Ty::B16);
  in.m.vec = static_cast<uint8_t>(num);
  in.m.trans = trans;
  in.m.space = Space::Shared;
  in.guard = {};
  std::vector<Reg> d = regs(Ty::B32, num);
  in.dst.assign(d.begin(), d.end());
  in.src = {addr};
  emit(std::move(in));
  return d;
}

void Builder::stmatrix(bool trans, Operand addr, const std::vector<Reg> &words) {
  Instr in = make(Op::Stmatrix, Ty::B16);
  in.m.vec = static_cast<uint8_t>(words.size());
  in.m.trans = trans;
  in.m.space = Space::Shared;
  in.guard = {};
  in.src = {addr};
  in.src.insert(in.src.end(), words.begin(), words.end());
  emit(std::move(in));
}

void Builder::bar_sync(int id) {
  Instr in = make(Op::Bar, Ty::None);
  in.src = {imm(id)};
  emit(std::move(in));
}

void Builder::bar_sync(Operand id, Operand count) {
  Instr in = make(Op::Bar, Ty::None);
  in.src = {id, count};
  emit(std::move(in));
}

void Builder::membar(Scope s) {
  Instr in = make(Op::Membar, Ty::None);
  in.m.scope = s;
  emit(std::move(in));
}

void Builder::fence(Sem s, Scope scope) {
  Instr in = make(Op::Fence, Ty::None);
  in.m.sem = s;
  in.m.scope = scope;
  emit(std::move(in));
}

void Builder::bra(BlockId target, bool uni) {
  Instr in = make(Op::Bra, Ty::None);
  in.m.uni = uni;
  in.src = {Operand::label(target)};
  emit(std::move(in));
}

void Builder::bra_if(Reg p, BlockId target, bool negate) {
  Instr in = make(Op::Bra, Ty::None);
  in.guard = Guard{p, negate};
  in.src = {Operand::label(target)};
  emit(std::move(in));
}

void Builder::ret() { emit(make(Op::Ret, Ty::None)); }
void Builder::exit() { emit(make(Op::Exit, Ty::None)); }
void Builder::trap() { emit(make(Op::Trap, Ty::None)); }
void Builder::griddepcontrol(bool wait) {
  emit(make(wait ? Op::GriddepWait : Op::GriddepLaunch, Ty::None));
}

void Builder::setmaxnreg(bool inc, int regs) {
  Instr in = make(inc ? Op::SetmaxnregInc : Op::SetmaxnregDec, Ty::None);
  in.src = {imm(regs)};
  emit(std::move(in));
}

void Builder::vprintf(const std::string &fmt, const std::vector<Reg> &args) {
  Instr in = make(Op::Vprintf, Ty::None);
  in.src.push_back(Operand::string(fn_.add_string(fmt)));
  for (Reg r : args)
    in.src.push_back(r);
  emit(std::move(in));
}

void Builder::inline_asm(const std::string &text, const std::vector<Reg> &dst,
                         const std::vector<Reg> &src) {
  Instr in = make(Op::InlineAsm, Ty::None);
  uint32_t k = 0;
  while (k < fn_.asm_texts.size() && fn_.asm_texts[k] != text)
    ++k;
  if (k == fn_.asm_texts.size())
    fn_.asm_texts.push_back(text);
  in.src.push_back(imm(k));
  for (Reg r : src)
    in.src.push_back(r);
  for (Reg r : dst)
    in.dst.push_back(r);
  emit(std::move(in));
}

void Builder::assert_fail(const std::string &msg, const std::string &file, int line,
                          const std::string &func, bool trap) {
  Instr in = make(trap ? Op::AssertTrap : Op::AssertFail, Ty::None);
  in.src = {Operand::string(fn_.add_string(msg)), Operand::string(fn_.add_string(file)), imm(line),
            Operand::string(fn_.add_string(func))};
  emit(std::move(in));
}

} // namespace tilec::simt
