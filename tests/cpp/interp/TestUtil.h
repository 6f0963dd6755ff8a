// Builds small Tile IR kernels by hand for the interpreter tests.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "support/FloatFormats.h"
#include "interp/tile/Interpreter.h"
#include "ir/IR.h"

namespace tilec::interp::test {

namespace ir = tilec::ir;
using ir::DType;
using ir::NamedAttr;
using ir::OpKind;
using ir::Type;
using ir::Value;

inline Type scalar(DType d) { return Type(d); }
inline Type ptr(DType d) { return Type(d, true); }
inline Type tile(DType d, ir::Shape s) { return Type(d, false, std::move(s)); }
inline Type ptr_tile(DType d, ir::Shape s) { return Type(d, true, std::move(s)); }

// A kernel under construction. Ops get the source line `line` (set it before building an
// op whose errors a test checks); the fake source file has lines "line <n> of the kernel".
class KB {
public:
  ir::Function fn;
  ir::Builder b;
  SourceManager sm;
  int line = 1;

  KB() : b(fn.entry()) {
    std::string text;
    for (int i = 1; i <= 200; ++i)
      text += "    line " + std::to_string(i) + " of the kernel\n";
    file_ = sm.add("kernel.py", text);
    fn.name = "test_kernel";
    fn.loc = loc(1);
  }
  SourceLoc loc(int l) const { return SourceLoc{file_, l, 5}; }

  Value *arg(Type t, const std::string &name) {
    fn.arg_names.push_back(name);
    return fn.entry()->add_arg(t);
  }
  ir::Op *make(OpKind k, std::vector<Value *> in, std::vector<Type> results,
               std::vector<NamedAttr> attrs = {}, unsigned regions = 0) {
    return b.create(k, in, results, std::move(attrs), loc(line), regions);
  }
  Value *op(OpKind k, std::vector<Value *> in, Type rt, std::vector<NamedAttr> attrs = {}) {
    return make(k, std::move(in), {rt}, std::move(attrs))->result();
  }
  Value *cst(Type t, int64_t v) { return op(OpKind::Constant, {}, t, {{"value", v}}); }
  Value *cstf(Type t, double v) { return op(OpKind::Constant, {}, t, {{"value", v}}); }
  Value *arange(int64_t n, int64_t start = 0) {
    return op(OpKind::Arange, {}, tile(DType::I32, {n}), {{"start", start}, {"end", start + n}});
  }
  Value *splat(Value *v, ir::Shape s) { return op(OpKind::Splat, {v}, v->type.with_shape(s)); }
  Value *bin(OpKind k, Value *a, Value *c, std::vector<NamedAttr> attrs = {}) {
    return op(k, {a, c}, a->type, std::move(attrs));
  }
  Value *un(OpKind k, Value *a) { return op(k, {a}, a->type); }
  Value *cmp(const std::string &pred, Value *a, Value *c) {
    return op(OpKind::Cmp, {a, c}, a->type.with_elem(DType::I1), {{"pred", pred}});
  }
  Value *cast(Value *v, DType to, const std::string &rounding = "") {
    std::vector<NamedAttr> attrs;
    if (!rounding.empty())
      attrs.push_back({"rounding", rounding});
    return op(OpKind::Cast, {v}, v->type.with_elem(to), attrs);
  }
  Value *pid(int axis) {
    return op(OpKind::ProgramId, {}, scalar(DType::I32), {{"axis", int64_t(axis)}});
  }
  Value *nprog(int axis) {
    return op(OpKind::NumPrograms, {}, scalar(DType::I32), {{"axis", int64_t(axis)}});
  }
  // ptr (scalar or tile) + offsets (tile): splats a scalar pointer first.
  Value *addptr(Value *p, Value *off) {
    if (p->type.is_scalar() && off->type.is_tile())
      p = splat(p, off->type.shape);
    return op(OpKind::AddPtr, {p, off}, p->type);
  }
  Value *load(Value *p, Value *mask = nullptr, Value *other = nullptr) {
    std::vector<Value *> in{p};
    if (mask)
      in.push_back(mask);
    if (other)
      in.push_back(other);
    return op(OpKind::Load, in, Type(p->type.elem, false, p->type.shape));
  }
  void store(Value *p, Value *v, Value *mask = nullptr) {
    std::vector<Value *> in{p, v};
    if (mask)
      in.push_back(mask);
    make(OpKind::Store, in, {});
  }
  void ret() { make(OpKind::Return, {}, {}); }

  // A reduce or scan whose combiner is `yield kind(acc, x)` (acc first).
  std::vector<Value *>
  reduce_like(OpKind k, std::vector<Value *> xs, int64_t axis, std::vector<Type> results,
              std::vector<NamedAttr> attrs,
              const std::function<std::vector<Value *>(KB &, std::vector<Value *>)> &body) {
    attrs.push_back({"axis", axis});
    ir::Op *o = make(k, xs, results, attrs, 1);
    ir::Block *blk = o->region(0)->block();
    std::vector<Value *> args;
    for (int rep = 0; rep < 2; ++rep)
      for (Value *x : xs)
        args.push_back(blk->add_arg(x->type.element()));
    ir::Builder saved = b;
    b.set_insertion_point_to_end(blk);
    std::vector<Value *> ys = body(*this, args);
    make(OpKind::Yield, ys, {});
    b = saved;
    std::vector<Value *> out;
    for (size_t i = 0; i < o->num_results(); ++i)
      out.push_back(o->result(i));
    return out;
  }

  using BodyFn = std::function<std::vector<Value *>(KB &, std::vector<Value *>)>;

  // Builds `body` into the block of region `r` of `o` with block arguments of `types`.
  std::vector<Value *> in_region(ir::Op *o, unsigned r, const std::vector<Type> &types,
                                 const BodyFn &body, OpKind term = OpKind::Yield) {
    ir::Block *blk = o->region(r)->block();
    std::vector<Value *> args;
    for (const Type &t : types)
      args.push_back(blk->add_arg(t));
    ir::Builder saved = b;
    b.set_insertion_point_to_end(blk);
    std::vector<Value *> ys = body(*this, args);
    make(term, ys, {});
    b = saved;
    return args;
  }
  static std::vector<Value *> results(ir::Op *o) {
    std::vector<Value *> out;
    for (size_t i = 0; i < o->num_results(); ++i)
      out.push_back(o->result(i));
    return out;
  }
  // for iv in range(lb, ub, step) with loop-carried `inits`; body gets (iv, iters...).
  std::vector<Value *> for_loop(Value *lb, Value *ub, Value *step, std::vector<Value *> inits,
                                const BodyFn &body) {
    std::vector<Value *> in{lb, ub, step};
    std::vector<Type> rts, bts{lb->type};
    for (Value *v : inits) {
      in.push_back(v);
      rts.push_back(v->type);
      bts.push_back(v->type);
    }
    ir::Op *o = make(OpKind::For, in, rts, {}, 1);
    in_region(o, 0, bts, body);
    return results(o);
  }
  std::vector<Value *> if_op(Value *cond, std::vector<Type> rts, const BodyFn &then_fn,
                             const BodyFn &else_fn) {
    ir::Op *o = make(OpKind::If, {cond}, rts, {}, 2);
    in_region(o, 0, {}, then_fn);
    in_region(o, 1, {}, else_fn);
    return results(o);
  }

  RunResult run(const std::vector<KernelArg> &args, const std::vector<Buffer> &bufs,
                std::array<int64_t, 3> grid = {1, 1, 1}, int threads = 0) {
    if (!fn.entry()->terminator())
      ret();
    LaunchOptions o;
    o.grid = grid;
    o.num_threads = threads;
    return interp::run(fn, args, bufs, o, sm);
  }

private:
  int file_ = 0;
};

template <class T> Buffer buf(std::vector<T> &v, const std::string &name) {
  return Buffer{reinterpret_cast<uint64_t>(v.data()), v.size() * sizeof(T), name};
}
template <class T> KernelArg parg(std::vector<T> &v) { return KernelArg::pointer(v.data()); }

// out[i] = op(a[i], b[i]) over N = a.size() elements (a power of two), in one program.
// TS: storage type of the inputs, TR: of the result.
template <class TR, class TS>
std::vector<TR> run_binary(OpKind k, DType in, DType out, std::vector<TS> a, std::vector<TS> bv,
                           std::vector<NamedAttr> attrs = {}) {
  KB kb;
  auto n = static_cast<int64_t>(a.size());
  Value *pa = kb.arg(ptr(in), "a"), *pb = kb.arg(ptr(in), "b"), *pr = kb.arg(ptr(out), "out");
  Value *offs = kb.arange(n);
  Value *x = kb.load(kb.addptr(pa, offs)), *y = kb.load(kb.addptr(pb, offs));
  Value *r = k == OpKind::Cmp ? kb.op(k, {x, y}, tile(DType::I1, {n}), attrs)
                              : kb.op(k, {x, y}, tile(out, {n}), attrs);
  kb.store(kb.addptr(pr, offs), r);
  std::vector<TR> res(a.size());
  kb.run({parg(a), parg(bv), parg(res)}, {buf(a, "a"), buf(bv, "b"), buf(res, "out")});
  return res;
}

// out[i] = op(a[i]) (unary op or cast to `out`).
template <class TR, class TS>
std::vector<TR> run_unary(OpKind k, DType in, DType out, std::vector<TS> a,
                          std::vector<NamedAttr> attrs = {}) {
  KB kb;
  auto n = static_cast<int64_t>(a.size());
  Value *pa = kb.arg(ptr(in), "a"), *pr = kb.arg(ptr(out), "out");
  Value *offs = kb.arange(n);
  Value *x = kb.load(kb.addptr(pa, offs));
  Value *r = kb.op(k, {x}, tile(out, {n}), attrs);
  kb.store(kb.addptr(pr, offs), r);
  std::vector<TR> res(a.size());
  kb.run({parg(a), parg(res)}, {buf(a, "a"), buf(res, "out")});
  return res;
}

inline float f16(uint16_t b) { return fp16_to_float(b); }
inline uint16_t h(double v) { return fp16_from_double(v); }
inline uint16_t bf(double v) { return bf16_from_double(v); }

} // namespace tilec::interp::test
