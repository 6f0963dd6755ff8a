// The executor: walks a block's nodes, runs structured control flow, and reports faults.
#include <chrono>
#include <cinttypes>
#include <cstdio>

#include "interp/tile/DTypeTraits.h"
#include "interp/tile/Runtime.h"
#include "support/Interrupt.h"

namespace tilec::interp {

using ir::OpKind;

Exec::Exec(const Plan &plan, const SourceManager &sm_, const std::vector<BufferRange> &buffers,
           std::array<int64_t, 3> grid_)
    : grid(grid_), sm(sm_), plan_(plan), buffers_(buffers),
      arena_(new uint8_t[plan.arena_bytes + 64]()) {
  for (const Node *c : plan.constants)
    exec_constant(*this, *c);
}

void Exec::set_args(const std::vector<KernelArg> &args) {
  const BlockPlan &entry = plan_.entry;
  TILEC_ASSERT(args.size() == entry.args.size(), "argument count checked by the caller");
  for (size_t i = 0; i < args.size(); ++i) {
    int32_t s = entry.args[i];
    const KernelArg &a = args[i];
    dispatch_dtype(slot(s).key, [&](auto d) {
      using D = decltype(d);
      using S = typename D::S;
      S *p = ptr<S>(s);
      if (a.kind == KernelArg::Pointer) {
        *p = static_cast<S>(a.ptr);
      } else if constexpr (D::is_float) {
        double v = a.kind == KernelArg::Float ? a.f : static_cast<double>(a.i);
        if constexpr (is_small_float_v<D>)
          *p = D::st_d(v, FloatRound::Nearest);
        else
          *p = static_cast<S>(v);
      } else if constexpr (D::is_bool) {
        *p = a.i != 0;
      } else {
        *p = static_cast<S>(a.i);
      }
    });
  }
}

void Exec::run_program(std::array<int64_t, 3> p, std::string *o) {
  pid = p;
  out = o;
  returned = false;
  loop_steps = 0;
  debug_mode = DebugAction::Continue;
  debug_last = nullptr;
  exec_block(plan_.entry);
}

void Exec::exec_block(const BlockPlan &b) {
  for (const Node &n : b.nodes) {
    exec_node(n);
    if (returned)
      return;
  }
  if (b.returns)
    returned = true;
}

void Exec::exec_node(const Node &n) {
  switch (n.kind) {
  case OpKind::Constant:
    return; // filled when the executor was made
  case OpKind::Arange:
  case OpKind::Splat:
  case OpKind::Broadcast:
  case OpKind::ExpandDims:
  case OpKind::Reshape:
  case OpKind::Permute:
  case OpKind::Join:
  case OpKind::Split:
  case OpKind::Cat:
  case OpKind::Hint:
    return exec_shape(*this, n);
  case OpKind::Cast:
  case OpKind::Bitcast:
    return exec_cast(*this, n);
  case OpKind::AddPtr:
  case OpKind::Load:
  case OpKind::Store:
  case OpKind::AtomicRmw:
  case OpKind::AtomicCas:
    return exec_memory(*this, n);
  case OpKind::Reduce:
  case OpKind::Scan:
    return exec_reduce_scan(*this, n);
  case OpKind::Dot:
    return exec_dot(*this, n);
  case OpKind::Gather:
  case OpKind::Histogram:
    return exec_gather_histogram(*this, n);
  case OpKind::ProgramId:
    *ptr<int32_t>(n.out[0]) = static_cast<int32_t>(pid[n.a]);
    return;
  case OpKind::NumPrograms:
    *ptr<int32_t>(n.out[0]) = static_cast<int32_t>(grid[n.a]);
    return;
  case OpKind::Print:
    return exec_print(*this, n);
  case OpKind::Assert:
    return exec_assert(*this, n);
  case OpKind::Breakpoint:
    return exec_breakpoint(*this, n);
  case OpKind::Barrier:
    return;                // programs do not share memory the barrier would order
  case OpKind::HwRegister: // the CPU's nanosecond clock; every program runs on "SM" 0
    if (n.a)
      *ptr<int32_t>(n.out[0]) = 0;
    else
      *ptr<int64_t>(n.out[0]) = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::steady_clock::now().time_since_epoch())
                                    .count();
    return;
  case OpKind::GridDepControl:
    return; // launches run one after another: nothing to wait for or release
  case OpKind::InlineAsm:
    fail(n, "tl.inline_asm_elementwise runs PTX, which the CPU interpreter cannot execute; "
            "run this kernel on an NVIDIA GPU");
  case OpKind::ConvertLayout: // layouts place elements on threads; the values stay
    copy_slot(n.out[0], n.in[0]);
    return;
  case OpKind::LocalAlloc:
  case OpKind::AsyncCopy:
  case OpKind::AsyncCommit:
  case OpKind::AsyncWait:
  case OpKind::LocalLoad:
    return exec_ring(*this, n);
  case OpKind::AsyncArrive: // the copies landed at issue here
    return;
  case OpKind::MakeTmap: // the map's address: the interpreter's loads read through ptr / mask
    *ptr<uint64_t>(n.out[0]) = 0;
    return;
  case OpKind::TmaCopy:
  case OpKind::TmaStore:
  case OpKind::TmaWait:
  case OpKind::TmaRelease:
  case OpKind::TmaFree:
  case OpKind::WarpSpecialize:
    fail(n, "TMA copies read tensor maps, which only the GPU path (and its SIMT simulator) "
            "encodes");
  case OpKind::If:
    return exec_if(n);
  case OpKind::For:
    return exec_for(n);
  case OpKind::While:
    return exec_while(n);
  case OpKind::Yield:
  case OpKind::Condition:
  case OpKind::Return:
    throw_internal(__FILE__, __LINE__, "terminator executed as an op");
  default:
    return exec_arith(*this, n);
  }
}

void Exec::exec_if(const Node &n) {
  bool cond = *ptr<uint8_t>(n.in[0]) != 0;
  const BlockPlan &r = *n.regions[cond ? 0 : 1];
  exec_block(r);
  if (returned)
    return;
  for (size_t i = 0; i < n.out.size(); ++i)
    copy_slot(n.out[i], r.yields[i]);
}

namespace {
void write_int_scalar(Exec &ex, int32_t s, int64_t v) {
  dispatch_dtype(ex.slot(s).key, [&](auto d) {
    using D = decltype(d);
    if constexpr (D::is_float)
      throw_internal(__FILE__, __LINE__, "for: induction variable is not an integer");
    else
      *ex.ptr<typename D::S>(s) = static_cast<typename D::S>(v);
  });
}
} // namespace

int64_t read_int_scalar(Exec &ex, int32_t s) {
  return dispatch_dtype(ex.slot(s).key, [&](auto d) -> int64_t {
    using D = decltype(d);
    if constexpr (D::is_float)
      throw_internal(__FILE__, __LINE__, "expected an integer scalar");
    else
      return static_cast<int64_t>(*ex.ptr<typename D::S>(s));
  });
}

void Exec::exec_for(const Node &n) {
  int64_t lb = read_int_scalar(*this, n.in[0]);
  int64_t ub = read_int_scalar(*this, n.in[1]);
  int64_t step = read_int_scalar(*this, n.in[2]);
  if (step == 0)
    fail(n, "for loop step is zero: the loop would never end");
  const BlockPlan &body = *n.regions[0];
  size_t carried = n.out.size();
  for (size_t i = 0; i < carried; ++i)
    copy_slot(body.args[i + 1], n.in[i + 3]);
  for (int64_t iv = lb; step > 0 ? iv < ub : iv > ub;) {
    count_iteration(n, "for");
    write_int_scalar(*this, body.args[0], iv);
    exec_block(body);
    if (returned)
      return;
    // Yielded values may be other iteration arguments (a swap): stage those first.
    for (size_t i = 0; i < carried; ++i)
      if (n.stage[i])
        copy_slot(n.out[i], body.yields[i]);
    for (size_t i = 0; i < carried; ++i)
      if (!n.stage[i])
        copy_slot(body.args[i + 1], body.yields[i]);
    for (size_t i = 0; i < carried; ++i)
      if (n.stage[i])
        copy_slot(body.args[i + 1], n.out[i]);
    if (__builtin_add_overflow(iv, step, &iv))
      break;
  }
  for (size_t i = 0; i < carried; ++i)
    copy_slot(n.out[i], body.args[i + 1]);
}

void Exec::exec_while(const Node &n) {
  const BlockPlan &before = *n.regions[0], &after = *n.regions[1];
  for (size_t i = 0; i < n.in.size(); ++i)
    copy_slot(before.args[i], n.in[i]);
  for (;;) {
    exec_block(before);
    if (returned)
      return;
    bool cond = *ptr<uint8_t>(before.yields[0]) != 0;
    if (!cond) {
      for (size_t i = 0; i < n.out.size(); ++i)
        copy_slot(n.out[i], before.yields[i + 1]);
      return;
    }
    count_iteration(n, "while");
    for (size_t i = 0; i < after.args.size(); ++i)
      copy_slot(after.args[i], before.yields[i + 1]);
    exec_block(after);
    if (returned)
      return;
    // The after region cannot see the before region's arguments, so no staging.
    for (size_t i = 0; i < before.args.size(); ++i)
      copy_slot(before.args[i], after.yields[i]);
  }
}

void Exec::count_iteration(const Node &n, const char *loop) {
  if (interrupted())
    fail(n, "interrupted (KeyboardInterrupt)");
  if (loop_steps++ == max_loop_steps)
    fail(n, std::string(loop) + " loop still running after " + std::to_string(max_loop_steps) +
                " iterations (of all the loops of this program): it looks endless (raise "
                "TILEC_INTERP_MAX_STEPS if the kernel is meant to run longer; 0 disables the "
                "limit)");
}

std::string format_index(const std::vector<int64_t> &shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string s = "(";
  for (size_t d = 0; d < idx.size(); ++d)
    s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + (idx.size() == 1 ? ",)" : ")");
}

std::string Exec::element_suffix(int32_t s, int64_t flat) const {
  const ir::Type *t = slot(s).type;
  if (!t || !t->is_tile())
    return "";
  return " at element index " + format_index(t->shape, flat) + " of the tile";
}

void Exec::fail(const Node &n, const std::string &msg) const {
  std::string m = msg + " in program (" + std::to_string(pid[0]) + ", " + std::to_string(pid[1]) +
                  ", " + std::to_string(pid[2]) + ")";
  throw RuntimeError(render_diagnostic(sm, n.op->loc(), "error", m));
}

void Exec::race_atomic(const Node &n) {
  std::string sem = n.op->str_attr("sem", "acq_rel");
  uint32_t me = static_cast<uint32_t>(pid[0] + grid[0] * (pid[1] + grid[1] * pid[2]));
  race->atomic(me, sem == "acquire" || sem == "acq_rel", sem == "release" || sem == "acq_rel");
}

void Exec::race_access(const Node &n, const BufferRange &b, uint64_t addr, uint32_t bytes,
                       bool write, int32_t lane_slot, int64_t flat) {
  uint32_t me = static_cast<uint32_t>(pid[0] + grid[0] * (pid[1] + grid[1] * pid[2]));
  RaceShadow::Conflict c = race->access(addr, bytes, write, me, n);
  if (!c.found)
    return;
  int64_t other = c.program;
  std::string who = "(" + std::to_string(other % grid[0]) + ", " +
                    std::to_string(other / grid[0] % grid[1]) + ", " +
                    std::to_string(other / (grid[0] * grid[1])) + ")";
  SourceLoc at = c.op->op->loc();
  std::string where = at.valid() ? sm.file(at.file).path + ":" + std::to_string(at.line) : "?";
  fail(n, "data race (TILEC_SANITIZE=race): program " + who + " " +
              (c.other_wrote ? "stored" : "loaded") + " the same byte at " + where +
              " with no atomic operation ordering the two programs (on a GPU the result "
              "depends on which runs first); this " +
              (write ? "store writes" : "load reads") + " argument '" + *b.name +
              "' at byte offset " + std::to_string(addr - b.base) +
              element_suffix(lane_slot, flat));
}

const BufferRange *Exec::find_buffer(uint64_t addr, uint64_t bytes) const {
  for (const BufferRange &b : buffers_)
    if (b.contains(addr, bytes))
      return &b;
  return nullptr;
}

const BufferRange &Exec::check_access(const Node &n, uint64_t addr, uint64_t bytes,
                                      int32_t lane_slot, int64_t flat, const char *what) const {
  std::string where = element_suffix(lane_slot, flat);
  if (addr == 0)
    fail(n, std::string(what) + " a null pointer" + where);
  if (const BufferRange *b = find_buffer(addr, bytes)) {
    if (addr % bytes != 0)
      fail(n, std::string("misaligned ") + what + " argument '" + *b->name + "' at byte offset " +
                  std::to_string(addr - b->base) + ": a " + std::to_string(bytes) +
                  "-byte element needs an address that is a multiple of " + std::to_string(bytes) +
                  where);
    return *b;
  }
  // Name the buffer the address is nearest to: the pointer most likely ran off its end.
  const BufferRange *best = nullptr;
  uint64_t best_dist = UINT64_MAX;
  for (const BufferRange &b : buffers_) {
    uint64_t dist = addr < b.base ? b.base - addr : addr - b.base - std::min(addr - b.base, b.size);
    if (dist < best_dist) {
      best_dist = dist;
      best = &b;
    }
  }
  if (!best) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, addr);
    fail(n, std::string("out-of-bounds ") + what + " address " + buf +
                " (the kernel was given no buffers)" + where);
  }
  auto off = static_cast<int64_t>(addr - best->base);
  fail(n, std::string("out-of-bounds ") + what + " argument '" + *best->name + "' at byte offset " +
              std::to_string(off) + " (buffer is " + std::to_string(best->size) + " bytes)" +
              where);
}

void Exec::fail_read_only(const Node &n, const BufferRange &b, const char *what, int32_t slot,
                          int64_t flat) const {
  fail(n, std::string(what) + " argument '" + *b.name +
              "', which is read-only (a numpy array with writeable=False): the kernel may only "
              "load from it" +
              element_suffix(slot, flat));
}

uint8_t *Exec::scratch(int k, size_t bytes) {
  auto &v = scratch_[static_cast<size_t>(k)];
  if (v.size() < bytes)
    v.resize(bytes);
  return v.data();
}

} // namespace tilec::interp
