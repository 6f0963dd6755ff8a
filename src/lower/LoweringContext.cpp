#include "lower/LoweringContext.h"
#include "lower/LowerRing.h"

#include "ir/RingOps.h"
#include "simt/AsyncInstrs.h"
#include "simt/TensorMap.h"

#include "layout/Layouts.h"
#include "layout/MmaLayouts.h"
#include "simt/Verifier.h"

namespace tilec::lower {

using layout::LinearLayout;

Ty reg_ty(ir::DType d, bool ptr) {
  if (ptr)
    return Ty::U64;
  switch (d) {
  case ir::DType::I1:
    return Ty::Pred;
  case ir::DType::I8:
  case ir::DType::I16:
    return Ty::S16;
  case ir::DType::U8:
  case ir::DType::U16:
    return Ty::U16;
  case ir::DType::I32:
    return Ty::S32;
  case ir::DType::U32:
    return Ty::U32;
  case ir::DType::I64:
    return Ty::S64;
  case ir::DType::U64:
    return Ty::U64;
  case ir::DType::F8E4NV:
  case ir::DType::F8E5:
  case ir::DType::F8E4B15:
    return Ty::B16;
  case ir::DType::F16:
    return Ty::F16;
  case ir::DType::BF16:
    return Ty::BF16;
  case ir::DType::F32:
    return Ty::F32;
  case ir::DType::F64:
    return Ty::F64;
  }
  return Ty::B32;
}

int mem_bytes(const ir::Type &t) { return t.ptr ? 8 : ir::byte_size(t.elem); }

namespace {

// The .param type of a kernel argument (the runtime packs every value into an 8-byte
// slot, low bytes first, so any width up to 8 reads it).
Ty param_ty(const ir::Type &t) {
  if (t.ptr)
    return Ty::U64;
  switch (t.elem) {
  case ir::DType::I1:
    return Ty::U32;
  case ir::DType::F16:
  case ir::DType::BF16:
  case ir::DType::F8E4NV:
  case ir::DType::F8E5:
  case ir::DType::F8E4B15:
    return Ty::B16;
  default:
    return reg_ty(t.elem);
  }
}

} // namespace

LoweringContext::LoweringContext(const ir::Module &m, const ir::Function &fn, simt::Function &out,
                                 const LowerOptions &opts)
    : m_(m), ir_fn_(fn), out_(out), opts_(opts), b_(out) {
  out_.name = fn.name;
  out_.num_warps = static_cast<int>(m.int_attr("num_warps", 4));
  alloc_bytes_ = m.int_attr("shared_bytes", 0);
  axis_ = std::make_unique<analysis::AxisInfoAnalysis>(fn, &m);
}

void LoweringContext::run() {
  simt::BlockId entry = b_.new_block("entry");
  TILEC_ASSERT(entry == 0, "the prologue must be block 0");
  b_.set_block(entry);
  const ir::Block *body = ir_fn_.entry();
  for (size_t i = 0; i < body->num_args(); ++i) {
    const ir::Value *a = body->arg(i);
    std::string pname = out_.name + "_param_" + std::to_string(i);
    if (ir::is_tensor_map_arg(ir_fn_, i)) { // a 128-byte map: its generic address
      set(a, {simt::cvta_param(
                 b_, out_.add_blob_param(pname, simt::kTensorMapBytes, simt::kTensorMapAlign))});
      continue;
    }
    uint32_t p = out_.add_param(pname, param_ty(a->type));
    Reg r = b_.ld_param(p);
    if (a->type.elem == ir::DType::I1 && !a->type.ptr)
      r = b_.setp(simt::Cmp::Ne, Ty::U32, r, simt::imm(0));
    set(a, {r});
  }
  if (int64_t bytes = m_.int_attr("scratch_bytes", 0); bytes > 0) {
    // this program's slots: the buffer + its linear id (x fastest) * bytes
    Reg base = b_.ld_param(out_.add_param(out_.name + "_param_scratch", Ty::U64));
    auto sr = [&](simt::Sreg r) { return b_.special(r); };
    Reg yz =
        b_.mad(Ty::U32, sr(simt::Sreg::CtaidZ), sr(simt::Sreg::NctaidY), sr(simt::Sreg::CtaidY));
    Reg id = b_.mad(Ty::U32, yz, sr(simt::Sreg::NctaidX), sr(simt::Sreg::CtaidX));
    scratch_ = b_.add(Ty::U64, base, b_.mul_wide(Ty::U32, id, simt::imm(bytes)));
  }
  b_.set_block(b_.new_block("body"));
  lower_ops(*body);
  b_.set_loc(SourceLoc{});
  if (deferred_scope_) {
    deferred_scope_ = nullptr;
    deferred_();
  }
  if (tma_stores_in_flight_) {
    auto g = b_.guarded(thread0_pred());
    simt::cp_async_bulk_wait_read(b_, 0);
  }
  b_.ret();
  // a warp_specialize op's producer warps come after those of the layouts
  out_.num_warps += static_cast<int>(m_.int_attr("producer_warps", 0));
  int64_t shared = alloc_bytes_;
  if (extra_bytes_)
    shared = ((shared + 15) & ~int64_t{15}) + extra_bytes_;
  out_.shared_bytes = static_cast<uint32_t>(shared);
}

// ---- values ---------------------------------------------------------------------------

const std::vector<Reg> &LoweringContext::get(const ir::Value *v) const {
  auto it = vals_.find(v);
  TILEC_ASSERT(it != vals_.end(), "lowering: a value used before it was lowered");
  return it->second;
}

Reg LoweringContext::scalar(const ir::Value *v) const {
  const std::vector<Reg> &r = get(v);
  TILEC_ASSERT(r.size() == 1, "lowering: expected a scalar value");
  return r[0];
}

void LoweringContext::set(const ir::Value *v, std::vector<Reg> regs) {
  if (v->type.is_tile())
    TILEC_ASSERT(static_cast<int>(regs.size()) == num_regs(v->type),
                 "lowering: wrong register count for " + v->type.str());
  else
    TILEC_ASSERT(regs.size() == 1, "lowering: a scalar takes one register");
  vals_[v] = std::move(regs);
}

// ---- thread index ---------------------------------------------------------------------

Reg LoweringContext::global_scratch() const {
  TILEC_ASSERT(scratch_.valid(), "lowering: global scratch without the module's scratch_bytes");
  return scratch_;
}

Reg LoweringContext::tid() {
  if (!tid_.valid())
    in_prologue([&] {
      tid_ = b_.special(simt::Sreg::TidX);
      // warp specialisation's cp.async producers run the consumers' code as their alias
      // (WarpSpecialize.h): thread num_warps * 32 + t places the elements thread t does
      if (m_.int_attr("producer_alias", 0))
        tid_ = b_.and_(Ty::B32, tid_, simt::imm(32 * num_warps() - 1));
    });
  return tid_;
}

Reg LoweringContext::hw_warp() {
  if (!hw_warp_.valid())
    in_prologue([&] { hw_warp_ = b_.shr(Ty::U32, b_.special(simt::Sreg::TidX), simt::imm(5)); });
  return hw_warp_;
}

Reg LoweringContext::lane() {
  if (!lane_.valid()) {
    Reg t = tid();
    in_prologue([&] { lane_ = b_.and_(Ty::B32, t, simt::imm(31)); });
  }
  return lane_;
}

Reg LoweringContext::warp() {
  if (!warp_.valid()) {
    Reg t = tid();
    in_prologue([&] { warp_ = b_.shr(Ty::U32, t, simt::imm(5)); });
  }
  return warp_;
}

// ---- emission helpers -----------------------------------------------------------------

void LoweringContext::in_prologue(const std::function<void()> &f) {
  simt::BlockId saved = b_.block();
  simt::Guard g = b_.guard();
  b_.clear_guard();
  b_.set_block(0);
  f();
  b_.set_block(saved);
  if (g.active())
    b_.set_guard(g.pred, g.negate);
}

Reg LoweringContext::imm_reg(Ty t, int64_t bits) {
  Reg r = b_.reg(t);
  b_.mov_to(r, simt::imm(bits));
  return r;
}

simt::BlockId LoweringContext::new_block(const std::string &hint) {
  simt::BlockId id = b_.new_block(hint);
  b_.set_block(id);
  smem_unknown();
  return id;
}

LoweringContext::PendingBranch LoweringContext::branch_ahead(Reg cond, bool negate) {
  if (cond.valid())
    b_.bra_if(cond, 0, negate);
  else
    b_.bra(0);
  b_.last().m.uni = true;
  return {b_.block(), out_.blocks[b_.block()].instrs.size() - 1};
}

void LoweringContext::patch(PendingBranch p, simt::BlockId target) {
  out_.blocks[p.block].instrs[p.index].src[0] = Operand::label(target);
}

// ---- shared memory --------------------------------------------------------------------

int64_t LoweringContext::scratch(const ir::Op &op, int64_t bytes, int64_t align) {
  if (op.has_attr("smem_offset") && op.int_attr("smem_size", 0) >= bytes) {
    int64_t at = op.int_attr("smem_offset");
    TILEC_ASSERT(at % align == 0, "lowering: shared memory allocated at an unaligned offset");
    return at;
  }
  int64_t base = (alloc_bytes_ + 15) & ~int64_t{15};
  int64_t at = (base + align - 1) & ~(align - 1);
  extra_bytes_ = std::max(extra_bytes_, (at - base + bytes + 15) & ~int64_t{15});
  return at;
}

void LoweringContext::uniform_if(Reg cond, const std::function<void()> &body) {
  bool readers = smem_readers_;
  PendingBranch skip = branch_ahead(cond, /*negate=*/true);
  new_block("uniform_if");
  smem_readers_ = readers;
  body();
  readers = smem_readers_;
  patch(skip, new_block("uniform_endif"));
  smem_readers_ = readers;
}

void LoweringContext::cta_barrier() {
  if (barrier_threads_)
    b_.bar_sync(simt::imm(1), simt::imm(barrier_threads_));
  else
    b_.bar_sync(0);
}

void LoweringContext::smem_before_write() {
  if (smem_readers_)
    cta_barrier();
  smem_readers_ = false;
}

void LoweringContext::smem_after_write() {
  cta_barrier();
  smem_readers_ = true;
}

Operand LoweringContext::smem_operand(const LinearLayout &l, int64_t base, int esize, int32_t r) {
  const ThreadCoords &tc = thread_coords(l);
  std::string key = l.str() + "@" + std::to_string(base) + "x" + std::to_string(esize);
  auto it = smem_addrs_.find(key);
  Reg addr;
  if (it != smem_addrs_.end()) {
    addr = it->second;
  } else {
    in_prologue([&] {
      Reg sbase = b_.shared_addr(base);
      addr = b_.mad(Ty::U32, tc.flat, simt::imm(esize), sbase);
    });
    smem_addrs_[key] = addr;
  }
  int64_t rf = flat_index(l, reg_coords(l, r));
  if ((rf & tc.flat_span) == 0)
    return Operand::addr(addr, rf * esize);
  Reg idx = b_.xor_(Ty::B32, tc.flat, simt::imm(rf));
  Reg a = b_.mad(Ty::U32, idx, simt::imm(esize), b_.shared_addr(base));
  return Operand::addr(a, 0);
}

void LoweringContext::smem_store(const Operand &addr, Reg v, const ir::Type &elem) {
  Ty t = reg_ty(elem);
  int bytes = mem_bytes(elem);
  if (t == Ty::Pred) {
    Reg u = b_.selp(Ty::U16, simt::imm(1), simt::imm(0), v);
    b_.st(simt::Space::Shared, Ty::U8, addr, {u});
    return;
  }
  b_.st(simt::Space::Shared, simt::ty_bits_of(bytes * 8), addr, {v});
}

Reg LoweringContext::smem_load(const Operand &addr, const ir::Type &elem) {
  Ty t = reg_ty(elem);
  int bytes = mem_bytes(elem);
  if (t == Ty::Pred) {
    Reg u = b_.ld1(simt::Space::Shared, Ty::U8, addr);
    return b_.setp(simt::Cmp::Ne, Ty::U16, u, simt::imm(0));
  }
  Reg d = b_.reg(t);
  Ty lt = simt::ty_bits_of(bytes * 8);
  if (bytes == 1)
    lt = t == Ty::S16 ? Ty::S8 : Ty::U8;
  b_.ld_to({d}, simt::Space::Shared, lt, addr);
  return d;
}

// ---- lowering -------------------------------------------------------------------------

void LoweringContext::lower_ops(const ir::Block &blk) {
  if (auto it = on_entry_.find(&blk); it != on_entry_.end()) {
    std::vector<std::function<void()>> fs = std::move(it->second);
    on_entry_.erase(it);
    for (auto &f : fs)
      f();
  }
  for (const auto &op : blk.ops()) {
    if (ir::is_terminator(op->kind()))
      continue;
    lower_op(*op);
  }
}

void LoweringContext::defer_past(const ir::Op *scope, std::function<void()> finish) {
  TILEC_ASSERT(!deferred_scope_ || deferred_scope_ == scope, "lowering: two deferred scopes");
  deferred_scope_ = scope;
  deferred_ = std::move(finish);
}

simt::BlockId LoweringContext::block_before(const ir::Op *loop) const {
  auto it = preheaders_.find(loop);
  TILEC_ASSERT(it != preheaders_.end(), "lowering: block_before of a loop not lowered");
  return it->second;
}

void LoweringContext::lower_op(const ir::Op &op) {
  using K = ir::OpKind;
  if (op.kind() == K::For)
    preheaders_[&op] = b_.block();
  if (deferred_scope_) { // leaving the scope: finish what it left in flight
    const ir::Op *p = &op;
    while (p && p != deferred_scope_)
      p = p->parent() && p->parent()->parent() ? p->parent()->parent()->parent() : nullptr;
    if (!p) {
      deferred_scope_ = nullptr;
      std::function<void()> f = std::move(deferred_);
      f();
    }
  }
  b_.set_loc(op.loc());
  if (op.kind() == K::Select && layout::is_wgmma_zeroing_select(op))
    return; // the dot scales its accumulator instead (MmaLayouts.h)
  switch (op.kind()) {
  case K::Constant:
    lower_constant(*this, op);
    return;
  case K::Arange:
  case K::Splat:
  case K::Broadcast:
  case K::ExpandDims:
  case K::Reshape:
  case K::Permute:
  case K::Join:
  case K::Split:
  case K::Cat:
  case K::Hint:
    lower_shape(*this, op);
    return;
  case K::Cast:
  case K::Bitcast:
    lower_cast(*this, op);
    return;
  case K::AddPtr:
  case K::Load:
  case K::Store:
    lower_memory(*this, op);
    return;
  case K::AtomicRmw:
  case K::AtomicCas:
    lower_atomic(*this, op);
    return;
  case K::Reduce:
    lower_reduce(*this, op);
    return;
  case K::Scan:
    lower_scan(*this, op);
    return;
  case K::Dot:
    lower_dot(*this, op);
    return;
  case K::InlineAsm:
    lower_inline_asm(*this, op);
    return;
  case K::Gather:
  case K::Histogram:
    lower_gather_histogram(*this, op);
    return;
  case K::ProgramId:
  case K::NumPrograms:
    lower_program(*this, op);
    return;
  case K::HwRegister:
  case K::GridDepControl:
    lower_hardware(*this, op);
    return;
  case K::Print:
  case K::Assert:
  case K::Barrier:
    lower_debug(*this, op);
    return;
  case K::If:
  case K::For:
  case K::While:
    lower_control_flow(*this, op);
    return;
  case K::LocalAlloc:
  case K::AsyncCopy:
  case K::AsyncCommit:
  case K::AsyncWait:
  case K::LocalLoad:
  case K::TmaCopy:
  case K::TmaWait:
  case K::TmaRelease:
  case K::TmaFree:
  case K::AsyncArrive:
    lower_ring(*this, op); // LowerRing.cpp, LowerTma.cpp
    return;
  case K::MakeTmap:
    lower_make_tmap(*this, op); // LowerTma.cpp
    return;
  case K::TmaStore:
    lower_tma_store(*this, op);
    return;
  case K::WarpSpecialize:
    lower_warp_specialize(*this, op);
    return;
  case K::ConvertLayout:
    if (!lower_convert_to_dot_operand(*this, op))
      lower_convert_layout(*this, op);
    return;
  case K::Yield:
  case K::Condition:
  case K::Return:
    TILEC_ASSERT(false, "lowering: a terminator outside its parent");
    return;
  default:
    break;
  }
  TILEC_ASSERT(ir::is_elementwise(op.kind()),
               "lowering: no lowering for op '" + std::string(op.name()) + "'");
  lower_elementwise(*this, op);
}

std::vector<Reg> LoweringContext::inline_region(const ir::Block &blk,
                                                const std::vector<Reg> &args) {
  TILEC_ASSERT(blk.num_args() == args.size(), "lowering: combiner argument count");
  for (size_t i = 0; i < args.size(); ++i)
    set(blk.arg(i), {args[i]});
  lower_ops(blk);
  const ir::Op *term = blk.terminator();
  TILEC_ASSERT(term, "lowering: combiner region without a terminator");
  std::vector<Reg> out;
  for (const ir::Value *v : term->operands())
    out.push_back(scalar(v));
  return out;
}

void expect_same_layout(LoweringContext &c, const ir::Op &op,
                        const std::vector<const ir::Value *> &vals) {
  const LinearLayout *first = nullptr;
  for (const ir::Value *v : vals) {
    if (!v || !v->type.is_tile())
      continue;
    const LinearLayout &l = c.layout_of(v->type);
    if (!first)
      first = &l;
    TILEC_ASSERT(l == *first, "lowering: the operands of '" + std::string(op.name()) +
                                  "' have different layouts: " + first->str() + " vs " + l.str());
  }
}

simt::Function lower_function(const ir::Module &m, const ir::Function &fn,
                              const LowerOptions &opts) {
  simt::Function out;
  LoweringContext ctx(m, fn, out, opts);
  ctx.run(); // the Thread IR passes that follow are stages of the pipeline (Pipeline.cpp)
  simt::verify(out);
  return out;
}

} // namespace tilec::lower
