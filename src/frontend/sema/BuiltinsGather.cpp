// Data-dependent indexing within a tile: tl.gather and tl.histogram (and their method
// forms). Each is one Tile IR op (Ops.def: gather, histogram) rather than a composition,
// because the GPU lowers them through shared memory (stage the source or the bins, then
// indexed ld.shared / atom.shared.add), not through an O(N*M) compare-and-select.
#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

bool is_int_elem(const Type &t) { return !t.is_ptr() && ir::is_int(t.elem); }

Val gather(Emitter &e, const Args &a) {
  Value *src = a.tensor("src"), *index = a.tensor("index");
  int rank = src->type.rank();
  if (rank == 0)
    a.fail("gather(): src must be a tensor, got " + describe(a["src"]));
  if (!is_int_elem(index->type))
    a.fail("gather(): index must be an integer tensor, got " + tensor_str(index->type));
  if (index->type.rank() != rank)
    a.fail("gather(): source and index tensors must have the same rank, got " +
           tensor_str(src->type) + " and " + tensor_str(index->type));
  int axis = wrap_axis(a, a.const_int("axis"), rank);
  for (int d = 0; d < rank; ++d)
    if (d != axis &&
        index->type.shape[static_cast<size_t>(d)] != src->type.shape[static_cast<size_t>(d)])
      a.fail("gather(): index dim " + std::to_string(d) +
             " must match the corresponding source dim (gathering along axis " +
             std::to_string(axis) + "), got " + tensor_str(src->type) + " and " +
             tensor_str(index->type));
  Type r = src->type.with_shape(index->type.shape);
  return Val::of(emit(e, OpKind::Gather, {src, index}, r, a.loc(), {{"axis", int64_t{axis}}}));
}

Val histogram(Emitter &e, const Args &a) {
  Value *x = a.tensor("input");
  if (x->type.rank() != 1)
    a.fail("histogram(): only 1-D input is supported, got " + tensor_str(x->type));
  if (!is_int_elem(x->type))
    a.fail("histogram(): only integer input is supported, got " + tensor_str(x->type));
  int64_t bins = a.const_int("num_bins");
  if (bins < 1)
    a.fail("histogram(): num_bins must be positive, got " + std::to_string(bins));
  check_block_shape(a, {bins});
  std::vector<Value *> operands = {x};
  if (Value *m = a.tensor_or_null("mask")) {
    if (m->type.is_ptr() || m->type.elem != DType::I1)
      a.fail("histogram(): mask must have boolean scalar type, got " + tensor_str(m->type));
    operands.push_back(broadcast_to(e, m, x->type.shape, a.loc()));
  }
  Type r = Type(DType::I32).with_shape({bins});
  return Val::of(emit(e, OpKind::Histogram, operands, r, a.loc()));
}

} // namespace

void add_gather_builtins(std::vector<Def> &t) {
  t.insert(t.end(), {
                        {"gather", "src, index, axis", gather, kTl | kMethod},
                        {"histogram", "input, num_bins, mask=None", histogram, kTl | kMethod},
                    });
}

} // namespace tilec::sema::builtins
