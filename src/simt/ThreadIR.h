// Thread IR: the program of ONE thread of a kernel, close to PTX (docs/ARCHITECTURE.md).
//
// A Function holds typed virtual registers, kernel parameters, constant strings, the size
// of its dynamic shared memory and a list of basic blocks. Blocks are laid out in order:
// control falls through from one block to the next unless its last instruction is an
// unguarded bra/ret/exit. Every instruction may carry a guard (`@p` / `@!p`).
//
// Registers are typed by what the program means (u32, f32, f16x2, ...); PTX declares
// them by width (.pred/.b16/.b32/.b64), so any instruction type of the same width may
// use them. 8-bit values live in 16-bit registers, f16x2/bf16x2 and e4m3x2/e5m2x2 in
// b32/b16 registers, as PTX requires.
//
// Building code: see Builder.h. Printing: simt/Format.h (dump), codegen/PtxPrinter.h
// (PTX). Running on the CPU: interp/simt/Simulator.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "support/Diagnostics.h"

namespace tilec::simt {

// ---- types -------------------------------------------------------------------------

enum class Ty : uint8_t {
  None,
  Pred,
  B8,
  U8,
  S8,
  B16,
  U16,
  S16,
  F16,
  BF16,
  B32,
  U32,
  S32,
  F32,
  B64,
  U64,
  S64,
  F64,
  F16x2,
  BF16x2, // packed in 32 bits
  E4M3x2,
  E5M2x2, // two fp8 values packed in 16 bits (cvt only, sm_89+)
  TF32,   // cvt.rna.tf32.f32 result, held in 32 bits
};

int ty_bits(Ty t);                 // 1 for pred; 8/16/32/64
int ty_reg_bits(Ty t);             // width of the register holding it: 1, 16, 32 or 64
bool ty_is_float(Ty t);            // f16 bf16 f32 f64 (and the packed / fp8 / tf32 forms)
bool is_fp8_ty(Ty t);              // E4M3x2 / E5M2x2: also the fp8 operand types of mma and wgmma
const char *operand_ty_name(Ty t); // a tensor-core operand's PTX type: e4m3 / e5m2 for fp8
bool ty_is_signed(Ty t);           // s8 s16 s32 s64
bool ty_is_unsigned(Ty t);         // u8 u16 u32 u64
bool ty_is_bits(Ty t);             // b8 b16 b32 b64
bool ty_is_int(Ty t);              // signed, unsigned or bits
const char *ty_name(Ty t);         // "f32"
Ty ty_uint(int bits);              // U8..U64
Ty ty_sint(int bits);
Ty ty_bits_of(int bits); // B8..B64 (1: Pred)

// ---- operands ------------------------------------------------------------------------

struct Reg {
  uint32_t id = UINT32_MAX;
  bool valid() const { return id != UINT32_MAX; }
  bool operator==(const Reg &) const = default;
};

using BlockId = uint32_t;

enum class Sreg : uint8_t {
  TidX,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  LaneId,
  WarpId,
  NWarpId,
  LanemaskLt,
  LanemaskLe,
  LanemaskEq,
  Clock,
  Clock64,
  Globaltimer, // u64 nanoseconds
  Smid,
};
const char *sreg_name(Sreg s); // "%tid.x"

struct Operand {
  enum class Kind : uint8_t {
    None,
    Reg,    // index: register id
    Imm,    // value: the bits; imm_kind says how to print them
    Sreg,   // index: Sreg
    Param,  // index: kernel parameter; value: byte offset (an address in .param space)
    Shared, // the dynamic shared memory base; value: byte offset (a .shared address)
    String, // index: global string; value: byte offset (a .global address)
    Label,  // index: BlockId
  };
  enum class ImmKind : uint8_t { Int, F32, F64 };

  Kind kind = Kind::None;
  ImmKind imm_kind = ImmKind::Int;
  uint32_t index = 0;
  int64_t value = 0; // immediate bits, or byte offset when the operand is an address

  Operand() = default;
  Operand(Reg r) : kind(Kind::Reg), index(r.id) {} // NOLINT: implicit by design

  bool is_reg() const { return kind == Kind::Reg; }
  bool is_imm() const { return kind == Kind::Imm; }
  bool is_none() const { return kind == Kind::None; }
  Reg reg() const { return Reg{index}; }

  static Operand imm(int64_t v) {
    Operand o;
    o.kind = Kind::Imm;
    o.value = v;
    return o;
  }
  static Operand f32(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    Operand o = imm(bits);
    o.imm_kind = ImmKind::F32;
    return o;
  }
  static Operand f64(double d) {
    int64_t bits;
    std::memcpy(&bits, &d, 8);
    Operand o = imm(bits);
    o.imm_kind = ImmKind::F64;
    return o;
  }
  static Operand sreg(Sreg s) {
    Operand o;
    o.kind = Kind::Sreg;
    o.index = static_cast<uint32_t>(s);
    return o;
  }
  // Memory addresses: [reg+offset], [param+offset], [shared+offset], [string+offset].
  static Operand addr(Reg base, int64_t offset = 0) {
    Operand o(base);
    o.value = offset;
    return o;
  }
  static Operand param(uint32_t index, int64_t offset = 0) {
    Operand o;
    o.kind = Kind::Param;
    o.index = index;
    o.value = offset;
    return o;
  }
  static Operand shared(int64_t offset = 0) {
    Operand o;
    o.kind = Kind::Shared;
    o.value = offset;
    return o;
  }
  static Operand string(uint32_t index, int64_t offset = 0) {
    Operand o;
    o.kind = Kind::String;
    o.index = index;
    o.value = offset;
    return o;
  }
  static Operand label(BlockId b) {
    Operand o;
    o.kind = Kind::Label;
    o.index = b;
    return o;
  }
};

inline Operand imm(int64_t v) { return Operand::imm(v); }

// ---- modifiers -----------------------------------------------------------------------

enum class Rnd : uint8_t { None, Rn, Rz, Rm, Rp, Rna, Rni, Rzi, Rmi, Rpi };
enum class MulMode : uint8_t { None, Lo, Hi, Wide };
enum class Cmp : uint8_t {
  None,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge, // signed ints; ordered floats
  Lo,
  Ls,
  Hi,
  Hs, // unsigned ints
  Equ,
  Neu,
  Ltu,
  Leu,
  Gtu,
  Geu, // unordered floats (true when either is NaN)
  Num,
  Nan, // floats: both numbers / either NaN
};
enum class Space : uint8_t { None, Global, Shared, Param, Local, Const }; // None: generic
enum class CacheOp : uint8_t { None, Ca, Cg, Cs, Lu, Cv, Wb, Wt };
// ld/st: .L1::evict_*; createpolicy: .L2::evict_* (Normal -> evict_normal, ...).
enum class Evict : uint8_t { None, Normal, First, Last, Unchanged, NoAllocate };
enum class AtomOp : uint8_t { None, Add, Min, Max, Inc, Dec, And, Or, Xor, Exch, Cas };
enum class Sem : uint8_t { None, Relaxed, Acquire, Release, AcqRel, Sc }; // Sc: fence.sc
enum class Scope : uint8_t { None, Cta, Gpu, Sys };                       // membar: cta/gl/sys
enum class ShflMode : uint8_t { None, Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { None, All, Any, Uni, Ballot };
enum class MbarOp : uint8_t { None, Init, Arrive, ArriveExpectTx, TryWaitParity, Inval };
// tensormap.replace's field (PTX ISA "tensormap.replace")
enum class TmapField : uint8_t {
  None,
  GlobalAddress,
  Rank,
  BoxDim,
  GlobalDim,
  GlobalStride,
  ElementStride,
  ElemType,
  InterleaveLayout,
  SwizzleMode,
  FillMode
};
struct MmaShape {
  uint16_t m = 0, n = 0, k = 0;
  bool operator==(const MmaShape &) const = default;
};

const char *rnd_name(Rnd r);
const char *cmp_name(Cmp c);
const char *space_name(Space s);
const char *cache_name(CacheOp c);
const char *evict_name(Evict e);
const char *atom_name(AtomOp a);
const char *sem_name(Sem s);
const char *scope_name(Scope s);
const char *shfl_name(ShflMode m);
const char *vote_name(VoteMode m);
const char *tmap_field_name(TmapField f); // "global_address", "box_dim", ...
bool tmap_field_has_ord(TmapField f);     // box_dim, global_dim, global_stride, element_stride

struct Mods {
  Rnd rnd = Rnd::None;
  MulMode mul = MulMode::None;
  Cmp cmp = Cmp::None;
  Space space = Space::None;
  CacheOp cache = CacheOp::None;
  Evict evict = Evict::None;
  AtomOp atom = AtomOp::None;
  Sem sem = Sem::None;
  Scope scope = Scope::None;
  ShflMode shfl = ShflMode::None;
  VoteMode vote = VoteMode::None;
  uint8_t vec = 1;        // ld/st, atom/red .f32 add (sm_90): 1, 2 or 4
  bool ftz = false;       // flush subnormal inputs and results to sign-preserving zero
  bool sat = false;       // ints: clamp; floats: clamp to [0, 1]
  bool satfinite = false; // cvt to fp8/f16: clamp to the largest finite value
  bool approx = false;    // div/sqrt/ex2/... .approx
  bool full = false;      // div.full.f32
  bool nan = false;       // min/max .NaN
  bool uni = false;       // bra.uni (every active thread takes the same way)
  bool noftz = false;     // atom.add.noftz.f16/bf16
  bool relu = false;      // cvt.rn.relu / min.relu ... (sm_80)
  bool l2_hint = false;   // ld/st .L2::cache_hint: the last src is a 64-bit policy register
  bool vol = false;       // ld/st.volatile
  // Tensor cores (mma, ldmatrix, wgmma, mbarrier; Instrs.def).
  MmaShape mma;
  MbarOp mbar = MbarOp::None;
  bool trans = false;   // ldmatrix .trans
  bool trans_a = false; // wgmma: A is M-major (transposed) in shared memory
  bool trans_b = false; // wgmma: B is N-major
  bool a_regs = false;  // wgmma: A comes from registers
  Ty b_ty = Ty::None;   // wgmma: B's element type where it is not A's (fp8: e4m3 with e5m2)
  TmapField tmap = TmapField::None; // tensormap.replace
  bool operator==(const Mods &) const = default;
};

// ---- instructions ---------------------------------------------------------------------

enum class Op : uint8_t {
#define INSTR(Id, Mn, Nd, Ns) Id,
#include "simt/Instrs.def"
#undef INSTR
};
const char *op_mnemonic(Op op);
const char *op_id_name(Op op); // "Mov"
int op_num_dst(Op op);         // -1: variable
int op_num_src(Op op);

struct Guard {
  Reg pred;            // invalid: unguarded
  bool negate = false; // @!p
  bool active() const { return pred.valid(); }
};

struct Instr {
  Op op = Op::Mov;
  Ty ty = Ty::None;     // the instruction's type suffix
  Ty src_ty = Ty::None; // cvt's source type
  Mods m;
  Guard guard;
  std::vector<Operand> dst;
  std::vector<Operand> src;
  SourceLoc loc; // the Tile IR op it came from: simulator errors name it
  // A shared-memory access within one scratch buffer: the bytes [smem_lo, smem_hi) of the
  // dynamic shared memory it may touch (smem_hi 0: not known). Lets sink-fragment-loads
  // move a load past stores to other buffers.
  int64_t smem_lo = 0, smem_hi = 0;
};

struct Block {
  std::string label; // unique within the function (the Builder makes it so)
  std::vector<Instr> instrs;
};

struct Param {
  std::string name; // a PTX identifier, unique
  Ty ty = Ty::U64;  // pointers are u64; B8 for a byte array
  // > 0: a by-value byte array `.param .align <align> .b8 name[bytes]` (a TMA tensor map:
  // simt/TensorMap.h), read through its generic address (cvta_param) or ld.param + offset.
  uint32_t bytes = 0;
  uint32_t align = 0;
  bool is_blob() const { return bytes > 0; }
};

struct RegInfo {
  Ty ty = Ty::B32;
};

// The PTX printer writes a line `<prefix>FILE:LINE: MESSAGE` in the header for each
// AssertTrap (Instrs.def); the launcher reads them back into its note on a fault.
inline constexpr const char *kTrapNotePrefix = "// tilec trap: ";

struct Function {
  std::string name;
  int num_warps = 4;               // -> .reqntid (num_warps * 32)
  int maxnreg = 0;                 // -> .maxnreg N (the launch option maxnreg); 0: none
  int min_ctas = 0;                // -> .minnctapersm N: ptxas then knows the registers at entry,
                                   // which setmaxnreg needs (warp specialisation); 0: none
  int setmaxnreg_give_threads = 0; // the threads that run setmaxnreg.dec (a header comment
                                   // the register budget's check reads: OccupancyCap.h)
  uint32_t shared_bytes = 0;       // dynamic (extern) shared memory the kernel needs
  std::vector<Param> params;
  std::vector<RegInfo> regs;
  std::vector<std::string> strings;   // constant .global strings (a NUL is appended)
  std::vector<std::string> asm_texts; // inline_asm's PTX, as the user wrote it
  std::vector<Block> blocks;

  uint32_t add_param(std::string pname, Ty t) {
    params.push_back({std::move(pname), t});
    return static_cast<uint32_t>(params.size() - 1);
  }
  uint32_t add_blob_param(std::string pname, uint32_t bytes, uint32_t align) {
    params.push_back({std::move(pname), Ty::B8, bytes, align});
    return static_cast<uint32_t>(params.size() - 1);
  }
  uint32_t add_string(std::string text) {
    for (size_t i = 0; i < strings.size(); ++i)
      if (strings[i] == text)
        return static_cast<uint32_t>(i);
    strings.push_back(std::move(text));
    return static_cast<uint32_t>(strings.size() - 1);
  }
  Reg new_reg(Ty t) {
    regs.push_back({t});
    return Reg{static_cast<uint32_t>(regs.size() - 1)};
  }
  Ty reg_ty(Reg r) const { return regs.at(r.id).ty; }
  int num_threads() const { return num_warps * 32; }
};

// ---- operand typing (shared by the verifier, the printers and the simulator) ----------

// The type an instruction reads its i-th source operand as (addresses: the address
// register's type; labels, strings: None), and writes its i-th destination as.
Ty src_operand_ty(const Function &fn, const Instr &in, size_t i);
Ty dst_operand_ty(const Instr &in, size_t i);
// Whether src i of `in` is a memory address ([...]).
bool src_is_address(const Instr &in, size_t i);
// The bits an immediate stands for when read as `t`: an Int immediate read as a float
// type is converted by value (imm(1) as f32 is 1.0f); F32/F64 immediates read as a
// float type are converted to it (to nearest), read as an integer type are their bits.
uint64_t imm_bits(const Operand &o, Ty t);

// ---- register use (shared by the Thread IR passes) --------------------------------------

// The registers `in` reads and writes. A guarded write keeps the old value where the guard
// is false, and wgmma accumulates into its results: both also read their destinations.
void instr_regs(const Instr &in, std::vector<uint32_t> &reads, std::vector<uint32_t> &writes);
bool instr_reads(const Instr &in, uint32_t reg);
bool instr_writes(const Instr &in, uint32_t reg);
// Whether control may leave the block at `in` (branch, return, exit, trap).
bool leaves_block(const Instr &in);

// mma: how many registers each operand group takes (d, a, b, c), by the PTX ISA's fragment
// tables for in.m.mma, in.ty (the accumulator) and in.src_ty (the A/B element type); all
// zero for a shape/type the simulator and printer do not know. A and B are b32 registers
// of packed elements; C/D are f32/s32 registers, or f16x2 for an f16 accumulator. fp64
// (A, B, C, D all f64 registers): m8n8k4 and m16n8k8.
struct MmaRegs {
  int d = 0, a = 0, b = 0, c = 0;
};
MmaRegs mma_regs(const Instr &in);
// Bits of one A/B element of an mma (f16/bf16 16, tf32 32, s8/u8 and the fp8 forms 8,
// f64 64).
int mma_elem_bits(Ty src_ty);

} // namespace tilec::simt
