// Names and traits of Thread IR types, modifiers and instructions.
#include "simt/ThreadIR.h"

#include <cstring>

namespace tilec::simt {

int ty_bits(Ty t) {
  switch (t) {
  case Ty::None:
    return 0;
  case Ty::Pred:
    return 1;
  case Ty::B8:
  case Ty::U8:
  case Ty::S8:
    return 8;
  case Ty::B16:
  case Ty::U16:
  case Ty::S16:
  case Ty::F16:
  case Ty::BF16:
  case Ty::E4M3x2:
  case Ty::E5M2x2:
    return 16;
  case Ty::B32:
  case Ty::U32:
  case Ty::S32:
  case Ty::F32:
  case Ty::F16x2:
  case Ty::BF16x2:
  case Ty::TF32:
    return 32;
  case Ty::B64:
  case Ty::U64:
  case Ty::S64:
  case Ty::F64:
    return 64;
  }
  return 0;
}

int ty_reg_bits(Ty t) {
  int b = ty_bits(t);
  return b == 8 ? 16 : b;
}

bool ty_is_float(Ty t) {
  switch (t) {
  case Ty::F16:
  case Ty::BF16:
  case Ty::F32:
  case Ty::F64:
  case Ty::F16x2:
  case Ty::BF16x2:
  case Ty::E4M3x2:
  case Ty::E5M2x2:
  case Ty::TF32:
    return true;
  default:
    return false;
  }
}

bool ty_is_signed(Ty t) { return t == Ty::S8 || t == Ty::S16 || t == Ty::S32 || t == Ty::S64; }
bool ty_is_unsigned(Ty t) { return t == Ty::U8 || t == Ty::U16 || t == Ty::U32 || t == Ty::U64; }
bool ty_is_bits(Ty t) { return t == Ty::B8 || t == Ty::B16 || t == Ty::B32 || t == Ty::B64; }
bool ty_is_int(Ty t) { return ty_is_signed(t) || ty_is_unsigned(t) || ty_is_bits(t); }

const char *ty_name(Ty t) {
  switch (t) {
  case Ty::None:
    return "";
  case Ty::Pred:
    return "pred";
  case Ty::B8:
    return "b8";
  case Ty::U8:
    return "u8";
  case Ty::S8:
    return "s8";
  case Ty::B16:
    return "b16";
  case Ty::U16:
    return "u16";
  case Ty::S16:
    return "s16";
  case Ty::F16:
    return "f16";
  case Ty::BF16:
    return "bf16";
  case Ty::B32:
    return "b32";
  case Ty::U32:
    return "u32";
  case Ty::S32:
    return "s32";
  case Ty::F32:
    return "f32";
  case Ty::B64:
    return "b64";
  case Ty::U64:
    return "u64";
  case Ty::S64:
    return "s64";
  case Ty::F64:
    return "f64";
  case Ty::F16x2:
    return "f16x2";
  case Ty::BF16x2:
    return "bf16x2";
  case Ty::E4M3x2:
    return "e4m3x2";
  case Ty::E5M2x2:
    return "e5m2x2";
  case Ty::TF32:
    return "tf32";
  }
  return "?";
}

bool is_fp8_ty(Ty t) { return t == Ty::E4M3x2 || t == Ty::E5M2x2; }

const char *operand_ty_name(Ty t) {
  return t == Ty::E4M3x2 ? "e4m3" : t == Ty::E5M2x2 ? "e5m2" : ty_name(t);
}

Ty ty_uint(int bits) {
  switch (bits) {
  case 8:
    return Ty::U8;
  case 16:
    return Ty::U16;
  case 32:
    return Ty::U32;
  default:
    return Ty::U64;
  }
}
Ty ty_sint(int bits) {
  switch (bits) {
  case 8:
    return Ty::S8;
  case 16:
    return Ty::S16;
  case 32:
    return Ty::S32;
  default:
    return Ty::S64;
  }
}
Ty ty_bits_of(int bits) {
  switch (bits) {
  case 1:
    return Ty::Pred;
  case 8:
    return Ty::B8;
  case 16:
    return Ty::B16;
  case 32:
    return Ty::B32;
  default:
    return Ty::B64;
  }
}

const char *sreg_name(Sreg s) {
  static const char *const names[] = {
      "%tid.x",   "%tid.y",   "%tid.z",       "%ntid.x",      "%ntid.y",      "%ntid.z",
      "%ctaid.x", "%ctaid.y", "%ctaid.z",     "%nctaid.x",    "%nctaid.y",    "%nctaid.z",
      "%laneid",  "%warpid",  "%nwarpid",     "%lanemask_lt", "%lanemask_le", "%lanemask_eq",
      "%clock",   "%clock64", "%globaltimer", "%smid"};
  return names[static_cast<int>(s)];
}

const char *rnd_name(Rnd r) {
  static const char *const n[] = {"", "rn", "rz", "rm", "rp", "rna", "rni", "rzi", "rmi", "rpi"};
  return n[static_cast<int>(r)];
}
const char *cmp_name(Cmp c) {
  static const char *const n[] = {"",   "eq",  "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls", "hi",
                                  "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  return n[static_cast<int>(c)];
}
const char *space_name(Space s) {
  static const char *const n[] = {"", "global", "shared", "param", "local", "const"};
  return n[static_cast<int>(s)];
}
const char *cache_name(CacheOp c) {
  static const char *const n[] = {"", "ca", "cg", "cs", "lu", "cv", "wb", "wt"};
  return n[static_cast<int>(c)];
}
const char *evict_name(Evict e) {
  static const char *const n[] = {"",           "evict_normal",    "evict_first",
                                  "evict_last", "evict_unchanged", "no_allocate"};
  return n[static_cast<int>(e)];
}
const char *atom_name(AtomOp a) {
  static const char *const n[] = {"",    "add", "min", "max",  "inc", "dec",
                                  "and", "or",  "xor", "exch", "cas"};
  return n[static_cast<int>(a)];
}
const char *sem_name(Sem s) {
  static const char *const n[] = {"", "relaxed", "acquire", "release", "acq_rel", "sc"};
  return n[static_cast<int>(s)];
}
const char *scope_name(Scope s) {
  static const char *const n[] = {"", "cta", "gpu", "sys"};
  return n[static_cast<int>(s)];
}
const char *shfl_name(ShflMode m) {
  static const char *const n[] = {"", "up", "down", "bfly", "idx"};
  return n[static_cast<int>(m)];
}
const char *vote_name(VoteMode m) {
  static const char *const n[] = {"", "all", "any", "uni", "ballot"};
  return n[static_cast<int>(m)];
}

const char *tmap_field_name(TmapField f) {
  static const char *const n[] = {"",
                                  "global_address",
                                  "rank",
                                  "box_dim",
                                  "global_dim",
                                  "global_stride",
                                  "element_stride",
                                  "elemtype",
                                  "interleave_layout",
                                  "swizzle_mode",
                                  "fill_mode"};
  return n[static_cast<int>(f)];
}

bool tmap_field_has_ord(TmapField f) {
  return f == TmapField::BoxDim || f == TmapField::GlobalDim || f == TmapField::GlobalStride ||
         f == TmapField::ElementStride;
}

namespace {
struct OpInfo {
  const char *id;
  const char *mnemonic;
  int nd, ns;
};
const OpInfo kOps[] = {
#define INSTR(Id, Mn, Nd, Ns) {#Id, Mn, Nd, Ns},
#include "simt/Instrs.def"
#undef INSTR
};
} // namespace

const char *op_mnemonic(Op op) { return kOps[static_cast<int>(op)].mnemonic; }
const char *op_id_name(Op op) { return kOps[static_cast<int>(op)].id; }
int op_num_dst(Op op) { return kOps[static_cast<int>(op)].nd; }
int op_num_src(Op op) { return kOps[static_cast<int>(op)].ns; }

namespace {
Ty wide_of(Ty t) {
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
    return t;
  }
}
} // namespace

bool src_is_address(const Instr &in, size_t i) {
  switch (in.op) {
  case Op::Ld:
  case Op::St:
  case Op::Atom:
  case Op::Red:
  case Op::Ldmatrix:
  case Op::Stmatrix:
  case Op::Mbarrier:
  case Op::CpAsyncMbarrierArrive:
  case Op::Prefetch:
    return i == 0;
  case Op::CpAsync:
    return i <= 1; // [dst] .shared, [src] .global
  case Op::CpAsyncBulkTensor:
    return i <= 2; // [dst] .shared, [bar] .shared, [tmap, {coords}] generic
  case Op::TensormapReplace:
  case Op::FenceProxyTensormap:
    return i == 0;
  case Op::CpAsyncBulkTensorStore:
    return i <= 1; // [src] .shared, [tmap, {coords}] generic
  case Op::TensormapCpFenceproxy:
    return i <= 1; // [global], [shared]
  default:
    return false;
  }
}

int mma_elem_bits(Ty src_ty) {
  switch (src_ty) {
  case Ty::F16:
  case Ty::BF16:
    return 16;
  case Ty::TF32:
    return 32;
  case Ty::S8:
  case Ty::U8:
  case Ty::E4M3x2:
  case Ty::E5M2x2:
    return 8;
  case Ty::F64:
    return 64;
  default:
    return 0;
  }
}

MmaRegs mma_regs(const Instr &in) {
  const MmaShape &s = in.m.mma;
  if (in.src_ty == Ty::F64) { // one f64 element a register: m8n8k4 (sm_80), m16n8k8 (sm_90)
    if (in.ty != Ty::F64)
      return {};
    if (s.m == 8 && s.n == 8 && s.k == 4)
      return {2, 1, 1, 2};
    if (s.m == 16 && s.n == 8 && s.k == 8)
      return {4, 4, 2, 4};
    return {};
  }
  int eb = mma_elem_bits(in.src_ty);
  bool known = (s.m == 16 && s.n == 8 && eb > 0 && s.k * eb == 256) &&
               (in.ty == Ty::F32 || (in.ty == Ty::F16 && eb == 16 && in.src_ty == Ty::F16) ||
                (in.ty == Ty::S32 && (in.src_ty == Ty::S8 || in.src_ty == Ty::U8)));
  if (!known)
    return {};
  int acc = s.m * s.n / 32 / (in.ty == Ty::F16 ? 2 : 1);
  return {acc, s.m * s.k * eb / 1024, s.n * s.k * eb / 1024, acc};
}

void instr_regs(const Instr &in, std::vector<uint32_t> &reads, std::vector<uint32_t> &writes) {
  reads.clear();
  writes.clear();
  for (const Operand &o : in.src)
    if (o.is_reg())
      reads.push_back(o.index);
  if (in.guard.active())
    reads.push_back(in.guard.pred.id);
  for (const Operand &o : in.dst)
    if (o.is_reg()) {
      writes.push_back(o.index);
      if (in.guard.active() || in.op == Op::Wgmma)
        reads.push_back(o.index);
    }
}

bool instr_reads(const Instr &in, uint32_t reg) {
  for (const Operand &o : in.src)
    if (o.is_reg() && o.index == reg)
      return true;
  if (in.guard.active() && in.guard.pred.id == reg)
    return true;
  if (in.guard.active() || in.op == Op::Wgmma)
    return instr_writes(in, reg);
  return false;
}

bool instr_writes(const Instr &in, uint32_t reg) {
  for (const Operand &o : in.dst)
    if (o.is_reg() && o.index == reg)
      return true;
  return false;
}

bool leaves_block(const Instr &in) {
  return in.op == Op::Bra || in.op == Op::Ret || in.op == Op::Exit || in.op == Op::Trap;
}

Ty src_operand_ty(const Function &fn, const Instr &in, size_t i) {
  const Operand &o = in.src.at(i);
  if (o.kind == Operand::Kind::Label || o.kind == Operand::Kind::String)
    return Ty::None;
  if (src_is_address(in, i))
    return o.is_reg() ? fn.reg_ty(o.reg()) : Ty::None;
  switch (in.op) {
  case Op::Pack:
    return ty_bits_of(ty_bits(in.ty) / static_cast<int>(in.src.size()));
  case Op::Mad:
    return (i == 2 && in.m.mul == MulMode::Wide) ? wide_of(in.ty) : in.ty;
  case Op::Shl:
  case Op::Shr:
    return i == 1 ? Ty::U32 : in.ty;
  case Op::Prmt:
    return Ty::B32;
  case Op::Selp:
    return i == 2 ? Ty::Pred : in.ty;
  case Op::Cvt:
    return in.src_ty;
  case Op::Ld:
    return Ty::B64; // the cache policy
  case Op::St:
    return (in.m.l2_hint && i + 1 == in.src.size()) ? Ty::B64 : in.ty;
  case Op::CreatePolicy:
    return Ty::F32;
  case Op::Shfl:
    return i == 0 ? Ty::B32 : i == 3 ? Ty::B32 : Ty::U32;
  case Op::Vote:
    return i == 0 ? Ty::Pred : Ty::B32;
  case Op::Bar:
  case Op::BarArrive:
    return Ty::U32;
  case Op::Vprintf:
    return o.is_reg() ? fn.reg_ty(o.reg()) : Ty::None;
  case Op::InlineAsm:
    return o.is_reg() ? fn.reg_ty(o.reg()) : Ty::U32;
  case Op::AssertFail:
  case Op::AssertTrap:
    return Ty::S32;
  case Op::Mma: {
    MmaRegs r = mma_regs(in);
    if (i < static_cast<size_t>(r.a + r.b))
      return in.src_ty == Ty::F64 ? Ty::F64 : Ty::B32;
    return in.ty == Ty::F16 ? Ty::F16x2 : in.ty;
  }
  case Op::CpAsync:
  case Op::Mbarrier:
  case Op::CpAsyncWait:
  case Op::WgmmaWait:
    return Ty::U32; // src-size, count, tx bytes, parity, pending groups
  case Op::CpAsyncBulkTensor:
    return Ty::S32; // the coordinates
  case Op::CpAsyncBulkTensorStore:
    return Ty::S32; // the coordinates
  case Op::CpAsyncBulkWaitRead:
    return Ty::U32;
  case Op::TensormapReplace: // [addr], [ord,] value
    return i + 1 < in.src.size() ? Ty::U32 : in.ty;
  case Op::BarWarpSync:
    return Ty::B32;
  case Op::Stmatrix:
    return Ty::B32; // two 16-bit elements a word
  case Op::Wgmma:   // [a0..a3 |] adesc bdesc scale_d
    return i + 1 == in.src.size() ? Ty::Pred : (in.m.a_regs && i < 4) ? Ty::B32 : Ty::B64;
  default:
    return in.ty;
  }
}

Ty dst_operand_ty(const Instr &in, size_t i) {
  switch (in.op) {
  case Op::Mul:
  case Op::Mad:
    return in.m.mul == MulMode::Wide ? wide_of(in.ty) : in.ty;
  case Op::Setp:
    return Ty::Pred;
  case Op::Popc:
  case Op::Clz:
    return Ty::U32;
  case Op::Unpack:
    return ty_bits_of(ty_bits(in.ty) / static_cast<int>(in.dst.size()));
  case Op::Shfl:
    return i == 0 ? Ty::B32 : Ty::Pred;
  case Op::Mma:
    return in.ty == Ty::F16 ? Ty::F16x2 : in.ty;
  case Op::Ldmatrix:
    return Ty::B32;
  case Op::Mbarrier:
    return in.m.mbar == MbarOp::TryWaitParity ? Ty::Pred : Ty::B64;
  case Op::Wgmma:
    return in.ty == Ty::F16 ? Ty::F16x2 : in.ty; // f16 accumulators: two per register
  default:
    return in.ty;
  }
}

uint64_t imm_bits(const Operand &o, Ty t) {
  int bits = ty_bits(t);
  uint64_t mask = bits >= 64 ? ~0ull : bits == 0 ? ~0ull : ((1ull << bits) - 1);
  if (t == Ty::Pred)
    return o.value != 0;
  auto f32_bits = [](float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return static_cast<uint64_t>(b);
  };
  auto f64_bits = [](double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
  };
  auto as_f32 = [&]() {
    float f;
    uint32_t b = static_cast<uint32_t>(o.value);
    std::memcpy(&f, &b, 4);
    return f;
  };
  auto as_f64 = [&]() {
    double d;
    std::memcpy(&d, &o.value, 8);
    return d;
  };
  if (t == Ty::F32 || t == Ty::F64) {
    double v = o.imm_kind == Operand::ImmKind::Int   ? static_cast<double>(o.value)
               : o.imm_kind == Operand::ImmKind::F32 ? static_cast<double>(as_f32())
                                                     : as_f64();
    return t == Ty::F32 ? f32_bits(static_cast<float>(v)) : f64_bits(v);
  }
  TILEC_ASSERT(!(ty_is_float(t) && o.imm_kind != Operand::ImmKind::Int),
               std::string("a float immediate cannot be read as .") + ty_name(t));
  return static_cast<uint64_t>(o.value) & mask;
}

} // namespace tilec::simt
