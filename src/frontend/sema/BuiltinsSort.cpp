// Sorting networks (tl.sort, tl.topk, tl.bitonic_merge), composed as Triton's standard.py
// does: the tile is viewed as a hypercube [2, 2, ..., 2], and each compare-and-swap
// exchanges the two halves of one cube axis (the partner's bits are x ^ xor_sum over that
// axis) and keeps the smaller or larger by a select. Only reshapes, a size-2 xor
// reduction, compares and selects are emitted, so every back end runs the same network:
// log2(n) * (log2(n) + 1) / 2 steps of one exchange each, as Triton's. Equal keys, NaNs and
// signed zeros come out as Triton's network leaves them (a NaN or a zero of the other sign
// may be duplicated over its partner: the compare is the plain `>`).
#include "frontend/sema/BuiltinsImpl.h"
#include "frontend/sema/Operators.h"
#include "frontend/sema/Promotion.h"

namespace tilec::sema::builtins {

using ir::DType;
using ir::OpKind;
using ir::Type;
using ir::Value;

namespace {

int log2_of(int64_t n) {
  int l = 0;
  while ((int64_t(1) << l) < n)
    ++l;
  return l;
}

struct Network {
  Emitter &e;
  SourceLoc loc;
  // Each element's index along the sorted dim, in the cube's shape: bit j says whether it
  // sits in the right half of the j-th innermost cube axis (standard.py's _indicator,
  // computed here per element in the cube's own layout, so no small tile has to be
  // broadcast across layouts). top-k's reductions drop cube axes: bits from `kept` up are
  // then read `dropped` places higher.
  Value *col = nullptr;
  int kept = 0, dropped = 0;

  void index_cube(const ir::Shape &shape, const ir::Shape &cube) {
    int64_t n = shape.back();
    Value *ar = emit(e, OpKind::Arange, {}, Type(DType::I32, false, {n}), loc,
                     {{"start", int64_t(0)}, {"end", n}});
    for (size_t d = 1; d < shape.size(); ++d)
      ar = expand_dims(e, ar, 0, loc);
    col = reshape(e, broadcast_to(e, ar, shape, loc), cube, loc);
  }

  // Drops cube axis `axis` of `col` (keeping the left halves' indices) as top-k drops it.
  void drop_axis(int axis) {
    col = call(e, "min", {Val::of(col), Val::integer(axis)}, loc).tensor;
    ++dropped;
  }

  Value *indicator(int j) const {
    int bit = j < kept ? j : j + dropped;
    Value *m = make_int(e, col->type, int64_t(1) << bit, loc);
    Value *b = emit(e, OpKind::And, {col, m}, col->type, loc);
    return truth(e, b, loc);
  }

  // The element across cube axis `axis`: x ^ (x ^ partner), on the bits of x.
  Value *partner(Value *h, int axis) const {
    DType d = h->type.elem;
    Value *ix = h;
    if (ir::is_float(d)) {
      int b = ir::bits(d);
      ix = bitcast_elem(e, h,
                        Type(b == 8    ? DType::I8
                             : b == 16 ? DType::I16
                             : b == 32 ? DType::I32
                                       : DType::I64),
                        loc);
    }
    Value *s = call(e, "xor_sum", {Val::of(ix), Val::integer(axis)}, loc,
                    {{"keep_dims", Val::boolean(true)}})
                   .tensor;
    Value *iy = emit(e, OpKind::Xor, {ix, broadcast_to(e, s, ix->type.shape, loc)}, ix->type, loc);
    return ix == h ? iy : bitcast_elem(e, iy, h->type.element(), loc);
  }

  // One exchange along the i-th innermost cube axis. `flip` (i1, broadcastable; nullptr
  // for none) reverses the order where it is set.
  Value *compare_and_swap(Value *h, Value *flip, int i) const {
    Value *y = partner(h, h->type.rank() - 1 - i);
    Value *want_larger = indicator(i);
    if (flip)
      want_larger =
          emit(e, OpKind::Xor, {broadcast_to(e, flip, want_larger->type.shape, loc), want_larger},
               want_larger->type, loc);
    Value *gt = compare_op(e, ast::CmpOp::Gt, Val::of(h), Val::of(y), loc).tensor;
    Value *take = emit(e, OpKind::Xor, {gt, want_larger}, gt->type, loc);
    return emit(e, OpKind::Select, {take, y, h}, h->type, loc);
  }

  // Bitonic merge of the blocks of the `stage` innermost cube axes: ascending, descending,
  // or alternating with the next axis (the order of a sort's inner stages).
  enum Order { kAscending, kDescending, kAlternating };
  Value *merge(Value *h, int stage, Order order) const {
    Value *flip = nullptr;
    if (order == kAlternating)
      flip = indicator(stage);
    else if (order == kDescending)
      flip = make_int(e, Type(DType::I1), 1, loc);
    for (int i = 0; i < stage; ++i)
      h = compare_and_swap(h, flip, stage - 1 - i);
    return h;
  }
};

// The tile viewed as [2, 2, ..., 2] ([1] for a single element).
ir::Shape cube_of(Value *x) {
  int n_dims = log2_of(x->type.numel());
  return n_dims ? ir::Shape(static_cast<size_t>(n_dims), 2) : ir::Shape{1};
}

// The sorted dim (standard.py: only the last; tilec also takes its negative name).
// Returns the tensor ready for the network: bools as uint8, whose `>` orders them.
Value *sort_input(Emitter &e, const Args &a, int64_t *n) {
  Value *x = a.tensor("x");
  if (x->type.is_ptr())
    a.fail(a.fn() + "(): cannot sort a tensor of pointers");
  int rank = x->type.rank();
  if (rank == 0)
    a.fail(a.fn() + "(): expects a tensor, got a scalar of type " + elem_name(x->type));
  std::optional<int64_t> d = a.const_int_or_none("dim");
  int dim = wrap_axis(a, d.value_or(rank - 1), rank);
  if (dim != rank - 1)
    a.fail(a.fn() + "(): only the last dimension can be sorted (dim=" + std::to_string(*d) +
           " of a tensor of shape " + shape_str(x->type.shape) + ")");
  *n = x->type.shape.back();
  if (!ir::is_power_of_two(*n) || !ir::is_power_of_two(x->type.numel()))
    a.fail(a.fn() + "(): the size of the sorted dimension must be a power of two, got shape " +
           shape_str(x->type.shape));
  if (x->type.elem == DType::I1)
    x = cast_dtype(e, x, DType::U8, a.loc());
  return x;
}

// standard.py's sort_impl: the first log2(k) bitonic stages sort blocks of k; each further
// stage keeps the elementwise max (min) of two neighbouring blocks, sorted opposite ways,
// which holds the top k of both as a bitonic sequence, and merges it. As there, the
// max/min is tl.max/tl.min's, so narrow ints and fp16/bf16 come out widened when k < n.
Val sort_impl(Emitter &e, const Args &a, std::optional<int64_t> k, bool descending) {
  SourceLoc loc = a.loc();
  int64_t n = 0;
  Value *x = sort_input(e, a, &n);
  DType orig = a.tensor("x")->type.elem;
  int log_n = log2_of(n);
  int log_k = log_n;
  if (k) {
    if (*k < 1 || *k > n || !ir::is_power_of_two(*k))
      a.fail(a.fn() +
             "(): k must be a power of two between 1 and the size of the last "
             "dimension (" +
             std::to_string(n) + "), got " + std::to_string(*k));
    log_k = log2_of(*k);
  }
  ir::Shape shape = x->type.shape;
  Value *h = reshape(e, x, cube_of(x), loc);
  Network net{e, loc};
  net.index_cube(shape, h->type.shape);
  net.kept = log_k;
  auto order = [&](int i) {
    return i < log_n    ? Network::kAlternating
           : descending ? Network::kDescending
                        : Network::kAscending;
  };
  for (int i = 1; i <= log_k; ++i)
    h = net.merge(h, i, order(i));
  for (int i = log_k + 1; i <= log_n; ++i) {
    int axis = h->type.rank() - 1 - log_k;
    h = call(e, descending ? "max" : "min", {Val::of(h), Val::integer(axis)}, loc).tensor;
    net.drop_axis(axis);
    h = net.merge(h, log_k, order(i));
  }
  shape.back() = int64_t(1) << log_k;
  h = reshape(e, h, shape, loc);
  if (orig == DType::I1 && h->type.elem == DType::U8)
    h = cast_dtype(e, h, DType::I1, loc);
  return Val::of(h);
}

Val sort(Emitter &e, const Args &a) {
  return sort_impl(e, a, std::nullopt, a.const_bool("descending"));
}

Val topk(Emitter &e, const Args &a) { return sort_impl(e, a, a.const_int("k"), true); }

// Merges bitonic rows (the whole last dimension) into sorted ones.
Val bitonic_merge(Emitter &e, const Args &a) {
  SourceLoc loc = a.loc();
  int64_t n = 0;
  Value *x = sort_input(e, a, &n);
  DType orig = a.tensor("x")->type.elem;
  ir::Shape shape = x->type.shape;
  Value *h = reshape(e, x, cube_of(x), loc);
  Network net{e, loc};
  net.index_cube(shape, h->type.shape);
  h = net.merge(h, log2_of(n),
                a.const_bool("descending") ? Network::kDescending : Network::kAscending);
  h = reshape(e, h, shape, loc);
  if (orig == DType::I1)
    h = cast_dtype(e, h, DType::I1, loc);
  return Val::of(h);
}

} // namespace

void add_sort_builtins(std::vector<Def> &t) {
  t.insert(t.end(), {
                        {"sort", "x, dim=None, descending=0", sort, kTl | kMethod},
                        {"topk", "x, k, dim=None", topk, kTl},
                        {"bitonic_merge", "x, dim=None, descending=0", bitonic_merge, kTl},
                    });
}

} // namespace tilec::sema::builtins
