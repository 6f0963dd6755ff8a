#include "layout/PipelineLoops.h"

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "analysis/AxisInfo.h"
#include "ir/RingOps.h"
#include "layout/AssignLayouts.h"
#include "layout/LayoutRules.h"
#include "layout/Layouts.h"
#include "layout/MmaLayouts.h"
#include "layout/PlanRings.h"
#include "layout/RingLayouts.h"
#include "layout/TmaCopies.h"
#include "support/Env.h"
#include "transforms/CSE.h"
#include "transforms/DCE.h"
#include "transforms/FoldUtils.h"
#include "transforms/LoopShift.h"

namespace tilec::layout {

using namespace ir;
using transforms::LoopShift;

namespace {

// One load going into a ring.
struct Candidate {
  Op *load = nullptr;
  Op *dot = nullptr; // the first reader: the stage is placed for it
  int operand = 0;
  std::vector<Op *> chain;           // the permute / convert_layout ops from the load to the dot
  std::vector<RingConsumer> readers; // every reader, the first one included (PlanRings.h)
  std::vector<std::vector<int32_t>> stage_bases;
  Value *buf = nullptr;
  std::optional<TmaCopyPlan> tma; // copied by TMA (a host descriptor's block, wgmma reader)
};

// The TMA copy of a `tma` load (Ops.def) whose stage is `stage`: when the dot reading it
// is a wgmma and a box places the block exactly as the stage does.
std::optional<TmaCopyPlan> tma_plan(const Op &load, const Op &dot, const std::vector<Op *> &chain,
                                    const LinearLayout &stage) {
  const Type &rt = load.result()->type;
  const LayoutRef &dl = dot.result()->type.layout;
  if (!load.int_attr("tma", 0) || rt.rank() != 2 || !dl || dl->kind != LayoutKind::Mma ||
      dl->mma_version != 3)
    return std::nullopt;
  bool transposed = false;
  for (const Op *p : chain)
    if (p->kind() == OpKind::Permute)
      transposed = !transposed; // rank 2: the only non-trivial permutation
  return tma_copy_plan(stage, rt.shape[0], rt.shape[1], transposed,
                       static_cast<int>(byte_size(rt.elem)));
}

// Whether each thread's copies along `cdim` of the load's pointer (and mask) tile are runs
// of 4 bytes or more that cp.async can take: contiguous in the thread's registers and in
// memory, aligned, and under one mask bit.
bool copies_in_runs(const Op &load, int cdim, const analysis::AxisInfoAnalysis &ax) {
  const Value *ptr = load.operand(0);
  int64_t eb = byte_size(ptr->type.elem);
  int64_t run = contiguous_per_thread(to_linear(ptr->type), cdim);
  run = std::min(run, ax.ptr_vector_elems(ptr, cdim));
  if (load.num_operands() > 1) {
    const analysis::AxisInfo &m = ax.get(load.operand(1));
    if (m.rank() == ptr->type.rank())
      run = std::min(run, m.constancy[static_cast<size_t>(cdim)]);
    else
      run = 1;
  }
  return run * eb >= 4;
}

std::optional<Candidate> candidate(Op &load, Block &body, LoopShift &sh,
                                   const analysis::AxisInfoAnalysis &ax, bool force,
                                   bool kernel_maps) {
  if (load.parent() != &body || load.int_attr("volatile", 0) != 0 ||
      (!force && load.int_attr(kRingLoadAttr, 0) == 0)) // plan-rings made the choice
    return std::nullopt;
  std::vector<RingConsumer> readers = ring_consumers(load);
  if (readers.empty())
    return std::nullopt;
  Op *dot = readers[0].dot;
  int operand = readers[0].operand;
  const Type &pt = load.operand(0)->type;
  if (pt.rank() != 2 || !pt.layout || pt.layout->kind != LayoutKind::Blocked ||
      !same_layout(pt.layout, load.result()->type.layout))
    return std::nullopt;
  if (load.num_operands() > 2 && !transforms::is_plus_zero_constant(load.operand(2)))
    return std::nullopt;
  for (size_t i = 0; i < std::min<size_t>(2, load.num_operands()); ++i)
    if (!sh.recomputable(load.operand(i)))
      return std::nullopt;
  Candidate c;
  c.load = &load;
  c.dot = dot;
  c.operand = operand;
  c.chain = readers[0].chain;
  // the memory-contiguous dim, followed through the permutes (a TMA copy needs no runs)
  int cdim = pt.layout->order[0];
  bool tma_load = load.int_attr("tma", 0) != 0 && cdim == 1;
  if (!tma_load && !copies_in_runs(load, cdim, ax))
    return std::nullopt;
  for (Op *p : c.chain)
    if (p->kind() == OpKind::Permute) {
      std::vector<int64_t> order = p->ints_attr("order");
      for (size_t i = 0; i < order.size(); ++i)
        if (order[i] == cdim) {
          cdim = static_cast<int>(i);
          break;
        }
    }
  if (!force && !ring_consumer_supported(*dot, operand))
    return std::nullopt;
  std::optional<LinearLayout> stage = ring_stage_layout(*dot, operand, cdim);
  if (!stage)
    return std::nullopt;
  // several readers: wgmma dots, each reading the first one's stage in place
  int cdim0 = readers[0].transposed ? 1 - cdim : cdim; // in the load's coordinates
  auto wgmma_stage = [&](const RingConsumer &r) -> std::optional<LinearLayout> {
    std::optional<WgmmaOperandSmem> s =
        ring_wgmma_smem(*r.dot, r.operand, r.transposed ? 1 - cdim0 : cdim0);
    return s ? std::optional<LinearLayout>(s->layout) : std::nullopt;
  };
  if (readers.size() > 1 && !ring_readers_share_stage(readers, wgmma_stage))
    return std::nullopt;
  for (size_t i = 1; i < readers.size(); ++i)
    if (!force && !ring_consumer_supported(*readers[i].dot, readers[i].operand))
      return std::nullopt;
  c.readers = std::move(readers);
  for (int i = 0; i < stage->in_dim_bits(kOffset); ++i)
    c.stage_bases.push_back(stage->basis(kOffset, i));
  if (tma_load && c.readers.size() == 1 &&
      tma_map_usable(load, body.parent()->parent(), kernel_maps))
    c.tma = tma_plan(load, *dot, c.chain, *stage);
  for (size_t i = 4; c.tma && i < load.num_operands(); ++i)
    if (!sh.recomputable(load.operand(i)))
      c.tma.reset();
  if (tma_load && !c.tma && !copies_in_runs(load, cdim, ax))
    return std::nullopt;
  return c;
}

// `t` (a pointer or mask tile of the load) through the candidate's permutes.
Value *through_chain(Builder &b, const Candidate &c, Value *t) {
  for (Op *p : c.chain) {
    if (p->kind() != OpKind::Permute)
      continue;
    std::vector<int64_t> order = p->ints_attr("order");
    Shape s;
    for (int64_t o : order)
      s.push_back(t->type.shape[static_cast<size_t>(o)]);
    Type rt = t->type.with_shape(s).with_layout(rules::permuted(t->type.layout, order, false));
    t = b.create(OpKind::Permute, {t}, {rt}, p->attrs(), p->loc())->result();
  }
  return t;
}

// async_copy of the candidate's tile in the iteration whose pointer / mask are `ptr` /
// `mask` (mask may be null) and whose `in_range` (scalar i1) says it exists.
void copy(Builder &b, const Candidate &c, Value *stage, Value *ptr, Value *mask, Value *in_range) {
  SourceLoc loc = c.load->loc();
  Type mt = ptr->type.with_elem(DType::I1);
  Value *m = b.create(OpKind::Splat, {in_range}, {mt}, {}, loc)->result();
  if (mask)
    m = b.create(OpKind::And, {mask, m}, {mt}, {}, loc)->result();
  b.create(OpKind::AsyncCopy, {c.buf, stage, through_chain(b, c, ptr), through_chain(b, c, m)}, {},
           {}, loc);
}

// tma_copy of the candidate's block in the iteration whose offsets are `offsets`, when
// `in_range` (scalar i1) says it exists.
void tma_copy(Builder &b, const Candidate &c, Value *stage, Value *in_range,
              const std::vector<Value *> &offsets) {
  std::vector<Value *> ops = {c.buf, stage, in_range, c.load->operand(3)};
  ops.insert(ops.end(), offsets.begin(), offsets.end());
  const TmaCopyPlan &p = *c.tma;
  b.create(OpKind::TmaCopy, ops, {},
           {{"box", std::vector<int64_t>{p.box0, p.box1}},
            {"swizzle", int64_t{p.swizzle_bytes}},
            {"panels", p.panels}},
           c.load->loc());
}

// The load's offsets (tma loads: operands 4...) shifted by `f`.
template <typename F> std::vector<Value *> shifted_offsets(const Candidate &c, F &&f) {
  std::vector<Value *> out;
  for (size_t i = 4; i < c.load->num_operands(); ++i)
    out.push_back(f(c.load->operand(i)));
  return out;
}

Value *i32(Builder &b, int64_t v, SourceLoc loc) {
  return b.constant_int(Type(DType::I32), v, loc);
}

Value *cmp(Builder &b, const char *pred, Value *x, Value *y, SourceLoc loc) {
  return b.create(OpKind::Cmp, {x, y}, {Type(DType::I1)}, {{"pred", std::string(pred)}}, loc)
      ->result();
}

Value *select(Builder &b, Value *c, Value *x, Value *y, SourceLoc loc) {
  return b.create(OpKind::Select, {c, x, y}, {x->type}, {}, loc)->result();
}

bool pipeline_loop(Op &loop, int64_t module_stages, const analysis::AxisInfoAnalysis &ax,
                   bool force, bool kernel_maps, std::map<Value *, TmaCopyPlan> &tma_boxes,
                   bool mbar) {
  Block *body = loop.region(0)->block();
  int64_t S = ring_stages(loop, module_stages);
  if (S == 0)
    return false;
  LoopShift sh(loop, true);
  std::vector<Candidate> cands;
  for (auto &op : body->ops())
    if (op->kind() == OpKind::Load)
      if (auto c = candidate(*op, *body, sh, ax, force, kernel_maps))
        cands.push_back(std::move(*c));
  if (cands.empty())
    return false;
  // one box per tensor map: a second plan for a map that has another is a cp.async ring
  for (Candidate &c : cands)
    if (c.tma) {
      auto [it, fresh] = tma_boxes.emplace(c.load->operand(3), *c.tma);
      const TmaCopyPlan &p = it->second;
      if (!fresh && (p.box0 != c.tma->box0 || p.box1 != c.tma->box1 ||
                     p.swizzle_bytes != c.tma->swizzle_bytes))
        c.tma.reset();
    }
  bool any_cp = false, any_tma = false;
  for (const Candidate &c : cands)
    (c.tma ? any_tma : any_cp) = true;
  // mbar: the cp.async copies of each stage signal a barrier of the stage, as TMA copies
  // do (for warp specialisation: WarpSpecialize.h), where only wgmma dots read the rings
  // (their wait and barrier, not the top's, keep a stage until it is read)
  for (const Candidate &c : cands)
    for (const RingConsumer &r : c.readers)
      mbar = mbar && is_wgmma_dot(*r.dot);
  bool cp_groups = any_cp && !mbar, cp_mbar = any_cp && mbar;

  SourceLoc loc = loop.loc();
  Value *ub = loop.operand(1), *iv = body->arg(0);
  // the rings and the prologue: iterations 0 .. S-2 into stages 0 .. S-2
  Builder pre;
  pre.set_insertion_point(&loop);
  for (Candidate &c : cands) {
    const Type &ot = c.dot->operand(static_cast<size_t>(c.operand))->type;
    Type bt = ring_buffer_type(ot.elem, S, ot.shape[0], ot.shape[1], c.stage_bases);
    std::vector<NamedAttr> attrs;
    if (c.tma || mbar) // S mbarriers follow the stages
      attrs.push_back({c.tma ? "tma" : "mbar", int64_t{1}});
    c.buf = pre.create(OpKind::LocalAlloc, {}, {bt}, std::move(attrs), c.load->loc())->result();
  }
  for (int s = 0; s + 1 < S; ++s) {
    Value *ok = cmp(pre, "lt", sh.from_start(iv, s, pre), ub, loc);
    Value *stage = i32(pre, s, loc);
    for (Candidate &c : cands) {
      if (c.tma) {
        tma_copy(pre, c, stage, ok,
                 shifted_offsets(c, [&](Value *v) { return sh.from_start(v, s, pre); }));
        continue;
      }
      Value *mask =
          c.load->num_operands() > 1 ? sh.from_start(c.load->operand(1), s, pre) : nullptr;
      copy(pre, c, stage, sh.from_start(c.load->operand(0), s, pre), mask, ok);
      if (mbar)
        pre.create(OpKind::AsyncArrive, {c.buf, stage, ok}, {}, {}, loc);
    }
    if (cp_groups)
      pre.create(OpKind::AsyncCommit, {}, {}, {}, loc);
  }
  Value *c0 = i32(pre, 0, loc);

  // the stage counter, carried; with TMA also the parity of the stages' barrier phases
  // (flipped each time the counter wraps)
  Value *cur = body->add_arg(Type(DType::I32));
  loop.add_operand(c0);
  loop.add_result(Type(DType::I32));
  Value *phase = nullptr;
  if (any_tma || cp_mbar) {
    phase = body->add_arg(Type(DType::I32));
    loop.add_operand(c0);
    loop.add_result(Type(DType::I32));
  }

  // iteration i + S-1 into stage (c + S-1) % S, right after the body's first ring dot: the
  // stage it overwrites was last read in iteration i-1, and that dot's lowering retires
  // every earlier reader (wgmma wait_group, then a barrier; ldmatrix readers passed the
  // barrier of the top's async_wait). Issued there, the copies overlap the rest of the
  // iteration (with S = 2, before the yield they would overlap nothing). The shifted
  // values are recomputed from the carried ones: body values after this point are not
  // yet defined.
  Op *first_dot = nullptr;
  for (auto &op : body->ops()) {
    for (Candidate &c : cands)
      for (const RingConsumer &r : c.readers)
        if (r.dot == op.get())
          first_dot = op.get();
    if (first_dot)
      break;
  }
  Op *yield = body->terminator();
  std::set<const Op *> before_dot; // defined where the copies go: used as they are
  for (auto &op : body->ops()) {
    if (op.get() == first_dot)
      break;
    before_dot.insert(op.get());
  }
  LoopShift mid(loop, false, std::move(before_dot), /*carry_caches=*/true);
  mid.starts_from(sh);
  Builder end;
  end.set_insertion_point(std::next(first_dot->self_iterator())->get());
  Value *ok = cmp(end, "lt", mid.ahead(iv, static_cast<int>(S - 1), end), ub, loc);
  Value *prev =
      select(end, cmp(end, "eq", cur, i32(end, 0, loc), loc), i32(end, S - 1, loc),
             end.create(OpKind::Sub, {cur, i32(end, 1, loc)}, {cur->type}, {}, loc)->result(), loc);
  for (Candidate &c : cands) {
    if (c.tma) {
      tma_copy(end, c, prev, ok, shifted_offsets(c, [&](Value *v) {
                 return mid.ahead(v, static_cast<int>(S - 1), end);
               }));
      continue;
    }
    Value *mask = c.load->num_operands() > 1
                      ? mid.ahead(c.load->operand(1), static_cast<int>(S - 1), end)
                      : nullptr;
    copy(end, c, prev, mid.ahead(c.load->operand(0), static_cast<int>(S - 1), end), mask, ok);
    if (mbar)
      end.create(OpKind::AsyncArrive, {c.buf, prev, ok}, {}, {}, loc);
  }
  if (cp_groups)
    end.create(OpKind::AsyncCommit, {}, {}, {}, loc);
  Value *next = end.create(OpKind::Add, {cur, i32(end, 1, loc)}, {cur->type}, {}, loc)->result();
  Value *wrap = cmp(end, "eq", next, i32(end, S, loc), loc);
  yield->add_operand(select(end, wrap, i32(end, 0, loc), next, loc));
  if (phase)
    yield->add_operand(
        select(end, wrap,
               end.create(OpKind::Xor, {phase, i32(end, 1, loc)}, {phase->type}, {}, loc)->result(),
               phase, loc));
  mid.close(); // the once-a-tile values it carried for the copies

  // the top: wait for iteration i's group; the dots read their stage
  Builder top;
  top.set_insertion_point(body->ops().front().get());
  if (cp_groups)
    top.create(OpKind::AsyncWait, {}, {}, {{"pending", S - 2}}, loc);
  for (Candidate &c : cands)
    if (c.tma || mbar)
      top.create(OpKind::TmaWait, {c.buf, cur, phase}, {}, {}, loc);
  for (Candidate &c : cands) {
    for (RingConsumer &r : c.readers) { // each reads the stage, the later ones maybe transposed
      Builder at;
      at.set_insertion_point(r.dot);
      const Type &ot = r.dot->operand(static_cast<size_t>(r.operand))->type;
      std::vector<NamedAttr> attrs;
      if (r.transposed != c.readers[0].transposed)
        attrs.push_back({"trans", int64_t{1}});
      Value *x = at.create(OpKind::LocalLoad, {c.buf, cur}, {ot}, std::move(attrs), c.load->loc())
                     ->result();
      r.dot->set_operand(static_cast<size_t>(r.operand), x);
      for (auto it = r.chain.rbegin(); it != r.chain.rend(); ++it) {
        (*it)->drop_operands();
        (*it)->erase();
      }
    }
    c.load->drop_operands();
    c.load->erase();
  }
  // every copy has landed before what follows the loop (shared memory is reused)
  Builder post;
  post.set_insertion_point(std::next(loop.self_iterator())->get()); // a terminator at least
  if (cp_mbar) // the last iterations' zero-filling copies of no iteration: wait_all
    post.create(OpKind::AsyncCommit, {}, {}, {}, loc);
  if (any_cp)
    post.create(OpKind::AsyncWait, {}, {}, {{"pending", int64_t{0}}}, loc);
  for (Candidate &c : cands) // every copy issued was waited for in the loop
    if (c.tma || mbar)
      post.create(OpKind::TmaRelease, {c.buf}, {}, {}, loc);
  return true;
}

} // namespace

namespace {

// After the rings: tma stores that can be become tma_store (TmaCopies.h), the tma loads and
// stores left are ordinary ones (their map and offsets dropped), a
// map no copy uses is no parameter, and each map a copy uses gets its box as the module
// attribute kTmaBoxAttrPrefix + name (RingOps.h; the launch encodes the map with it); the
// maps the kernel builds, their box and scratch slot (TmaCopies.h).
void finish_tma(Module &m, std::map<Value *, TmaCopyPlan> boxes, int64_t descriptors) {
  make_tma_stores(m, boxes);
  for (auto &f : m.functions) {
    ir::walk(f->entry(), [&](Op *op) {
      if ((op->kind() != OpKind::Load && op->kind() != OpKind::Store) || !op->int_attr("tma", 0))
        return;
      while (op->num_operands() > 3) // (ptr, mask, other) / (ptr, value, mask) stay
        op->erase_operand(3);
      op->erase_attr("tma");
    });
    Block &entry = *f->entry();
    for (size_t i = entry.num_args(); i-- > 0;) {
      Value *a = entry.arg(i);
      if (!is_tensor_map_arg(*f, i))
        continue;
      const std::string &name = f->arg_names[i];
      if (auto it = boxes.find(a); it != boxes.end() && !a->users.empty()) {
        const TmaCopyPlan &p = it->second;
        m.attrs.push_back({kTmaBoxAttrPrefix + name,
                           std::vector<int64_t>{p.box0, p.box1, int64_t{p.swizzle_bytes}}});
        continue;
      }
      TILEC_ASSERT(a->users.empty(), "a tensor map used by something other than a TMA copy");
      entry.erase_arg(i);
      f->arg_names.erase(f->arg_names.begin() + static_cast<std::ptrdiff_t>(i));
      for (NamedAttr &at : m.attrs) // the arguments' facts, one each (Sema)
        if (at.name == "tt.divisibility")
          if (auto *v = std::get_if<std::vector<int64_t>>(&at.value); v && i < v->size())
            v->erase(v->begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  place_kernel_maps(m, boxes, descriptors);
}

} // namespace

void pipeline_loops(Module &m) {
  if (env::get(env::Var::Ring) == "0") {
    finish_tma(m, {}, count_kernel_maps(m));
    transforms::dce(m); // a conversion a tma_store skipped
    return;
  }
  pipeline_loops(m, PipelineLoopsOptions{});
}

void pipeline_loops(Module &m, const PipelineLoopsOptions &opts) {
  int64_t stages = m.int_attr("num_stages", 3);
  int64_t descriptors = count_kernel_maps(m);
  bool kernel_maps = m.int_attr(kKernelMapsAttr, 0) != 0;
  // warp specialisation (WarpSpecialize.h) to come: its loops' cp.async rings use barriers,
  // with one consumer warpgroup (cp.async producers are as many warps as the consumers; at
  // 8 + 8 warps ptxas has 128 registers a thread at entry and does not honour setmaxnreg:
  // a 128 x 256 wgmma tile then fails to assemble, C7602)
  int64_t ws = m.int_attr("num_warps", 4) <= 4 ? m.int_attr("warp_specialize", 0) : 0;
  bool changed = false;
  std::map<Value *, TmaCopyPlan> tma_boxes;
  for (auto &f : m.functions) {
    analysis::AxisInfoAnalysis ax(*f, &m);
    ir::for_each_loop(*f->entry(), [&](Op &loop) {
      bool mbar = ws == 2 || (ws == 1 && loop.int_attr("warp_specialize", 0));
      changed =
          pipeline_loop(loop, stages, ax, opts.force, kernel_maps, tma_boxes, mbar) || changed;
    });
  }
  if (changed) { // the recomputed pointer math repeats the body's; the old may be dead
    transforms::cse(m);
    transforms::dce(m);
  }
  finish_tma(m, tma_boxes, descriptors);
  transforms::dce(m); // the offsets of the stripped loads
}

} // namespace tilec::layout
