#include "simt/AsyncInstrs.h"

namespace tilec::simt {

namespace {
Instr make(Op op, Ty t = Ty::None) {
  Instr in;
  in.op = op;
  in.ty = t;
  return in;
}
Instr make_mbar(MbarOp kind) {
  Instr in = make(Op::Mbarrier, Ty::B64);
  in.m.mbar = kind;
  in.m.space = Space::Shared;
  return in;
}
} // namespace

void cp_async(Builder &b, Operand dst_shared, Operand src_global, int bytes, Operand src_bytes,
              CacheOp cache) {
  TILEC_ASSERT(bytes == 4 || bytes == 8 || bytes == 16, "cp.async copies 4, 8 or 16 bytes");
  Instr in = make(Op::CpAsync, Ty::B8);
  in.m.vec = static_cast<uint8_t>(bytes);
  in.m.space = Space::Shared;
  in.m.cache = cache != CacheOp::None ? cache : bytes == 16 ? CacheOp::Cg : CacheOp::Ca;
  in.src = {dst_shared, src_global};
  if (!src_bytes.is_none())
    in.src.push_back(src_bytes);
  b.emit(std::move(in));
}

void cp_async_commit(Builder &b) { b.emit(make(Op::CpAsyncCommit)); }

void cp_async_mbarrier_arrive(Builder &b, Operand bar) {
  Instr in = make(Op::CpAsyncMbarrierArrive);
  in.m.space = Space::Shared;
  in.src = {bar};
  b.emit(std::move(in));
}

void cp_async_wait(Builder &b, int pending) {
  Instr in = make(Op::CpAsyncWait);
  in.src = {imm(pending)};
  b.emit(std::move(in));
}

void mbarrier_init(Builder &b, Operand bar, Operand count) {
  Instr in = make_mbar(MbarOp::Init);
  in.src = {bar, count};
  b.emit(std::move(in));
}

Reg mbarrier_arrive(Builder &b, Operand bar) {
  Instr in = make_mbar(MbarOp::Arrive);
  Reg d = b.reg(Ty::B64);
  in.dst = {d};
  in.src = {bar};
  b.emit(std::move(in));
  return d;
}

Reg mbarrier_arrive_expect_tx(Builder &b, Operand bar, Operand tx_bytes) {
  Instr in = make_mbar(MbarOp::ArriveExpectTx);
  Reg d = b.reg(Ty::B64);
  in.dst = {d};
  in.src = {bar, tx_bytes};
  b.emit(std::move(in));
  return d;
}

Reg mbarrier_try_wait_parity(Builder &b, Operand bar, Operand parity) {
  Instr in = make_mbar(MbarOp::TryWaitParity);
  Reg p = b.reg(Ty::Pred);
  in.dst = {p};
  in.src = {bar, parity};
  b.emit(std::move(in));
  return p;
}

void mbarrier_inval(Builder &b, Operand bar) {
  Instr in = make_mbar(MbarOp::Inval);
  in.src = {bar};
  b.emit(std::move(in));
}

void mbarrier_wait(Builder &b, Operand bar, Operand parity) {
  BlockId spin = b.new_block("mbar_wait"), done = b.new_block("mbar_done");
  b.bra(spin);
  b.set_block(spin);
  Reg p = mbarrier_try_wait_parity(b, bar, parity);
  b.bra_if(p, spin, /*negate=*/true);
  b.set_block(done);
}

Reg cvta_param(Builder &b, uint32_t param_index) {
  TILEC_ASSERT(param_index < b.function().params.size(), "cvta_param: no such parameter");
  Instr in = make(Op::CvtaParam, Ty::U64);
  Reg d = b.reg(Ty::U64);
  in.dst = {d};
  in.src = {Operand::param(param_index)};
  b.emit(std::move(in));
  return d;
}

void cp_async_bulk_tensor(Builder &b, Operand dst_shared, Operand bar_shared, Reg tmap,
                          const std::vector<Operand> &coords) {
  TILEC_ASSERT(!coords.empty() && coords.size() <= 5, "a TMA box has 1..5 dimensions");
  Instr in = make(Op::CpAsyncBulkTensor);
  in.m.vec = static_cast<uint8_t>(coords.size());
  in.m.space = Space::Shared;
  in.src = {dst_shared, bar_shared, tmap};
  in.src.insert(in.src.end(), coords.begin(), coords.end());
  b.emit(std::move(in));
}

void cp_async_bulk_tensor_store(Builder &b, Operand src_shared, Reg tmap,
                                const std::vector<Operand> &coords) {
  TILEC_ASSERT(!coords.empty() && coords.size() <= 5, "a TMA box has 1..5 dimensions");
  Instr in = make(Op::CpAsyncBulkTensorStore);
  in.m.vec = static_cast<uint8_t>(coords.size());
  in.m.space = Space::Shared;
  in.src = {src_shared, tmap};
  in.src.insert(in.src.end(), coords.begin(), coords.end());
  b.emit(std::move(in));
}

void cp_async_bulk_commit(Builder &b) { b.emit(make(Op::CpAsyncBulkCommit)); }

void cp_async_bulk_wait_read(Builder &b, int pending) {
  Instr in = make(Op::CpAsyncBulkWaitRead);
  in.src = {imm(pending)};
  b.emit(std::move(in));
}

void tensormap_replace(Builder &b, Operand map, TmapField field, int ord, Ty ty, Operand value) {
  TILEC_ASSERT(tmap_field_has_ord(field) == (ord >= 0), "tensormap.replace: ord for this field");
  Instr in = make(Op::TensormapReplace, ty);
  in.m.tmap = field;
  in.m.space = Space::Shared;
  in.src = {map};
  if (ord >= 0)
    in.src.push_back(imm(ord));
  in.src.push_back(value);
  b.emit(std::move(in));
}

void tensormap_cp_fenceproxy(Builder &b, Reg global, Operand map) {
  Instr in = make(Op::TensormapCpFenceproxy);
  in.m.space = Space::Shared; // (the source; the destination is a 64-bit global address)
  in.src = {Operand::addr(global), map};
  b.emit(std::move(in));
}

void fence_proxy_tensormap(Builder &b, Reg global) {
  Instr in = make(Op::FenceProxyTensormap);
  in.src = {Operand::addr(global)};
  b.emit(std::move(in));
}

void bar_warp_sync(Builder &b) {
  Instr in = make(Op::BarWarpSync);
  in.src = {imm(-1)};
  b.emit(std::move(in));
}

int tensormap_elemtype(std::string_view d) {
  // PTX ISA "Tensormap new_val validity": .u8 0, .u16 1, .u32 2, .s32 3, .u64 4, .s64 5,
  // .f16 6, .f32 7, .f32.ftz 8, .f64 9, .bf16 10 (not CUtensorMapDataType's numbering)
  if (d == "fp16")
    return 6;
  if (d == "bf16")
    return 10;
  if (d == "fp32")
    return 7;
  if (d == "fp64")
    return 9;
  if (d == "i32")
    return 3;
  if (d == "u32")
    return 2;
  if (d == "i64")
    return 5;
  if (d == "u64")
    return 4;
  if (d == "i8" || d == "u8" || d == "fp8e4nv" || d == "fp8e5")
    return 0;
  if (d == "i16" || d == "u16")
    return 1;
  return -1;
}

int swizzle_bytes(Swizzle s) {
  switch (s) {
  case Swizzle::B128:
    return 128;
  case Swizzle::B64:
    return 64;
  case Swizzle::B32:
    return 32;
  default:
    return 0;
  }
}

uint64_t MatrixDesc::encode() const {
  auto f14 = [](uint32_t bytes) { return static_cast<uint64_t>((bytes >> 4) & 0x3fff); };
  return f14(start) | f14(lbo) << 16 | f14(sbo) << 32 |
         static_cast<uint64_t>(base_offset & 7) << 49 | static_cast<uint64_t>(swizzle) << 62;
}

MatrixDesc MatrixDesc::decode(uint64_t bits) {
  MatrixDesc d;
  auto f14 = [&](int at) { return static_cast<uint32_t>((bits >> at) & 0x3fff) << 4; };
  d.start = f14(0);
  d.lbo = f14(16);
  d.sbo = f14(32);
  d.base_offset = static_cast<uint8_t>((bits >> 49) & 7);
  d.swizzle = static_cast<Swizzle>(bits >> 62);
  return d;
}

uint32_t desc_element_addr(const MatrixDesc &d, bool mn_major, int elem_bytes, int mn, int k) {
  uint32_t e = static_cast<uint32_t>(elem_bytes), t = 16 / e;
  uint32_t s = static_cast<uint32_t>(swizzle_bytes(d.swizzle));
  uint32_t umn = static_cast<uint32_t>(mn), uk = static_cast<uint32_t>(k);
  uint32_t off;
  if (!mn_major) {
    uint32_t row = umn % 8, grp = umn / 8;
    off = grp * d.sbo + (s == 0 ? row * 16 + (uk / t) * d.lbo + (uk % t) * e : row * s + uk * e);
  } else if (s == 0) {
    off = (umn % t) * e + (umn / t) * d.sbo + (uk % 8) * 16 + (uk / 8) * d.lbo;
  } else {
    uint32_t w = s / e; // elements per swizzle row
    off = (umn % w) * e + (umn / w) * d.lbo + (uk % 8) * s + (uk / 8) * d.sbo;
  }
  uint32_t a = d.start + off;
  // S-byte swizzle: the 16-byte chunk index within a row (bits 4..) XOR the row (bits 7..).
  if (s != 0)
    a ^= (a >> 3) & (s - 16);
  return a;
}

Reg wgmma_desc(Builder &b, Operand start, const MatrixDesc &d) {
  if (start.is_imm()) {
    MatrixDesc all = d;
    all.start = static_cast<uint32_t>(start.value);
    return b.mov(Ty::B64, imm(static_cast<int64_t>(all.encode())));
  }
  return wgmma_desc_of(b, wgmma_desc_low(b, start, d), d);
}

namespace {
uint64_t fixed_fields(const MatrixDesc &d) {
  MatrixDesc fixed = d;
  fixed.start = 0;
  return fixed.encode();
}
} // namespace

Reg wgmma_desc_low(Builder &b, Operand start, const MatrixDesc &d) {
  Reg field = b.and_(Ty::B32, b.shr(Ty::U32, start, imm(4)), imm(0x3fff));
  uint32_t low = static_cast<uint32_t>(fixed_fields(d));
  return low ? b.or_(Ty::B32, field, imm(int64_t{low})) : field;
}

Reg wgmma_desc_of(Builder &b, Operand low, const MatrixDesc &d) {
  Reg wide = b.cvt(Ty::U64, Ty::U32, low);
  uint64_t high = fixed_fields(d) & 0xffffffff00000000ull;
  return b.or_(Ty::B64, wide, imm(static_cast<int64_t>(high)));
}

int WgmmaShape::k() const {
  return input == Ty::TF32 ? 8 : ty_bits(input) == 8 || is_fp8_ty(input) ? 32 : 16;
}
int WgmmaShape::acc_regs() const { return acc == Ty::F16 ? n / 4 : n / 2; }

void wgmma(Builder &b, const WgmmaShape &s, const std::vector<Reg> &d, Operand a_desc,
           const std::vector<Reg> &a_regs, Operand b_desc, Operand scale_d, bool trans_a,
           bool trans_b) {
  Instr in = make(Op::Wgmma, s.acc);
  in.src_ty = s.input;
  in.m.b_ty = s.input_b == s.input ? Ty::None : s.input_b;
  in.m.mma = {64, static_cast<uint16_t>(s.n), static_cast<uint16_t>(s.k())};
  in.m.trans_a = trans_a;
  in.m.trans_b = trans_b;
  in.m.a_regs = !a_regs.empty();
  for (Reg r : d)
    in.dst.push_back(r);
  if (in.m.a_regs)
    for (Reg r : a_regs)
      in.src.push_back(r);
  else
    in.src.push_back(a_desc);
  in.src.push_back(b_desc);
  in.src.push_back(scale_d);
  b.emit(std::move(in));
}

void wgmma_fence(Builder &b) { b.emit(make(Op::WgmmaFence)); }
void wgmma_commit(Builder &b) { b.emit(make(Op::WgmmaCommit)); }
void wgmma_wait(Builder &b, int pending) {
  Instr in = make(Op::WgmmaWait);
  in.src = {imm(pending)};
  b.emit(std::move(in));
}
void fence_proxy_async(Builder &b) { b.emit(make(Op::FenceProxyAsync)); }

std::string async_instr_error(const Function &fn, const Instr &in) {
  const Mods &m = in.m;
  auto wait_count = [&]() -> std::string {
    return in.src.at(0).is_imm() && in.src[0].value >= 0 && in.src[0].value <= 7
               ? ""
               : "the number of pending groups must be an immediate 0..7";
  };
  switch (in.op) {
  case Op::CpAsync: {
    if (m.vec != 4 && m.vec != 8 && m.vec != 16)
      return "cp.async copies 4, 8 or 16 bytes (Mods::vec)";
    if (in.src.size() != 2 && in.src.size() != 3)
      return "cp.async takes [dst], [src] and an optional source size";
    if (m.space != Space::Shared)
      return "cp.async's destination is .shared (Mods::space)";
    if (m.cache != CacheOp::Ca && !(m.cache == CacheOp::Cg && m.vec == 16))
      return "cp.async is .ca, or .cg for 16 bytes";
    const Operand &src = in.src[1];
    if (!src.is_reg() || ty_reg_bits(fn.reg_ty(src.reg())) != 64)
      return "cp.async's source is a 64-bit .global address register";
    if (in.src.size() == 3 && in.src[2].is_imm() &&
        (in.src[2].value < 0 || in.src[2].value > m.vec))
      return "cp.async's source size must be 0.." + std::to_string(m.vec);
    return "";
  }
  case Op::CpAsyncWait:
  case Op::WgmmaWait:
    return wait_count();
  case Op::Mbarrier: {
    if (m.space != Space::Shared)
      return "an mbarrier is in .shared memory (Mods::space)";
    if (in.guard.active() && m.mbar == MbarOp::TryWaitParity)
      return "mbarrier.try_wait cannot be guarded (its predicate would be stale)";
    size_t nd = in.dst.size(), ns = in.src.size();
    switch (m.mbar) {
    case MbarOp::Init:
      return nd == 0 && ns == 2 ? "" : "mbarrier.init [bar], count";
    case MbarOp::Arrive:
      return nd == 1 && (ns == 1 || ns == 2) ? "" : "mbarrier.arrive state, [bar][, count]";
    case MbarOp::ArriveExpectTx:
      return nd == 1 && ns == 2 ? "" : "mbarrier.arrive.expect_tx state, [bar], tx_bytes";
    case MbarOp::TryWaitParity:
      return nd == 1 && ns == 2 ? "" : "mbarrier.try_wait.parity p, [bar], parity";
    case MbarOp::Inval:
      return nd == 0 && ns == 1 ? "" : "mbarrier.inval [bar]";
    default:
      return "mbarrier needs an operation (Mods::mbar)";
    }
  }
  case Op::Wgmma: {
    WgmmaShape s{m.mma.n, in.ty, in.src_ty, m.b_ty};
    bool fp8 = is_fp8_ty(s.input) && is_fp8_ty(s.b());
    bool types = (in.ty == Ty::F32 &&
                  (in.src_ty == Ty::F16 || in.src_ty == Ty::BF16 || in.src_ty == Ty::TF32)) ||
                 (in.ty == Ty::F16 && in.src_ty == Ty::F16) ||
                 (in.ty == Ty::S32 && in.src_ty == Ty::S8) ||
                 ((in.ty == Ty::F32 || in.ty == Ty::F16) && fp8);
    if (!types || (m.b_ty != Ty::None && !fp8))
      return "unsupported wgmma types ." + std::string(ty_name(in.ty)) + "." +
             operand_ty_name(s.input) + "." + operand_ty_name(s.b());
    if (m.mma.m != 64 || m.mma.n < 8 || m.mma.n > 256 || m.mma.n % 8 != 0 || m.mma.k != s.k())
      return "wgmma shape must be m64nNk" + std::to_string(s.k()) + " with N = 8..256, N % 8 == 0";
    if (in.dst.size() != static_cast<size_t>(s.acc_regs()))
      return "wgmma needs " + std::to_string(s.acc_regs()) + " accumulator registers";
    if (in.src.size() != (m.a_regs ? 6u : 3u))
      return "wgmma takes {a0..a3} or an A descriptor, a B descriptor and scale_d";
    if ((m.trans_a || m.trans_b) && in.src_ty != Ty::F16 && in.src_ty != Ty::BF16)
      return "only f16/bf16 wgmma operands may be MN-major (transposed)";
    if (m.a_regs && m.trans_a)
      return "A from registers has no transpose";
    if (in.guard.active())
      return "wgmma is warpgroup-wide: it cannot be guarded";
    return "";
  }
  case Op::CvtaParam:
    return in.src[0].kind == Operand::Kind::Param && in.src[0].index < fn.params.size()
               ? ""
               : "cvta.param takes a kernel parameter";
  case Op::CpAsyncBulkTensor: {
    if (m.vec < 1 || m.vec > 5 || in.src.size() != 3u + m.vec)
      return "cp.async.bulk.tensor takes [dst], [bar], [tmap] and 1..5 coordinates (Mods::vec)";
    if (m.space != Space::Shared)
      return "cp.async.bulk.tensor's destination is .shared (Mods::space)";
    for (size_t i = 0; i < 2; ++i)
      if (!in.src[i].is_reg() && in.src[i].kind != Operand::Kind::Shared)
        return "cp.async.bulk.tensor's destination and mbarrier are .shared addresses";
    const Operand &t = in.src[2];
    if (!t.is_reg() || t.value != 0 || ty_reg_bits(fn.reg_ty(t.reg())) != 64)
      return "cp.async.bulk.tensor's tensor map is a 64-bit generic address register";
    for (size_t i = 3; i < in.src.size(); ++i)
      if (in.src[i].is_imm() && (in.src[i].value < INT32_MIN || in.src[i].value > INT32_MAX))
        return "a cp.async.bulk.tensor coordinate must fit in s32";
    return "";
  }
  case Op::CpAsyncBulkTensorStore: {
    if (m.vec < 1 || m.vec > 5 || in.src.size() != 2u + m.vec)
      return "a TMA store takes [src], [tmap] and 1..5 coordinates (Mods::vec)";
    const Operand &t = in.src[1];
    if (!t.is_reg() || t.value != 0 || ty_reg_bits(fn.reg_ty(t.reg())) != 64)
      return "a TMA store's tensor map is a 64-bit generic address register";
    return "";
  }
  case Op::TensormapReplace: {
    if (m.tmap == TmapField::None)
      return "tensormap.replace needs a field (Mods::tmap)";
    bool ord = tmap_field_has_ord(m.tmap);
    if (in.src.size() != (ord ? 3u : 2u) || (ord && !in.src[1].is_imm()))
      return "tensormap.replace takes [map], " + std::string(ord ? "an immediate ord, " : "") +
             "and the new value";
    bool wide = m.tmap == TmapField::GlobalAddress || m.tmap == TmapField::GlobalStride;
    if (in.ty != (wide ? Ty::B64 : Ty::B32))
      return std::string("tensormap.replace .") + tmap_field_name(m.tmap) + " is ." +
             (wide ? "b64" : "b32");
    return "";
  }
  case Op::SetmaxnregDec:
  case Op::SetmaxnregInc: {
    const Operand &n = in.src.at(0);
    return n.is_imm() && n.value >= 24 && n.value <= 256 && n.value % 8 == 0
               ? ""
               : "setmaxnreg's count is an immediate multiple of 8 from 24 to 256";
  }
  case Op::TensormapCpFenceproxy:
  case Op::FenceProxyTensormap: {
    const Operand &g = in.src[0];
    if (!g.is_reg() || ty_reg_bits(fn.reg_ty(g.reg())) != 64)
      return std::string(op_mnemonic(in.op)) + "'s global address is a 64-bit register";
    return "";
  }
  default:
    return "";
  }
}

int instr_min_sm(const Instr &in) {
  switch (in.op) {
  case Op::CpAsync:
  case Op::CpAsyncCommit:
  case Op::CpAsyncWait:
  case Op::CpAsyncMbarrierArrive:
    return 80;
  case Op::Mbarrier:
    return (in.m.mbar == MbarOp::ArriveExpectTx || in.m.mbar == MbarOp::TryWaitParity ||
            (in.m.mbar == MbarOp::Arrive && in.src.size() > 1))
               ? 90
               : 80;
  case Op::WgmmaFence:
  case Op::Wgmma:
  case Op::WgmmaCommit:
  case Op::WgmmaWait:
  case Op::FenceProxyAsync:
  case Op::GriddepWait:
  case Op::GriddepLaunch:
  case Op::SetmaxnregDec:
  case Op::SetmaxnregInc:
  case Op::CpAsyncBulkTensor: // sm_90, not sm_90a-only
  case Op::Stmatrix:
  case Op::TensormapReplace:
  case Op::TensormapCpFenceproxy:
  case Op::FenceProxyTensormap:
  case Op::CpAsyncBulkTensorStore:
  case Op::CpAsyncBulkCommit:
  case Op::CpAsyncBulkWaitRead:
    return 90;
  case Op::BarWarpSync:
    return 70;
  case Op::CvtaParam:
    return 70;
  case Op::Mma: // fp64 m16n8k8 (the Hopper DMMA shape): sm_90; the others sm_80
    return in.src_ty == Ty::F64 && in.m.mma.m == 16 ? 90 : 80;
  case Op::Atom:
  case Op::Red:
    return in.m.vec > 1 ? 90 : 0; // atom.v2/.v4.f32: sm_90, PTX ISA 8.1
  default:
    return 0;
  }
}

int instr_min_ptx_minor(const Instr &in) {
  // tensormap.* are PTX ISA 8.3, but ptxas read tensormap.replace's global_stride in 16-byte
  // units for ISA 8.5 and older (in bytes from 8.6, as the ISA says); 8.6 keeps it exact
  if (in.op == Op::TensormapReplace || in.op == Op::TensormapCpFenceproxy ||
      in.op == Op::FenceProxyTensormap)
    return 6;
  return (in.op == Op::Atom || in.op == Op::Red) && in.m.vec > 1 ? 1 : 0;
}

bool is_wgmma(Op op) {
  return op == Op::WgmmaFence || op == Op::Wgmma || op == Op::WgmmaCommit || op == Op::WgmmaWait;
}

bool is_bulk_or_tensormap(Op op) {
  switch (op) {
  case Op::CpAsyncBulkTensor:
  case Op::CpAsyncBulkTensorStore:
  case Op::CpAsyncBulkCommit:
  case Op::CpAsyncBulkWaitRead:
  case Op::TensormapReplace:
  case Op::TensormapCpFenceproxy:
  case Op::FenceProxyTensormap:
  case Op::BarWarpSync:
    return true;
  default:
    return false;
  }
}

bool instr_needs_sm90a(const Instr &in) {
  return is_wgmma(in.op) || in.op == Op::TensormapReplace || in.op == Op::SetmaxnregDec ||
         in.op == Op::SetmaxnregInc;
}

} // namespace tilec::simt
