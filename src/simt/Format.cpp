#include "simt/Format.h"

#include <cinttypes>
#include <cstdio>

namespace tilec::simt {

namespace {

int reg_class(Ty t) {
  switch (ty_reg_bits(t)) {
  case 1:
    return 0;
  case 16:
    return 1;
  case 32:
    return 2;
  default:
    return 3;
  }
}

std::string hex(uint64_t v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*" PRIX64, digits, v);
  return buf;
}

std::string label_name(const Function &fn, uint32_t b) {
  return "$L__" + (b < fn.blocks.size() ? fn.blocks[b].label : "?" + std::to_string(b));
}

std::string param_name(const Function &fn, uint32_t i) {
  return fn.name + "_param_" + std::to_string(i);
}

std::string with_offset(std::string base, int64_t off) {
  if (off != 0)
    base += "+" + std::to_string(off);
  return base;
}

void add_mod(std::string &s, const char *m) {
  if (m && *m) {
    s += '.';
    s += m;
  }
}

// Rounding / .approx / .full prefix shared by the float arithmetic instructions.
void float_mods(std::string &s, const Instr &in, bool allow_sat) {
  if (in.m.approx)
    add_mod(s, "approx");
  if (in.m.full)
    add_mod(s, "full");
  add_mod(s, rnd_name(in.m.rnd));
  if (in.m.ftz)
    add_mod(s, "ftz");
  if (allow_sat && in.m.sat)
    add_mod(s, "sat");
  if (in.m.relu)
    add_mod(s, "relu");
}

// Data movement (ld, st, selp) has no half, packed, fp8 or tf32 types: it moves their bits.
Ty moved_ty(Ty t) {
  return ty_is_float(t) && t != Ty::F32 && t != Ty::F64 ? ty_bits_of(ty_bits(t)) : t;
}

// ld, st, atom, red: state space, memory semantics, caching, vector width, type.
std::string memory_mnemonic(std::string s, const Instr &in) {
  const Mods &m = in.m;
  switch (in.op) {
  case Op::Ld:
  case Op::St:
    if (m.vol)
      add_mod(s, "volatile");
    add_mod(s, sem_name(m.sem));
    add_mod(s, scope_name(m.scope));
    add_mod(s, space_name(m.space));
    add_mod(s, cache_name(m.cache));
    if (m.evict != Evict::None)
      s += std::string(".L1::") + evict_name(m.evict);
    if (m.l2_hint)
      s += ".L2::cache_hint";
    if (m.vec > 1)
      s += ".v" + std::to_string(m.vec);
    add_mod(s, ty_name(moved_ty(in.ty)));
    return s;
  case Op::Atom:
  case Op::Red:
    // Triton's spellings (ptxas takes the qualifiers in any order; tools grep for these):
    // atom.global.gpu.acq_rel.add, but atom.global.acq_rel.gpu.cas
    add_mod(s, space_name(m.space));
    if (m.atom == AtomOp::Cas) {
      add_mod(s, sem_name(m.sem));
      add_mod(s, scope_name(m.scope));
    } else {
      add_mod(s, scope_name(m.scope));
      add_mod(s, sem_name(m.sem));
    }
    add_mod(s, atom_name(m.atom));
    if (m.noftz)
      add_mod(s, "noftz");
    if (m.vec > 1)
      s += ".v" + std::to_string(m.vec);
    // exch, cas and the bitwise atomics exist only for bit types
    if (m.atom == AtomOp::Exch || m.atom == AtomOp::Cas || m.atom == AtomOp::And ||
        m.atom == AtomOp::Or || m.atom == AtomOp::Xor) {
      add_mod(s, ty_name(ty_bits_of(ty_bits(in.ty))));
      return s;
    }
    add_mod(s, ty_name(in.ty));
    return s;
  default:
    TILEC_ASSERT(false, "memory_mnemonic: not a memory instruction");
    return s;
  }
}

// mma, ldmatrix, cp.async, mbarrier, wgmma: shapes and operand types.
std::string matrix_mnemonic(std::string s, const Instr &in) {
  const Mods &m = in.m;
  switch (in.op) {
  case Op::Mma: { // mma.sync.aligned.m16n8k16.row.col.<d>.<a>.<b>.<c>
    const char *ab = operand_ty_name(in.src_ty);
    s += ".m" + std::to_string(m.mma.m) + "n" + std::to_string(m.mma.n) + "k" +
         std::to_string(m.mma.k) + ".row.col";
    add_mod(s, ty_name(in.ty));
    add_mod(s, ab);
    add_mod(s, ab);
    add_mod(s, ty_name(in.ty));
    return s;
  }
  case Op::Ldmatrix: // ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16
  case Op::Stmatrix: // stmatrix.sync.aligned.m8n8.x4[.trans].shared.b16
    s += ".m8n8.x" + std::to_string(m.vec);
    if (m.trans)
      add_mod(s, "trans");
    s += ".shared.b16";
    return s;
  case Op::CpAsync: // cp.async.cg.shared.global
    add_mod(s, cache_name(m.cache));
    s += ".shared.global";
    return s;
  case Op::Mbarrier: {
    static const char *const ops[] = {
        "", "init", "arrive", "arrive.expect_tx", "try_wait.parity", "inval"};
    add_mod(s, ops[static_cast<int>(m.mbar)]);
    s += ".shared::cta.b64";
    return s;
  }
  case Op::Wgmma: // wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
    s += ".m" + std::to_string(m.mma.m) + "n" + std::to_string(m.mma.n) + "k" +
         std::to_string(m.mma.k);
    add_mod(s, ty_name(in.ty));
    add_mod(s, operand_ty_name(in.src_ty));
    add_mod(s, operand_ty_name(m.b_ty == Ty::None ? in.src_ty : m.b_ty));
    return s;
  default:
    TILEC_ASSERT(false, "matrix_mnemonic: not a matrix instruction");
    return s;
  }
}

std::string mnemonic(const Instr &in) {
  std::string s = op_mnemonic(in.op);
  const Mods &m = in.m;
  bool fl = ty_is_float(in.ty);
  switch (in.op) {
  case Op::Mov:
  case Op::Pack:
  case Op::Unpack:
    add_mod(s, ty_name(in.ty));
    return s;
  case Op::Add:
  case Op::Sub:
    if (fl)
      float_mods(s, in, true);
    else if (m.sat)
      add_mod(s, "sat");
    break;
  case Op::Mul:
  case Op::Mad:
    if (fl) {
      float_mods(s, in, true);
    } else {
      add_mod(s, m.mul == MulMode::Hi ? "hi" : m.mul == MulMode::Wide ? "wide" : "lo");
      if (m.sat)
        add_mod(s, "sat");
    }
    break;
  case Op::Fma:
  case Op::Div:
  case Op::Sqrt:
  case Op::Rcp:
  case Op::Ex2:
  case Op::Lg2:
  case Op::Rsqrt:
  case Op::Sin:
  case Op::Cos:
  case Op::Tanh:
    if (fl)
      float_mods(s, in, in.op == Op::Fma);
    break;
  case Op::Abs:
  case Op::Neg:
    if (m.ftz)
      add_mod(s, "ftz");
    break;
  case Op::Min:
  case Op::Max:
    if (m.ftz)
      add_mod(s, "ftz");
    if (m.nan)
      add_mod(s, "NaN");
    if (m.relu)
      add_mod(s, "relu");
    break;
  case Op::Setp:
    add_mod(s, cmp_name(m.cmp));
    if (m.ftz)
      add_mod(s, "ftz");
    break;
  case Op::Cvt:
    add_mod(s, rnd_name(m.rnd));
    if (m.ftz)
      add_mod(s, "ftz");
    if (m.sat)
      add_mod(s, "sat");
    if (m.relu)
      add_mod(s, "relu");
    if (m.satfinite)
      add_mod(s, "satfinite");
    add_mod(s, ty_name(in.ty));
    add_mod(s, ty_name(in.src_ty));
    return s;
  case Op::Ld:
  case Op::St:
  case Op::Atom:
  case Op::Red:
    return memory_mnemonic(std::move(s), in);
  case Op::CreatePolicy:
    s += std::string(".fractional.L2::") + evict_name(m.evict);
    break;
  case Op::Shfl:
    s += ".sync";
    add_mod(s, shfl_name(m.shfl));
    break;
  case Op::Vote:
    s += ".sync";
    add_mod(s, vote_name(m.vote));
    break;
  case Op::Membar:
    add_mod(s, m.scope == Scope::Gpu ? "gl" : scope_name(m.scope));
    return s;
  case Op::Fence:
    add_mod(s, sem_name(m.sem));
    add_mod(s, scope_name(m.scope));
    return s;
  case Op::Bra:
    if (m.uni)
      add_mod(s, "uni");
    return s;
  case Op::Selp:
    add_mod(s, ty_name(moved_ty(in.ty)));
    return s;
  case Op::Mma:
  case Op::Ldmatrix:
  case Op::Stmatrix:
  case Op::CpAsync:
  case Op::Mbarrier:
  case Op::Wgmma:
    return matrix_mnemonic(std::move(s), in);
  case Op::CpAsyncBulkTensor: // global -> shared, one box, completed on an mbarrier
    return s + "." + std::to_string(m.vec) +
           "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes";
  case Op::CpAsyncBulkTensorStore: // shared -> global, one box, in a bulk group
    return s + "." + std::to_string(m.vec) + "d.global.shared::cta.bulk_group";
  case Op::CpAsyncBulkCommit:
  case Op::CpAsyncBulkWaitRead:
    return s;
  case Op::TensormapReplace: // tensormap.replace.tile.box_dim.shared::cta.b1024.b32
    return s + "." + tmap_field_name(m.tmap) + ".shared::cta.b1024." + ty_name(in.ty);
  case Op::TensormapCpFenceproxy:
  case Op::FenceProxyTensormap:
  case Op::BarWarpSync:
    return s;
  case Op::CpAsyncCommit:
  case Op::CpAsyncWait:
  case Op::CpAsyncMbarrierArrive:
  case Op::Prefetch:
  case Op::WgmmaFence:
  case Op::WgmmaCommit:
  case Op::WgmmaWait:
  case Op::FenceProxyAsync:
  case Op::GriddepWait:
  case Op::GriddepLaunch:
  case Op::SetmaxnregDec:
  case Op::SetmaxnregInc:
    return s;
  default:
    break;
  }
  add_mod(s, ty_name(in.ty));
  return s;
}

} // namespace

RegNames::RegNames(const Function &fn) {
  static const char *const prefix[] = {"%p", "%rs", "%r", "%rd"};
  names_.reserve(fn.regs.size());
  for (const RegInfo &ri : fn.regs) {
    int c = reg_class(ri.ty);
    names_.push_back(prefix[c] + std::to_string(++counts_[c]));
  }
  for (int &c : counts_)
    ++c; // `%r<N>` declares %r0 .. %r(N-1); numbering starts at 1
}

std::string string_symbol(const Function &, uint32_t i) { return "$str" + std::to_string(i); }

std::string format_operand(const Function &fn, const RegNames &rn, const Operand &o, Ty ty) {
  switch (o.kind) {
  case Operand::Kind::None:
    return "<none>";
  case Operand::Kind::Reg:
    return rn.name(o.reg());
  case Operand::Kind::Sreg:
    return sreg_name(static_cast<Sreg>(o.index));
  case Operand::Kind::Param:
    return with_offset(param_name(fn, o.index), o.value);
  case Operand::Kind::Shared:
    return with_offset(kSharedSymbol, o.value);
  case Operand::Kind::String:
    return with_offset(string_symbol(fn, o.index), o.value);
  case Operand::Kind::Label:
    return label_name(fn, o.index);
  case Operand::Kind::Imm:
    break;
  }
  uint64_t bits = imm_bits(o, ty);
  int width = ty_bits(ty);
  if (ty == Ty::F32 || (width == 32 && o.imm_kind == Operand::ImmKind::F32))
    return "0f" + hex(bits, 8);
  if (ty == Ty::F64 || (width == 64 && o.imm_kind == Operand::ImmKind::F64))
    return "0d" + hex(bits, 16);
  if (ty_is_signed(ty) && width < 64 && (bits >> (width - 1)) & 1)
    return std::to_string(static_cast<int64_t>(bits | (~0ull << width)));
  return std::to_string(static_cast<int64_t>(bits));
}

std::string format_instr(const Function &fn, const RegNames &rn, const Instr &in) {
  std::string s;
  if (in.guard.active())
    s += (in.guard.negate ? "@!" : "@") + rn.name(in.guard.pred) + " ";
  if (in.op == Op::InlineAsm) { // the text itself is printed by the PTX printer only
    s += "asm#" + std::to_string(in.src[0].value) + " {";
    for (size_t i = 0; i < in.dst.size(); ++i)
      s += (i ? ", " : "") + format_operand(fn, rn, in.dst[i], fn.reg_ty(in.dst[i].reg()));
    s += "} <- {";
    for (size_t i = 1; i < in.src.size(); ++i)
      s += (i > 1 ? ", " : "") + format_operand(fn, rn, in.src[i], src_operand_ty(fn, in, i));
    return s + "};";
  }
  if (in.op == Op::Vprintf || in.op == Op::AssertFail || in.op == Op::AssertTrap) {
    s += std::string(op_mnemonic(in.op)) + "(";
    for (size_t i = 0; i < in.src.size(); ++i)
      s += (i ? ", " : "") + format_operand(fn, rn, in.src[i], src_operand_ty(fn, in, i));
    return s + ");";
  }
  s += mnemonic(in);
  auto src = [&](size_t i) {
    std::string t = format_operand(fn, rn, in.src[i], src_operand_ty(fn, in, i));
    if (!src_is_address(in, i))
      return t;
    return "[" + (in.src[i].is_reg() ? with_offset(t, in.src[i].value) : t) + "]";
  };
  auto dst = [&](size_t i) { return format_operand(fn, rn, in.dst[i], dst_operand_ty(in, i)); };
  auto list = [](const std::vector<std::string> &xs) {
    std::string r = "{";
    for (size_t i = 0; i < xs.size(); ++i)
      r += (i ? ", " : "") + xs[i];
    return r + "}";
  };
  std::vector<std::string> ops;
  switch (in.op) {
  case Op::Pack: {
    std::vector<std::string> parts;
    for (size_t i = 0; i < in.src.size(); ++i)
      parts.push_back(src(i));
    ops = {dst(0), list(parts)};
    break;
  }
  case Op::Unpack: {
    std::vector<std::string> parts;
    for (size_t i = 0; i < in.dst.size(); ++i)
      parts.push_back(dst(i));
    ops = {list(parts), src(0)};
    break;
  }
  case Op::Ld: {
    std::vector<std::string> ds;
    for (size_t i = 0; i < in.dst.size(); ++i)
      ds.push_back(dst(i));
    ops.push_back(ds.size() > 1 ? list(ds) : ds.at(0));
    for (size_t i = 0; i < in.src.size(); ++i)
      ops.push_back(src(i));
    break;
  }
  case Op::Atom:
  case Op::Red:
    if (in.m.vec > 1) { // atom.v4: {d0..d3}, [a], {b0..b3}
      std::vector<std::string> ds, vs;
      for (size_t i = 0; i < in.dst.size(); ++i)
        ds.push_back(dst(i));
      for (size_t i = 1; i < in.src.size(); ++i)
        vs.push_back(src(i));
      if (!ds.empty())
        ops.push_back(list(ds));
      ops.push_back(src(0));
      ops.push_back(list(vs));
      break;
    }
    for (size_t i = 0; i < in.dst.size(); ++i)
      ops.push_back(dst(i));
    for (size_t i = 0; i < in.src.size(); ++i)
      ops.push_back(src(i));
    break;
  case Op::St: {
    ops.push_back(src(0));
    size_t nv = in.src.size() - 1 - (in.m.l2_hint ? 1 : 0);
    std::vector<std::string> vs;
    for (size_t i = 1; i <= nv; ++i)
      vs.push_back(src(i));
    ops.push_back(vs.size() > 1 ? list(vs) : vs.at(0));
    if (in.m.l2_hint)
      ops.push_back(src(in.src.size() - 1));
    break;
  }
  case Op::Mma: { // {d..}, {a..}, {b..}, {c..}
    MmaRegs r = mma_regs(in);
    std::vector<std::string> ds, as, bs, cs;
    for (size_t i = 0; i < in.dst.size(); ++i)
      ds.push_back(dst(i));
    for (size_t i = 0; i < in.src.size(); ++i)
      (i < static_cast<size_t>(r.a)         ? as
       : i < static_cast<size_t>(r.a + r.b) ? bs
                                            : cs)
          .push_back(src(i));
    ops = {list(ds), list(as), list(bs), list(cs)};
    break;
  }
  case Op::Ldmatrix: {
    std::vector<std::string> ds;
    for (size_t i = 0; i < in.dst.size(); ++i)
      ds.push_back(dst(i));
    ops = {list(ds), src(0)};
    break;
  }
  case Op::Stmatrix: { // [addr], {r0, ..}
    std::vector<std::string> ws;
    for (size_t i = 1; i < in.src.size(); ++i)
      ws.push_back(src(i));
    ops = {src(0), list(ws)};
    break;
  }
  case Op::CpAsync: // [dst], [src], bytes[, src_bytes]
    ops = {src(0), src(1), std::to_string(in.m.vec)};
    if (in.src.size() > 2)
      ops.push_back(src(2));
    break;
  case Op::CpAsyncBulkTensor: { // [dst], [tmap, {c0, ..}], [bar]
    std::vector<std::string> cs;
    for (size_t i = 3; i < in.src.size(); ++i)
      cs.push_back(src(i));
    ops = {src(0), "[" + format_operand(fn, rn, in.src[2], Ty::B64) + ", " + list(cs) + "]",
           src(1)};
    break;
  }
  case Op::Wgmma: { // {d..}, {a..}|adesc, bdesc, scale_d[, 1, 1[, trans_a], trans_b]
    std::vector<std::string> ds, as;
    for (size_t i = 0; i < in.dst.size(); ++i)
      ds.push_back(dst(i));
    size_t na = in.m.a_regs ? in.src.size() - 2 : 1;
    for (size_t i = 0; i < na; ++i)
      as.push_back(src(i));
    ops = {list(ds), in.m.a_regs ? list(as) : as.at(0), src(na), src(na + 1)};
    if (ty_is_float(in.src_ty))
      ops.insert(ops.end(), {"1", "1"}); // imm-scale-a/b
    if (in.src_ty == Ty::F16 || in.src_ty == Ty::BF16) {
      if (!in.m.a_regs)
        ops.push_back(in.m.trans_a ? "1" : "0");
      ops.push_back(in.m.trans_b ? "1" : "0");
    }
    break;
  }
  case Op::CpAsyncBulkTensorStore: { // [tmap, {c0, ..}], [src]
    std::vector<std::string> cs;
    for (size_t i = 2; i < in.src.size(); ++i)
      cs.push_back(src(i));
    ops = {"[" + format_operand(fn, rn, in.src[1], Ty::B64) + ", " + list(cs) + "]", src(0)};
    break;
  }
  case Op::TensormapCpFenceproxy: // [global], [shared], 128
  case Op::FenceProxyTensormap:   // [global], 128
    for (size_t i = 0; i < in.src.size(); ++i)
      ops.push_back(src(i));
    ops.push_back("128");
    break;
  case Op::Shfl:
    ops.push_back(in.dst.size() > 1 ? dst(0) + "|" + dst(1) : dst(0));
    for (size_t i = 0; i < in.src.size(); ++i)
      ops.push_back(src(i));
    break;
  default:
    for (size_t i = 0; i < in.dst.size(); ++i)
      ops.push_back(dst(i));
    for (size_t i = 0; i < in.src.size(); ++i)
      ops.push_back(src(i));
    break;
  }
  for (size_t i = 0; i < ops.size(); ++i)
    s += (i ? ", " : " ") + ops[i];
  return s + ";";
}

std::string dump(const Function &fn) {
  RegNames rn(fn);
  std::string s = "func " + fn.name + "(";
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const Param &p = fn.params[i];
    s += (i ? ", " : "") + p.name + ": " + ty_name(p.ty);
    if (p.is_blob())
      s += "[" + std::to_string(p.bytes) + "] align " + std::to_string(p.align);
  }
  s += ") num_warps=" + std::to_string(fn.num_warps) +
       " shared=" + std::to_string(fn.shared_bytes) + "\n";
  for (size_t i = 0; i < fn.strings.size(); ++i) {
    s += "  " + string_symbol(fn, static_cast<uint32_t>(i)) + " = \"";
    for (char c : fn.strings[i]) {
      if (c == '\n')
        s += "\\n";
      else if (c == '"' || c == '\\')
        s += std::string("\\") + c;
      else
        s += c;
    }
    s += "\"\n";
  }
  for (size_t i = 0; i < fn.params.size(); ++i)
    s += "  ; " + param_name(fn, static_cast<uint32_t>(i)) + " = " + fn.params[i].name + "\n";
  for (size_t b = 0; b < fn.blocks.size(); ++b) {
    s += label_name(fn, static_cast<uint32_t>(b)) + ":\n";
    for (const Instr &in : fn.blocks[b].instrs)
      s += "  " + format_instr(fn, rn, in) + "\n";
  }
  return s;
}

} // namespace tilec::simt
