// Builder: emits Thread IR instructions at the end of a current block.
//
// Helpers create a fresh destination register and return it; the `*_to` forms write an
// existing one (loop-carried values, a masked load's `other`). Everything emitted while
// a guard is set (set_guard / GuardScope) is predicated on it. `last()` is the
// instruction just emitted, for modifiers a helper does not take.
//
// Example: a predicated, vectorised fp32 load with `other` = 0, as lowering emits it
// for `x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)` with 4 elements per thread:
//
//   simt::Function fn;
//   fn.name = "kernel"; fn.num_warps = 4;
//   uint32_t px = fn.add_param("x_ptr", Ty::U64), pn = fn.add_param("n", Ty::S32);
//   simt::Builder b(fn);
//   b.set_block(b.new_block("entry"));
//   Reg x_ptr = b.ld_param(px), n = b.ld_param(pn);
//   Reg tid = b.special(Sreg::TidX);
//   Reg offs = b.mul(Ty::S32, tid, imm(4));                   // first element index
//   Reg p = b.setp(Cmp::Lt, Ty::S32, offs, n);                // mask (whole vector)
//   Reg addr = b.mad_wide(Ty::S32, offs, imm(4), x_ptr);       // x_ptr + offs * 4 (u64)
//   std::vector<Reg> x = b.regs(Ty::F32, 4);
//   for (Reg r : x) b.mov_to(r, Operand::f32(0.0f));          // `other`
//   {
//     auto g = b.guarded(p);                                   // @p
//     b.ld_to(x, Space::Global, Ty::B32, Operand::addr(addr)); // ld.global.v4.b32
//     b.last().m.cache = CacheOp::Cg;                          // optional hint
//   }
//   b.ret();
//
// prints as
//   mov.b32 %r5, 0f00000000; ... @%p1 ld.global.cg.v4.b32 {%r5, %r6, %r7, %r8}, [%rd3];
//
// More complete kernels (warp and block reductions, atomics, printf, loops and if/else):
// tests/cpp/simt/Programs.h.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "simt/ThreadIR.h"

namespace tilec::simt {

struct MemHints {
  CacheOp cache = CacheOp::None;
  Evict evict = Evict::None; // .L1::evict_*
  Reg policy = {};           // valid: .L2::cache_hint with this 64-bit policy register
  bool vol = false;
};

class Builder {
public:
  explicit Builder(Function &fn) : fn_(fn) {}

  Function &function() { return fn_; }

  // ---- blocks, registers, state ----
  BlockId new_block(const std::string &hint = "L"); // label made unique: hint, hint_1, ...
  void set_block(BlockId b) { cur_ = b; }
  BlockId block() const { return cur_; }
  Reg reg(Ty t) { return fn_.new_reg(t); }
  std::vector<Reg> regs(Ty t, int n);
  void set_loc(SourceLoc loc) { loc_ = loc; }
  void set_guard(Reg pred, bool negate = false) { guard_ = Guard{pred, negate}; }
  void clear_guard() { guard_ = Guard{}; }
  Guard guard() const { return guard_; }

  // Sets a guard for its lifetime, restoring the previous one after.
  class GuardScope {
  public:
    GuardScope(Builder &b, Guard g) : b_(b), saved_(b.guard_) { b.guard_ = g; }
    ~GuardScope() { b_.guard_ = saved_; }
    GuardScope(const GuardScope &) = delete;
    GuardScope &operator=(const GuardScope &) = delete;

  private:
    Builder &b_;
    Guard saved_;
  };
  [[nodiscard]] GuardScope guarded(Reg pred, bool negate = false) {
    return GuardScope(*this, Guard{pred, negate});
  }

  // Appends `in` (with the current guard and location unless it has its own guard; a
  // shared-memory ld/st / ldmatrix also gets the current smem region, when set).
  Instr &emit(Instr in);
  // Shared-memory accesses emitted from now on touch only bytes [lo, hi) (hi 0: unset).
  void set_smem_region(int64_t lo, int64_t hi) { smem_lo_ = lo, smem_hi_ = hi; }
  Instr &last();

  // ---- moves and special registers ----
  Reg mov(Ty t, Operand a);
  void mov_to(Reg d, Operand a);
  Reg special(Sreg s);                 // mov.u32 d, %tid.x (u64 for %clock64)
  Reg ld_param(uint32_t param);        // ld.param.<ty> d, [name]
  Reg shared_addr(int64_t offset = 0); // mov.u32 d, global_smem(+offset): a .shared address
  Reg pack(Ty t, std::initializer_list<Operand> parts); // mov.b32 d, {a, b}
  std::vector<Reg> unpack(Ty part, int n, Operand a);   // mov.b32 {d0, d1}, a

  // ---- arithmetic ----
  Reg binary(Op op, Ty t, Operand a, Operand b, Mods m = {});
  Reg unary(Op op, Ty t, Operand a, Mods m = {});
  Reg ternary(Op op, Ty t, Operand a, Operand b, Operand c, Mods m = {});
  // Float add/sub/mul/mad get an explicit .rn: without it ptxas may contract a mul and
  // an add into an fma, which rounds differently from the tile interpreter.
  Reg add(Ty t, Operand a, Operand b);
  Reg sub(Ty t, Operand a, Operand b);
  Reg mul(Ty t, Operand a, Operand b); // ints: mul.lo; floats: mul.rn
  Reg mul_hi(Ty t, Operand a, Operand b);
  Reg mul_wide(Ty t, Operand a, Operand b);            // t = s32/u32/s16/u16: result twice as wide
  Reg mad(Ty t, Operand a, Operand b, Operand c);      // ints: mad.lo; floats: mad.rn
  Reg mad_wide(Ty t, Operand a, Operand b, Operand c); // c and the result twice as wide
  Reg fma(Ty t, Operand a, Operand b, Operand c, Rnd r = Rnd::Rn);
  Reg div(Ty t, Operand a, Operand b); // ints; floats .rn (f32/f64)
  Reg rem(Ty t, Operand a, Operand b) { return binary(Op::Rem, t, a, b); }
  Reg min(Ty t, Operand a, Operand b, bool nan = false);
  Reg max(Ty t, Operand a, Operand b, bool nan = false);
  Reg and_(Ty t, Operand a, Operand b) { return binary(Op::And, t, a, b); }
  Reg or_(Ty t, Operand a, Operand b) { return binary(Op::Or, t, a, b); }
  Reg xor_(Ty t, Operand a, Operand b) { return binary(Op::Xor, t, a, b); }
  Reg not_(Ty t, Operand a) { return unary(Op::Not, t, a); }
  Reg shl(Ty t, Operand a, Operand b) { return binary(Op::Shl, t, a, b); }
  Reg shr(Ty t, Operand a, Operand b) { return binary(Op::Shr, t, a, b); }
  Reg neg(Ty t, Operand a) { return unary(Op::Neg, t, a); }
  Reg abs(Ty t, Operand a) { return unary(Op::Abs, t, a); }
  Reg setp(Cmp c, Ty t, Operand a, Operand b);
  Reg selp(Ty t, Operand a, Operand b, Reg p);
  // cvt.<rnd>.<dst>.<src>; `r` None picks nothing (the caller knows what PTX needs).
  Reg cvt(Ty dst, Ty src, Operand a, Rnd r = Rnd::None, bool sat = false);
  // Packed two-input cvt (cvt.rn.f16x2.f32 d, hi, lo; cvt.rn.satfinite.e4m3x2.f32 ...).
  Reg cvt_pack(Ty dst, Ty src, Operand hi, Operand lo, Rnd r = Rnd::Rn, bool satfinite = false);
  Reg approx(Op op, Ty t, Operand a); // ex2/lg2/sqrt/rsqrt/rcp/sin/cos/tanh .approx

  // ---- memory ----
  std::vector<Reg> ld(Space s, Ty t, Operand addr, int vec = 1, MemHints h = {});
  Reg ld1(Space s, Ty t, Operand addr, MemHints h = {}) { return ld(s, t, addr, 1, h)[0]; }
  void ld_to(const std::vector<Reg> &dst, Space s, Ty t, Operand addr, MemHints h = {});
  void st(Space s, Ty t, Operand addr, std::vector<Operand> vals, MemHints h = {});
  Reg atom(AtomOp op, Ty t, Operand addr, Operand b, Operand c = {}, Sem sem = Sem::None,
           Scope scope = Scope::None, Space s = Space::Global);
  void red(AtomOp op, Ty t, Operand addr, Operand b, Sem sem = Sem::None, Scope scope = Scope::None,
           Space s = Space::Global);
  Reg create_policy(Evict e, float fraction = 1.0f); // createpolicy.fractional.L2::evict_*
  void prefetch_l1(Operand addr); // prefetch.global.L1 [addr]: a hint

  // ---- warp and CTA ----
  // shfl.sync.<mode>.b32 d, a, b, c, mask; `c` is the clamp/segment operand (0x1f for a
  // full-warp bfly/down/idx, 0 for up). `valid`: optional predicate output.
  Reg shfl(ShflMode mode, Operand a, Operand b, Operand c, Operand mask = imm(-1),
           Reg *valid = nullptr);
  Reg vote(VoteMode mode, Reg p, Operand mask = imm(-1)); // any/all: pred; ballot: b32
  void bar_sync(int id = 0);

  // ---- tensor cores (warp-wide: every lane executes them, unguarded) ----
  // mma.sync.aligned.m<M>n<N>k<K>.row.col.<acc>.<ab>.<ab>.<acc>: a, b are b32 registers of
  // packed elements, c the accumulator (f32/s32 registers, f16x2 for an f16 accumulator);
  // returns fresh d registers (simt::mma_regs gives every count).
  std::vector<Reg> mma(MmaShape shape, Ty acc, Ty ab, const std::vector<Reg> &a,
                       const std::vector<Reg> &b, const std::vector<Operand> &c);
  // ldmatrix.sync.aligned.m8n8.x<num>[.trans].shared.b16: `num` b32 registers from the
  // rows whose addresses lanes 0-7, 8-15, ... give (a .shared address).
  std::vector<Reg> ldmatrix(int num, bool trans, Operand addr);
  // stmatrix.sync.aligned.m8n8.x<n>[.trans].shared.b16 (sm_90): the mirror of ldmatrix,
  // one b32 word (two elements) a matrix from every lane; lane l addresses row l % 8 of
  // matrix l / 8.
  void stmatrix(bool trans, Operand addr, const std::vector<Reg> &words);
  void bar_sync(Operand id, Operand count);
  void membar(Scope s);           // membar.cta / .gl / .sys
  void fence(Sem s, Scope scope); // fence.sc.gpu, fence.acq_rel.cta, ...

  // ---- control ----
  void bra(BlockId target, bool uni = false); // guarded by the current guard
  void bra_if(Reg p, BlockId target, bool negate = false);
  void ret();
  void exit();
  void trap();
  void griddepcontrol(bool wait);      // .wait, else .launch_dependents (sm_90)
  void setmaxnreg(bool inc, int regs); // the warpgroup's registers a thread (sm_90a)

  // ---- debugging ----
  // vprintf(fmt, args): `fmt` is the text (stored as a global string); args are 32- or
  // 64-bit registers (floats must already be f64).
  // User PTX: $0.. name `dst`, then `src` (tl.inline_asm_elementwise).
  void inline_asm(const std::string &text, const std::vector<Reg> &dst,
                  const std::vector<Reg> &src);
  void vprintf(const std::string &fmt, const std::vector<Reg> &args);
  // `trap`: an AssertTrap (a plain trap in PTX, Instrs.def) instead of an __assertfail call.
  void assert_fail(const std::string &msg, const std::string &file, int line,
                   const std::string &func, bool trap = false);

private:
  Function &fn_;
  BlockId cur_ = 0;
  Guard guard_;
  SourceLoc loc_;
  int64_t smem_lo_ = 0, smem_hi_ = 0;
};

} // namespace tilec::simt
