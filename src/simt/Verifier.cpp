#include "simt/Verifier.h"

#include <cctype>
#include <unordered_set>

#include "simt/AsyncInstrs.h"
#include "simt/Format.h"

namespace tilec::simt {

namespace {

// Whether every value of integer type `inner` is a value of `outer`.
bool int_range_contains(Ty outer, Ty inner) {
  bool os = ty_is_signed(outer), is = ty_is_signed(inner);
  int ob = ty_bits(outer), ib = ty_bits(inner);
  if (os == is)
    return ob >= ib;
  return os && ob > ib; // unsigned into a wider signed type
}

bool packed_cvt_dst(Ty t) {
  return t == Ty::F16x2 || t == Ty::BF16x2 || t == Ty::E4M3x2 || t == Ty::E5M2x2;
}

class Checker {
public:
  explicit Checker(const Function &fn) : fn_(fn), rn_(fn) {}

  void run() {
    bool ident = !fn_.name.empty() && !std::isdigit(static_cast<unsigned char>(fn_.name[0]));
    for (char c : fn_.name)
      ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$');
    if (!ident)
      fail_fn("the kernel name is not a PTX identifier");
    if (fn_.num_warps < 1 || fn_.num_warps > 32)
      fail_fn("num_warps must be 1..32, got " + std::to_string(fn_.num_warps));
    for (const Param &p : fn_.params) {
      if (p.ty == Ty::Pred || p.ty == Ty::None)
        fail_fn("parameter '" + p.name + "' has no valid type");
      if (p.is_blob() && (p.align == 0 || (p.align & (p.align - 1)) != 0))
        fail_fn("byte-array parameter '" + p.name + "' needs a power-of-two alignment");
    }
    std::unordered_set<std::string> labels;
    for (const Block &b : fn_.blocks) {
      if (b.label.empty() || !labels.insert(b.label).second)
        fail_fn("block label '" + b.label + "' is empty or not unique");
      for (char c : b.label)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
          fail_fn("block label '" + b.label + "' is not an identifier");
    }
    for (const Block &b : fn_.blocks) {
      block_ = &b;
      for (const Instr &in : b.instrs) {
        in_ = &in;
        check(in);
      }
    }
    if (fn_.blocks.empty())
      fail_fn("the function has no blocks");
    const Block &last = fn_.blocks.back();
    bool ends = !last.instrs.empty() && !last.instrs.back().guard.active() &&
                (last.instrs.back().op == Op::Ret || last.instrs.back().op == Op::Exit ||
                 last.instrs.back().op == Op::Bra || last.instrs.back().op == Op::Trap);
    if (!ends)
      fail_fn("the last block '" + last.label +
              "' must end in an unguarded ret, exit, bra or trap (control would run off the end)");
  }

private:
  [[noreturn]] void fail_fn(const std::string &msg) const {
    throw InternalError("Thread IR verifier: function '" + fn_.name + "': " + msg);
  }
  [[noreturn]] void fail(const std::string &msg) const {
    std::string text;
    try {
      text = format_instr(fn_, rn_, *in_);
    } catch (const std::exception &) {
      text = op_id_name(in_->op);
    }
    throw InternalError("Thread IR verifier: function '" + fn_.name + "', block '" + block_->label +
                        "', `" + text + "`: " + msg);
  }

  void want(bool cond, const std::string &msg) const {
    if (!cond)
      fail(msg);
  }

  void check_reg(const Operand &o, Ty want_ty, const char *what) const {
    want(o.reg().id < fn_.regs.size(), std::string(what) + " is not a register of the function");
    Ty have = fn_.reg_ty(o.reg());
    want(ty_reg_bits(have) == ty_reg_bits(want_ty),
         std::string(what) + " register is ." + ty_name(have) + " but the instruction uses ." +
             ty_name(want_ty));
  }

  void check(const Instr &in) {
    int nd = op_num_dst(in.op), ns = op_num_src(in.op);
    if (nd >= 0)
      want(static_cast<int>(in.dst.size()) == nd, "expected " + std::to_string(nd) + " results");
    if (ns >= 0)
      want(static_cast<int>(in.src.size()) == ns, "expected " + std::to_string(ns) + " operands");
    if (in.guard.active()) {
      want(in.guard.pred.id < fn_.regs.size() && fn_.reg_ty(in.guard.pred) == Ty::Pred,
           "the guard is not a .pred register");
    }
    for (size_t i = 0; i < in.dst.size(); ++i) {
      want(in.dst[i].is_reg(), "a result is not a register");
      // inline_asm's results are registers of any width (the constraints chose them)
      check_reg(in.dst[i],
                in.op == Op::InlineAsm ? fn_.reg_ty(in.dst[i].reg()) : dst_operand_ty(in, i),
                "result");
    }
    for (size_t i = 0; i < in.src.size(); ++i)
      check_src(in, i);
    check_op(in);
  }

  void check_src(const Instr &in, size_t i) {
    const Operand &o = in.src[i];
    using K = Operand::Kind;
    if (src_is_address(in, i)) {
      want(o.kind == K::Reg || o.kind == K::Param || o.kind == K::Shared || o.kind == K::String,
           "the address is not a register or a symbol");
      if (o.kind == K::Reg) {
        want(o.reg().id < fn_.regs.size(), "address register out of range");
        int bits = ty_reg_bits(fn_.reg_ty(o.reg()));
        want(bits == 64 || (bits == 32 && in.m.space == Space::Shared),
             "an address register must be 64-bit (32-bit allowed for .shared)");
      }
      if (o.kind == K::Param)
        want(o.index < fn_.params.size() && in.m.space == Space::Param,
             "a parameter address needs .param space and an existing parameter");
      if (o.kind == K::Shared)
        want(in.m.space == Space::Shared, "the shared-memory symbol needs .shared space");
      if (o.kind == K::String)
        want(o.index < fn_.strings.size(), "no such string");
      return;
    }
    Ty t = src_operand_ty(fn_, in, i);
    switch (o.kind) {
    case K::None:
      fail("operand " + std::to_string(i) + " is missing");
    case K::Reg:
      check_reg(o, t, "operand");
      break;
    case K::Imm:
      want(!(ty_is_float(t) && t != Ty::F32 && t != Ty::F64),
           std::string("PTX has no immediate of type .") + ty_name(t) + " (move it to a register)");
      want(in.op != Op::Vprintf, "vprintf arguments must be registers");
      want(o.imm_kind == Operand::ImmKind::Int || t == Ty::F32 || t == Ty::F64 ||
               ty_bits(t) == (o.imm_kind == Operand::ImmKind::F32 ? 32 : 64),
           std::string("a float immediate cannot be read as .") + ty_name(t) +
               " (give its bits as an integer immediate)");
      break;
    case K::Sreg:
      want(in.op == Op::Mov, "special registers are read with mov");
      break;
    case K::Shared:
      want(in.op == Op::Mov, "the shared base is read with mov or as an address");
      break;
    case K::String:
      want(o.index < fn_.strings.size(), "no such string");
      want(in.op == Op::Mov || in.op == Op::Vprintf || in.op == Op::AssertFail ||
               in.op == Op::AssertTrap,
           "a string is used only by mov, vprintf and assertions");
      break;
    case K::Param:
      want(in.op == Op::CvtaParam, "a parameter is read with ld.param");
      want(o.index < fn_.params.size(), "no such parameter");
      break;
    case K::Label:
      want(in.op == Op::Bra && o.index < fn_.blocks.size(), "bad branch target");
      break;
    }
  }

  void check_op(const Instr &in) {
    const Mods &m = in.m;
    switch (in.op) {
    case Op::Ld:
    case Op::St: {
      size_t extra = m.l2_hint ? 1 : 0;
      want(m.vec == 1 || m.vec == 2 || m.vec == 4, "vector width must be 1, 2 or 4");
      if (in.op == Op::Ld)
        want(in.dst.size() == m.vec && in.src.size() == 1 + extra,
             "ld needs `vec` results, an address and (with .L2::cache_hint) a policy");
      else
        want(in.src.size() == 1u + m.vec + extra,
             "st needs an address, `vec` values and (with .L2::cache_hint) a policy");
      want(!(m.cache != CacheOp::None && m.evict != Evict::None),
           "a cache operator cannot be combined with an eviction priority");
      want(m.space != Space::Param || in.src[0].kind == Operand::Kind::Param || in.op == Op::St,
           "ld.param reads a parameter symbol");
      want(in.ty != Ty::Pred, "no .pred loads or stores");
      break;
    }
    case Op::Atom:
    case Op::Red:
      want(m.atom != AtomOp::None, "no atomic operation");
      want(in.src.size() == (m.atom == AtomOp::Cas ? 3u : 1u + m.vec),
           "atom needs an address and `vec` values (cas: compare and new value)");
      want(m.vec == 1 || ((m.vec == 2 || m.vec == 4) && m.atom == AtomOp::Add && in.ty == Ty::F32 &&
                          m.space == Space::Global),
           "vector atomics are .v2/.v4 .f32 add on global memory");
      want(in.op == Op::Red || in.dst.size() == m.vec, "atom writes `vec` old values");
      want(in.op == Op::Atom || m.atom != AtomOp::Cas, "red has no cas");
      want(m.space == Space::Global || m.space == Space::Shared || m.space == Space::None,
           "atomics address global or shared memory");
      want(!(m.atom == AtomOp::Add && in.ty == Ty::S64), "PTX has no atom.add.s64 (use .u64)");
      want(!(ty_is_bits(in.ty) && m.atom != AtomOp::Exch && m.atom != AtomOp::Cas &&
             m.atom != AtomOp::And && m.atom != AtomOp::Or && m.atom != AtomOp::Xor),
           "arithmetic atomics need a typed (.u/.s/.f) operand, not .b");
      break;
    case Op::Setp:
      want(m.cmp != Cmp::None, "setp needs a comparison");
      break;
    case Op::Cvt:
      want(in.src_ty != Ty::None, "cvt needs a source type");
      if (m.sat && ty_is_int(in.ty) && ty_is_int(in.src_ty))
        want(!int_range_contains(in.ty, in.src_ty),
             "cvt.sat between integers whose ranges nest is illegal (nothing to saturate)");
      want(in.src.size() == 1 ||
               (in.src.size() == 2 && packed_cvt_dst(in.ty) && in.src_ty == Ty::F32),
           "cvt takes one operand (two only for packed results from f32)");
      break;
    case Op::Shfl:
      want(m.shfl != ShflMode::None, "shfl needs a mode");
      want(in.dst.size() == 1 || in.dst.size() == 2, "shfl has a result and an optional pred");
      break;
    case Op::Vote:
      want(m.vote != VoteMode::None, "vote needs a mode");
      break;
    case Op::Bar:
      want(in.src.size() == 1 || in.src.size() == 2, "bar.sync id [, count]");
      break;
    case Op::Pack:
      want(in.src.size() >= 2, "pack needs at least two parts");
      break;
    case Op::Unpack:
      want(in.dst.size() >= 2, "unpack needs at least two parts");
      break;
    case Op::Mul:
    case Op::Mad:
      if (ty_is_int(in.ty))
        want(m.mul != MulMode::None, "integer mul/mad need .lo, .hi or .wide");
      break;
    case Op::Fma:
      want(m.rnd != Rnd::None, "fma needs a rounding mode");
      break;
    case Op::Bra:
      want(in.src.size() == 1 && in.src[0].kind == Operand::Kind::Label, "bra needs a label");
      break;
    case Op::Vprintf:
      want(!in.src.empty() && in.src[0].kind == Operand::Kind::String,
           "vprintf needs a format string");
      for (size_t i = 1; i < in.src.size(); ++i) {
        Ty t = src_operand_ty(fn_, in, i);
        want(ty_bits(t) == 32 || ty_bits(t) == 64, "vprintf arguments are 32- or 64-bit");
        want(t != Ty::F32, "vprintf float arguments must be converted to f64");
      }
      break;
    case Op::Mma: {
      MmaRegs r = mma_regs(in);
      want(r.a > 0, "unsupported mma shape/type combination (see mma_regs)");
      want(in.dst.size() == static_cast<size_t>(r.d) &&
               in.src.size() == static_cast<size_t>(r.a + r.b + r.c),
           "mma operand counts do not match the fragment tables: d" + std::to_string(r.d) + " a" +
               std::to_string(r.a) + " b" + std::to_string(r.b) + " c" + std::to_string(r.c));
      want(!in.guard.active(), "mma is warp-wide: it cannot be guarded");
      break;
    }
    case Op::Ldmatrix:
      want(m.vec == 1 || m.vec == 2 || m.vec == 4, "ldmatrix loads 1, 2 or 4 matrices");
      want(in.dst.size() == m.vec, "ldmatrix has one result per matrix");
      want(m.space == Space::Shared, "ldmatrix reads .shared memory");
      want(!in.guard.active(), "ldmatrix is warp-wide: it cannot be guarded");
      break;
    case Op::Stmatrix:
      want(m.vec == 1 || m.vec == 2 || m.vec == 4, "stmatrix stores 1, 2 or 4 matrices");
      want(in.src.size() == 1u + m.vec, "stmatrix takes an address and a word per matrix");
      want(m.space == Space::Shared, "stmatrix writes .shared memory");
      want(!in.guard.active(), "stmatrix is warp-wide: it cannot be guarded");
      break;
    case Op::CpAsync:
    case Op::CpAsyncWait:
    case Op::Mbarrier:
    case Op::Wgmma:
    case Op::WgmmaWait:
    case Op::CvtaParam:
    case Op::CpAsyncBulkTensor:
    case Op::TensormapReplace:
    case Op::TensormapCpFenceproxy:
    case Op::FenceProxyTensormap:
    case Op::CpAsyncBulkTensorStore:
      if (std::string e = async_instr_error(fn_, in); !e.empty())
        fail(e);
      break;
    case Op::InlineAsm:
      want(!in.src.empty() && in.src[0].is_imm() && in.src[0].value >= 0 &&
               static_cast<size_t>(in.src[0].value) < fn_.asm_texts.size(),
           "inline_asm needs the index of its text");
      for (size_t i = 1; i < in.src.size(); ++i)
        want(in.src[i].is_reg() && fn_.reg_ty(in.src[i].reg()) != Ty::Pred,
             "inline_asm operands are non-predicate registers");
      for (const Operand &d : in.dst)
        want(fn_.reg_ty(d.reg()) != Ty::Pred, "inline_asm results are non-predicate registers");
      break;
    case Op::AssertFail:
    case Op::AssertTrap:
      want(in.src[0].kind == Operand::Kind::String && in.src[1].kind == Operand::Kind::String &&
               in.src[2].is_imm() && in.src[3].kind == Operand::Kind::String,
           "__assertfail(message, file, line, function)");
      break;
    default:
      break;
    }
  }

  const Function &fn_;
  RegNames rn_;
  const Block *block_ = nullptr;
  const Instr *in_ = nullptr;
};

} // namespace

void verify(const Function &fn) { Checker(fn).run(); }

} // namespace tilec::simt
