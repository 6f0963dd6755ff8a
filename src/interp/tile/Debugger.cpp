// The kernel debugger's stops (`breakpoint` ops, SemaDebug.cpp): whether the op stops,
// given the action the debugger last answered, and the hand-over of its values.
#include "interp/tile/Runtime.h"

namespace tilec::interp {

namespace {

bool wants_stop(const Exec &ex, const Node &n) {
  int64_t depth = n.b;
  if (n.a == 1) {
    // breakpoint() right after its own statement's stop would show the same line twice
    const Node *last = ex.debug_last;
    return !(last && last->a == 0 && last->op->loc().file == n.op->loc().file &&
             last->op->loc().line == n.op->loc().line && last->b == depth);
  }
  switch (ex.debug_mode) {
  case DebugAction::Step:
    return true;
  case DebugAction::Next:
    return depth <= ex.debug_depth;
  case DebugAction::Return:
    return depth < ex.debug_depth;
  default:
    return false;
  }
}

} // namespace

void exec_breakpoint(Exec &ex, const Node &n) {
  if (!ex.debug)
    return;
  if (!wants_stop(ex, n)) {
    ex.debug_last = nullptr;
    return;
  }
  DebugStop stop;
  stop.pid = ex.pid;
  stop.grid = ex.grid;
  stop.breakpoint = n.a == 1;
  stop.frames = n.op->str_attr("frames", "");
  for (int32_t s : n.in) {
    const SlotInfo &info = ex.slot(s);
    DebugValue v;
    v.dtype = info.type->elem;
    v.pointer = info.type->is_ptr();
    v.shape = info.type->shape;
    v.data = ex.ptr<uint8_t>(s);
    v.bytes = info.bytes();
    stop.values.push_back(std::move(v));
  }
  DebugAction action = (*ex.debug)(stop);
  if (action == DebugAction::Quit)
    throw RuntimeError("the kernel debugger quit (pdb's quit)");
  ex.debug_mode = action;
  ex.debug_depth = n.b;
  ex.debug_last = &n;
}

} // namespace tilec::interp
