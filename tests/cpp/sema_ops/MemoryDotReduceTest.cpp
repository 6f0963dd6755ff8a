// load/store/atomics, dot, and reductions/scans (built-in and with @jit combiners).
#include "TestEmitter.h"

namespace tilec::sema::test {
namespace {

using ir::OpKind;

Val I(int64_t v) { return Val::integer(v); }
Val F(double v) { return Val::floating(v); }
Val B(bool v) { return Val::boolean(v); }
Val S(const std::string &s) { return Val::string(s); }
Val D(ir::DType d) { return Val::dtype(ir::Type(d)); }

TEST(Memory, Load) {
  TestEmitter e;
  Val ptrs = e.arg("tile<128xptr<fp32>>");
  Val mask = e.arg("tile<128xi1>");
  Val x = e.call("load", {ptrs}, {{"mask", mask}});
  EXPECT_EQ(type_of(x), "tile<128xfp32>");
  ir::Op *ld = x.tensor->def;
  EXPECT_EQ(ld->kind(), OpKind::Load);
  EXPECT_EQ(ld->num_operands(), 2u);
  Val y = e.call("load", {ptrs, mask, F(0.0)});
  EXPECT_EQ(y.tensor->def->num_operands(), 3u);
  EXPECT_EQ(y.tensor->def->operand(2)->type.str(), "tile<128xfp32>");
  // other is cast to the element type; a scalar mask is splatted.
  Val h = e.call("load", {e.arg("tile<16xptr<fp16>>"), e.arg("i1"), I(0)});
  EXPECT_EQ(type_of(h), "tile<16xfp16>");
  EXPECT_EQ(h.tensor->def->operand(1)->type.str(), "tile<16xi1>");
  EXPECT_EQ(h.tensor->def->operand(2)->type.str(), "tile<16xfp16>");
  // mask and pointer broadcast together.
  Val b = e.call("load", {e.arg("tile<16x1xptr<fp32>>"), e.arg("tile<1x32xi1>")});
  EXPECT_EQ(type_of(b), "tile<16x32xfp32>");
  Val s = e.call("load", {e.arg("ptr<i64>")});
  EXPECT_EQ(type_of(s), "i64");
  Val v = e.call(
      "load", {ptrs},
      {{"cache_modifier", S(".cg")}, {"volatile", B(true)}, {"eviction_policy", S("evict_last")}});
  EXPECT_EQ(v.tensor->def->str_attr("cache"), ".cg");
  EXPECT_EQ(v.tensor->def->str_attr("evict"), "evict_last");
  EXPECT_EQ(v.tensor->def->int_attr("volatile"), 1);
  e.verify();
}

TEST(Memory, LoadErrors) {
  TestEmitter e;
  Val ptrs = e.arg("tile<128xptr<fp32>>");
  EXPECT_EQ(error_of([&] {
              e.call("load", {ptrs}, {{"other", F(0.0)}});
            }),
            "`other` cannot be provided without `mask`");
  EXPECT_EQ(error_of([&] { e.call("load", {e.arg("tile<128xi32>")}); }),
            "Unsupported ptr type int32[constexpr[128]] in `tl.load`: the pointer argument must "
            "be a pointer or a tensor of pointers");
  EXPECT_EQ(error_of([&] { e.call("load", {I(3)}); }),
            "Unsupported ptr type 3 (int) in `tl.load`: the pointer argument must be a pointer or "
            "a tensor of pointers");
  EXPECT_EQ(error_of([&] {
              e.call("load", {e.arg("ptr<fp32>"), e.arg("tile<4xi1>")});
            }),
            "Mask argument cannot be block type if pointer argument is not a block");
  EXPECT_EQ(error_of([&] {
              e.call("load", {ptrs, e.arg("tile<128xfp32>")});
            }),
            "Mask must have boolean scalar type, got fp32[constexpr[128]]");
  EXPECT_EQ(error_of([&] {
              e.call("load", {ptrs, e.arg("tile<64xi1>")});
            }),
            "incompatible shapes for broadcasting: [128] and [64]");
  EXPECT_EQ(error_of([&] {
              e.call("load", {ptrs}, {{"cache_modifier", S(".xx")}});
            }),
            "Cache modifier .xx not supported");
  EXPECT_EQ(error_of([&] {
              e.call("load", {ptrs}, {{"padding_option", S("zero")}});
            }).substr(0, 46),
            "`padding_option` or `boundary_check` argument ");
}

TEST(Memory, Store) {
  TestEmitter e;
  Val ptrs = e.arg("tile<64xptr<fp16>>");
  e.call("store", {ptrs, e.arg("tile<64xfp32>")}, {{"mask", e.arg("tile<64xi1>")}});
  ir::Op *st = e.last_op(OpKind::Store);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->num_operands(), 3u);
  EXPECT_EQ(st->operand(1)->type.str(), "tile<64xfp16>");
  EXPECT_EQ(st->operand(1)->def->kind(), OpKind::Cast);
  e.call("store", {ptrs, F(0.0)});
  EXPECT_EQ(e.last_op(OpKind::Store)->operand(1)->type.str(), "tile<64xfp16>");
  e.call("store", {e.arg("tile<16x16xptr<i32>>"), e.arg("tile<16xi32>")});
  EXPECT_EQ(e.last_op(OpKind::Store)->operand(1)->type.str(), "tile<16x16xi32>");
  e.method("store", e.arg("ptr<fp32>"), {e.arg("fp32")});
  EXPECT_EQ(e.count(OpKind::Store), 4u);
  EXPECT_EQ(error_of([&] {
              e.call("store", {e.arg("ptr<fp32>"), e.arg("tile<4xfp32>")});
            }),
            "Value argument cannot be block type if pointer argument is not a block");
  EXPECT_EQ(error_of([&] {
              e.call("store", {e.arg("tile<16xptr<fp32>>"), e.arg("tile<4x16xfp32>")});
            }),
            "Expected pointer argument to have shape [4, 16] but got [16] (the value and mask "
            "must broadcast to the pointer's shape)");
  EXPECT_EQ(error_of([&] {
              e.call("store", {ptrs, F(1.0)}, {{"cache_modifier", S(".ca")}});
            }),
            "Cache modifier .ca not supported");
  e.verify();
}

TEST(Memory, Atomics) {
  TestEmitter e;
  Val ptrs = e.arg("tile<32xptr<i32>>");
  Val old = e.call("atomic_add", {ptrs, I(1)});
  EXPECT_EQ(type_of(old), "tile<32xi32>");
  ir::Op *a = old.tensor->def;
  EXPECT_EQ(a->kind(), OpKind::AtomicRmw);
  EXPECT_EQ(a->str_attr("op"), "add");
  EXPECT_EQ(a->str_attr("sem"), "acq_rel");
  EXPECT_EQ(a->str_attr("scope"), "gpu");
  EXPECT_EQ(a->num_operands(), 2u);
  Val m = e.call("atomic_max", {ptrs, e.arg("tile<32xi32>")},
                 {{"mask", e.arg("tile<32xi1>")}, {"sem", S("relaxed")}, {"scope", S("cta")}});
  EXPECT_EQ(m.tensor->def->num_operands(), 3u);
  EXPECT_EQ(m.tensor->def->str_attr("sem"), "relaxed");
  for (const char *op : {"min", "and", "or", "xor", "xchg"})
    EXPECT_EQ(e.call(std::string("atomic_") + op, {ptrs, I(3)}).tensor->def->str_attr("op"), op);
  Val f = e.method("atomic_add", e.arg("ptr<fp16>"), {F(1.0)});
  EXPECT_EQ(type_of(f), "fp16");
  Val cas = e.call("atomic_cas", {e.arg("ptr<i32>"), I(0), I(1)});
  EXPECT_EQ(cas.tensor->def->kind(), OpKind::AtomicCas);
  EXPECT_EQ(type_of(cas), "i32");
  EXPECT_EQ(error_of([&] {
              e.call("atomic_max", {e.arg("ptr<fp16>"), F(1.0)});
            }),
            "atomic_max does not support fp16");
  EXPECT_EQ(error_of([&] {
              e.call("atomic_add", {e.arg("ptr<i8>"), I(1)});
            }),
            "atomic_add does not support int8");
  EXPECT_EQ(error_of([&] {
              e.call("atomic_and", {e.arg("ptr<fp32>"), I(1)});
            }),
            "atomic_and does not support floating point type fp32");
  EXPECT_EQ(error_of([&] {
              e.call("atomic_add", {ptrs, I(1)}, {{"sem", S("weird")}});
            }),
            "Memory semantic weird not supported");
  EXPECT_EQ(error_of([&] {
              e.call("atomic_cas", {e.arg("ptr<i8>"), I(0), I(1)});
            }),
            "atomic_cas only supports elements with width {16, 32, 64}, got int8");
  e.verify();
}

TEST(Dot, TypesAndShapes) {
  TestEmitter e;
  Val a = e.arg("tile<16x32xfp16>"), b = e.arg("tile<32x64xfp16>");
  Val c = e.call("dot", {a, b});
  EXPECT_EQ(type_of(c), "tile<16x64xfp32>");
  ir::Op *d = c.tensor->def;
  EXPECT_EQ(d->kind(), OpKind::Dot);
  EXPECT_EQ(d->str_attr("input_precision"), "tf32");
  EXPECT_EQ(d->operand(2)->def->kind(), OpKind::Constant);
  EXPECT_EQ(type_of(e.call("dot", {a, b}, {{"out_dtype", D(ir::DType::F16)}})), "tile<16x64xfp16>");
  Val acc = e.arg("tile<16x64xfp32>");
  Val c2 = e.call("dot", {a, b, acc});
  EXPECT_EQ(c2.tensor->def->operand(2), acc.tensor);
  Val i = e.call("dot", {e.arg("tile<16x16xi8>"), e.arg("tile<16x16xi8>")});
  EXPECT_EQ(type_of(i), "tile<16x16xi32>");
  Val f = e.call("dot", {e.arg("tile<16x16xfp32>"), e.arg("tile<16x16xfp32>")},
                 {{"input_precision", S("ieee")}});
  EXPECT_EQ(f.tensor->def->str_attr("input_precision"), "ieee");
  Val g = e.call("dot", {e.arg("tile<16x16xfp32>"), e.arg("tile<16x16xfp32>")},
                 {{"allow_tf32", B(false)}});
  EXPECT_EQ(g.tensor->def->str_attr("input_precision"), "ieee");
  EXPECT_EQ(type_of(e.call("dot", {e.arg("tile<2x16x32xbf16>"), e.arg("tile<2x32x8xbf16>")})),
            "tile<2x16x8xfp32>");
  e.verify();
}

TEST(Dot, Errors) {
  TestEmitter e;
  Val a = e.arg("tile<16x32xfp16>");
  EXPECT_EQ(error_of([&] {
              e.call("dot", {a, e.arg("tile<64x16xfp16>")});
            }),
            "dot: incompatible inner dimensions 32 and 64 (shapes [16, 32] and [64, 16])");
  EXPECT_EQ(error_of([&] {
              e.call("dot", {a, e.arg("tile<32x16xfp32>")});
            }),
            "dot: both operands must have the same dtype, got fp16 and fp32");
  EXPECT_EQ(error_of([&] {
              e.call("dot", {e.arg("tile<32xfp16>"), e.arg("tile<32xfp16>")});
            }),
            "dot: both inputs must be either 2D or 3D; got shapes [32] and [32]");
  EXPECT_EQ(error_of([&] {
              e.call("dot", {a, e.arg("tile<32x16xfp16>"), e.arg("tile<16x16xfp16>")});
            }),
            "dot: the accumulator must be fp32[constexpr[16], constexpr[16]], got "
            "fp16[constexpr[16], constexpr[16]]");
  EXPECT_EQ(error_of([&] {
              e.call("dot", {a, e.arg("tile<32x16xfp16>")}, {{"out_dtype", D(ir::DType::BF16)}});
            }).substr(0, 37),
            "out_dtype=bfloat16 is unsupported. Pl");
  EXPECT_EQ(error_of([&] {
              e.call("dot", {a, e.arg("tile<32x16xfp16>")},
                     {{"input_precision", S("tf32")}, {"allow_tf32", B(true)}});
            }),
            "dot: only one of input_precision and allow_tf32 can be specified");
  EXPECT_EQ(error_of([&] {
              e.call("dot", {e.arg("tile<16x16xi32>"), e.arg("tile<16x16xi32>")});
            }),
            "dot: unsupported operand dtype int32");
}

TEST(Reduce, SumAlongAnAxis) {
  TestEmitter e;
  Val x = e.arg("tile<16x32xfp32>");
  Val s = e.call("sum", {x}, {{"axis", I(1)}});
  EXPECT_EQ(type_of(s), "tile<16xfp32>");
  ir::Op *r = s.tensor->def;
  ASSERT_EQ(r->kind(), OpKind::Reduce);
  EXPECT_EQ(r->int_attr("axis"), 1);
  ir::Block *body = r->region(0)->block();
  ASSERT_EQ(body->num_args(), 2u);
  EXPECT_EQ(body->arg(0)->type.str(), "fp32");
  EXPECT_EQ(body->ops().front()->kind(), OpKind::Add);
  EXPECT_EQ(body->terminator()->kind(), OpKind::Yield);
  EXPECT_EQ(type_of(e.call("sum", {x, I(0)})), "tile<32xfp32>");
  EXPECT_EQ(type_of(e.call("sum", {x, I(-1)}, {{"keep_dims", B(true)}})), "tile<16x1xfp32>");
  Val all = e.call("sum", {x});
  EXPECT_EQ(type_of(all), "fp32");
  EXPECT_EQ(all.tensor->def->operand(0)->type.str(), "tile<512xfp32>");
  EXPECT_EQ(type_of(e.call("sum", {x}, {{"keep_dims", B(true)}})), "tile<1x1xfp32>");
  EXPECT_EQ(type_of(e.method("sum", e.arg("tile<8xfp32>"), {I(0)})), "fp32");
  EXPECT_EQ(error_of([&] {
              e.call("sum", {x, I(2)});
            }),
            "sum(): invalid axis 2. Expected -2 <= axis < 2");
  e.verify();
}

TEST(Reduce, SumDtypes) {
  TestEmitter e;
  EXPECT_EQ(type_of(e.call("sum", {e.arg("tile<8xi8>"), I(0)})), "i32");
  EXPECT_EQ(type_of(e.call("sum", {e.arg("tile<8xu16>"), I(0)})), "u32");
  EXPECT_EQ(type_of(e.call("sum", {e.arg("tile<8xi1>"), I(0)})), "u32"); // int1 is unsigned
  EXPECT_EQ(type_of(e.call("sum", {e.arg("tile<8xi64>"), I(0)})), "i64");
  EXPECT_EQ(type_of(e.call("sum", {e.arg("tile<8xfp16>"), I(0)})), "fp16");
  EXPECT_EQ(type_of(e.call("sum", {e.arg("tile<8xbf16>"), I(0)})), "bf16");
  EXPECT_EQ(type_of(e.call("sum", {e.arg("tile<8xfp16>"), I(0)}, {{"dtype", D(ir::DType::F32)}})),
            "fp32");
  EXPECT_EQ(type_of(e.call("xor_sum", {e.arg("tile<8xi32>"), I(0)})), "i32");
  EXPECT_EQ(error_of([&] { e.call("xor_sum", {e.arg("tile<8xfp32>")}); }),
            "xor_sum only supported for integers, got fp32");
  EXPECT_EQ(type_of(e.call("reduce_or", {e.arg("tile<4x8xi1>"), I(1)})), "tile<4xi1>");
  e.verify();
}

TEST(Reduce, MaxMinArgmax) {
  TestEmitter e;
  Val x = e.arg("tile<16x8xfp16>");
  Val m = e.call("max", {x, I(0)});
  EXPECT_EQ(type_of(m), "tile<8xfp32>"); // narrow floats reduce in fp32
  ir::Op *mx = m.tensor->def->region(0)->block()->ops().front().get();
  EXPECT_EQ(mx->kind(), OpKind::Max);
  EXPECT_EQ(mx->int_attr("propagate_nan", -1), 0);
  EXPECT_EQ(type_of(e.call("min", {e.arg("tile<8xi8>"), I(0)})), "i32");
  EXPECT_EQ(type_of(e.call("max", {e.arg("tile<8xbf16>")})), "fp32");
  EXPECT_EQ(type_of(e.call("max", {e.arg("tile<8xu64>")})), "u64");
  Val mi = e.call("max", {e.arg("tile<16x8xfp32>"), I(1)}, {{"return_indices", B(true)}});
  ASSERT_EQ(mi.kind, Val::Kind::Tuple);
  EXPECT_EQ(type_of(mi.elems[0]), "tile<16xfp32>");
  EXPECT_EQ(type_of(mi.elems[1]), "tile<16xi32>");
  ir::Op *two = mi.elems[0].tensor->def;
  EXPECT_EQ(two->num_operands(), 2u);
  EXPECT_EQ(two->num_results(), 2u);
  EXPECT_EQ(two->region(0)->block()->num_args(), 4u);
  Val am = e.call("argmax", {e.arg("tile<32xfp32>"), I(0)});
  EXPECT_EQ(type_of(am), "i32");
  std::vector<std::string> pred;
  ir::walk(am.tensor->def->region(0)->block(), [&](ir::Op *op) {
    if (op->kind() == OpKind::Cmp)
      pred.push_back(op->str_attr("pred"));
  });
  EXPECT_EQ(pred, (std::vector<std::string>{"gt", "eq", "lt"}));
  Val an = e.call("argmin", {e.arg("tile<4x32xi32>"), I(1)},
                  {{"tie_break_left", B(false)}, {"keep_dims", B(true)}});
  EXPECT_EQ(type_of(an), "tile<4x1xi32>");
  e.verify();
}

TEST(Reduce, UserCombiner) {
  TestEmitter e;
  Val add = e.function("add_fn", [](TestEmitter &t, const std::vector<Val> &a) {
    return t.bin(ast::BinOp::Add, a[0], a[1]);
  });
  Val x = e.arg("tile<4x8xi32>");
  Val r = e.call("reduce", {x, I(1), add});
  EXPECT_EQ(type_of(r), "tile<4xi32>");
  EXPECT_EQ(r.tensor->def->region(0)->block()->ops().front()->kind(), OpKind::Add);
  // A tuple of inputs: a multi-result reduce whose combiner gets (a1, a2, b1, b2).
  Val pair = e.function("pair_fn", [](TestEmitter &t, const std::vector<Val> &a) {
    EXPECT_EQ(a.size(), 4u);
    return Val::tuple({t.bin(ast::BinOp::Add, a[0], a[2]), t.bin(ast::BinOp::Mul, a[1], a[3])});
  });
  Val rs = e.call("reduce", {Val::tuple({x, e.arg("tile<4x8xfp32>")}), I(0), pair});
  ASSERT_EQ(rs.kind, Val::Kind::Tuple);
  EXPECT_EQ(type_of(rs.elems[0]), "tile<8xi32>");
  EXPECT_EQ(type_of(rs.elems[1]), "tile<8xfp32>");
  Val kd = e.method("reduce", x, {Val::none(), add}, {{"keep_dims", B(true)}});
  EXPECT_EQ(type_of(kd), "tile<1x1xi32>");
  Val widen = e.function("widen_fn", [](TestEmitter &t, const std::vector<Val> &a) {
    return t.bin(ast::BinOp::Add, a[0], t.arg("fp32"));
  });
  EXPECT_EQ(error_of([&] {
              e.call("reduce", {x, I(0), widen});
            }),
            "reduce(): combine_fn returned fp32[] for result 0 where int32[] was expected");
  EXPECT_EQ(error_of([&] {
              e.call("reduce", {x, I(0), I(3)});
            }),
            "reduce(): combine_fn must be a @jit function, got 3");
  EXPECT_EQ(error_of([&] {
              e.call("reduce", {Val::tuple({x, e.arg("tile<8xi32>")}), I(0), add});
            }),
            "reduce(): all inputs must have the same shape, got [4, 8] and [8]");
  e.verify();
}

TEST(Scan, CumsumCumprodAndUserCombiner) {
  TestEmitter e;
  Val x = e.arg("tile<4x16xi8>");
  Val c = e.call("cumsum", {x, I(1)});
  EXPECT_EQ(type_of(c), "tile<4x16xi32>");
  ir::Op *s = c.tensor->def;
  EXPECT_EQ(s->kind(), OpKind::Scan);
  EXPECT_EQ(s->int_attr("axis"), 1);
  EXPECT_EQ(s->int_attr("reverse"), 0);
  EXPECT_EQ(s->region(0)->block()->ops().front()->kind(), OpKind::Add);
  Val p = e.call("cumprod", {e.arg("tile<16xfp32>")}, {{"reverse", B(true)}});
  EXPECT_EQ(p.tensor->def->int_attr("reverse"), 1);
  EXPECT_EQ(p.tensor->def->region(0)->block()->ops().front()->kind(), OpKind::Mul);
  EXPECT_EQ(type_of(e.method("cumsum", e.arg("tile<16xbf16>"), {})), "tile<16xfp32>");
  Val mx = e.function("max_fn", [](TestEmitter &t, const std::vector<Val> &a) {
    return t.call("maximum", {a[0], a[1]});
  });
  Val sc = e.call("associative_scan", {e.arg("tile<32xfp32>"), I(0), mx}, {{"reverse", B(true)}});
  EXPECT_EQ(type_of(sc), "tile<32xfp32>");
  EXPECT_EQ(sc.tensor->def->region(0)->block()->ops().front()->kind(), OpKind::Max);
  e.verify();
}

TEST(Reduce, Softmax) {
  TestEmitter e;
  Val y = e.call("softmax", {e.arg("tile<128xfp32>")});
  EXPECT_EQ(type_of(y), "tile<128xfp32>");
  EXPECT_EQ(e.count(OpKind::Reduce), 2u);
  EXPECT_EQ(e.count(OpKind::Exp), 1u);
  EXPECT_EQ(y.tensor->def->kind(), OpKind::Div);
  Val k = e.method("softmax", e.arg("tile<8x16xfp32>"), {I(1)}, {{"keep_dims", B(true)}});
  EXPECT_EQ(type_of(k), "tile<8x16xfp32>");
  e.verify();
}

TEST(Reduce, Flip) {
  TestEmitter e;
  Val x = e.arg("tile<4x8xfp32>");
  Val f = e.call("flip", {x});
  EXPECT_EQ(type_of(f), "tile<4x8xfp32>");
  EXPECT_EQ(e.count(OpKind::Reduce), 3u); // one xor_sum per bit of the flipped dim
  EXPECT_EQ(f.tensor->def->kind(), OpKind::Bitcast);
  Val g = e.method("flip", e.arg("tile<2x16xi32>"), {I(0)});
  EXPECT_EQ(type_of(g), "tile<2x16xi32>");
  EXPECT_EQ(e.count(OpKind::Reduce), 4u);
  e.verify();
}

} // namespace
} // namespace tilec::sema::test
