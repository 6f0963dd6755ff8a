// The kernel debugger's stop points: breakpoint() / pdb.set_trace() in a kernel.
//
// A kernel that calls breakpoint() is lowered twice (lower_kernel): the first pass only
// notices the call; the second puts a `breakpoint` op before every statement (kind 0) and
// at the call (kind 1). Each op holds, as operands, the tensors bound to the variables of
// every frame of inlined calls, and names them and the constexpr variables in its
// `frames` attribute (Ops.def). The interpreter stops at them and hands the values to pdb
// (tilec/_debugger.py); the GPU path refuses breakpoint() (GpuPipeline.cpp).
#include "frontend/sema/SemaImpl.h"

namespace tilec::sema::detail {

namespace {

// Appends one variable (a tuple: each leaf, named by its path "t.0.1") to the frame's
// operands and text. Values the debugger cannot show (functions, modules, block
// pointers, ...) are left out.
void describe(const std::string &name, const Val &v, std::vector<ir::Value *> &operands,
              std::string &names, std::string &consts) {
  switch (v.kind) {
  case Val::Kind::Tensor:
    if (!v.tensor)
      return;
    operands.push_back(v.tensor);
    names += (names.empty() ? "" : ",") + name;
    return;
  case Val::Kind::None:
  case Val::Kind::Bool:
  case Val::Kind::Int:
  case Val::Kind::Float:
  case Val::Kind::Str:
  case Val::Kind::DType:
    consts += "\t" + name + "=" + py_repr(v);
    return;
  case Val::Kind::Tuple:
    for (size_t i = 0; i < v.elems.size(); ++i)
      describe(name + "." + std::to_string(i), v.elems[i], operands, names, consts);
    return;
  default:
    return;
  }
}

} // namespace

void Lowerer::breakpoint(SourceLoc loc) {
  saw_breakpoint_ = true;
  emit_stop(loc, 1);
}

void Lowerer::emit_stop(SourceLoc loc, int64_t kind) {
  if (!debug_stops_ || no_stops_ > 0)
    return;
  std::vector<ir::Value *> operands;
  std::string frames;
  for (size_t i = 0; i < frames_.size(); ++i) {
    const Frame &f = *frames_[i];
    SourceLoc at = i + 1 == frames_.size() ? loc : f.stmt_loc;
    std::string names, consts;
    for (const auto &[name, v] : f.scope)
      describe(name, v, operands, names, consts);
    frames += f.fn->def->name + "\t" + f.fn->src->file + "\t" + std::to_string(at.line) + "\t" +
              names + consts + "\n";
  }
  b_.create(ir::OpKind::Breakpoint, operands, {}, {{"kind", kind}, {"frames", frames}}, loc);
}

} // namespace tilec::sema::detail
