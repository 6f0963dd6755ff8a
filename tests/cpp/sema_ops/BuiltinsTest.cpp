// The builtin table: binding errors, program ids, creation and shape builtins, casts,
// elementwise math, Python's builtins, debugging and hints.
#include "TestEmitter.h"

#include <algorithm>
#include <cmath>

namespace tilec::sema::test {
namespace {

using ir::OpKind;

Val I(int64_t v) { return Val::integer(v); }
Val F(double v) { return Val::floating(v); }
Val B(bool v) { return Val::boolean(v); }
Val S(const std::string &s) { return Val::string(s); }
Val T(std::vector<Val> v) { return Val::tuple(std::move(v)); }
Val D(ir::DType d) { return Val::dtype(ir::Type(d)); }

TEST(Binding, PythonStyleErrors) {
  TestEmitter e;
  Val p = e.arg("ptr<fp32>");
  EXPECT_EQ(error_of([&] {
              e.call("load", {p}, {{"foo", I(1)}});
            }),
            "load() got an unexpected keyword argument 'foo'");
  EXPECT_EQ(error_of([&] { e.call("load", {}); }), "load() missing required argument 'pointer'");
  EXPECT_EQ(error_of([&] {
              e.call("program_id", {I(0), I(1)});
            }),
            "program_id() takes 1 positional argument but 2 were given");
  EXPECT_EQ(error_of([&] {
              e.call("load", {p, Val::none()}, {{"mask", B(true)}});
            }),
            "load() got multiple values for argument 'mask'");
  EXPECT_EQ(error_of([&] { e.call("arange", {I(0)}); }),
            "arange() missing required argument 'end'");
  EXPECT_EQ(error_of([&] {
              e.call("device_print", {S("x")}, {{"args", I(1)}});
            }),
            "device_print() got an unexpected keyword argument 'args'");
  // Keyword arguments bind by name, in any order.
  Val r = e.call("arange", {}, {{"end", I(16)}, {"start", I(0)}});
  EXPECT_EQ(type_of(r), "tile<16xi32>");
}

TEST(Binding, Namespaces) {
  EXPECT_TRUE(is_builtin("load"));
  EXPECT_TRUE(is_builtin("math.exp"));
  EXPECT_TRUE(is_builtin("exp"));
  EXPECT_FALSE(is_builtin("math.load"));
  EXPECT_FALSE(is_builtin("tanh"));
  EXPECT_TRUE(is_builtin("static_range"));
  EXPECT_TRUE(is_python_builtin("min"));
  EXPECT_TRUE(is_python_builtin("builtins.float"));
  EXPECT_FALSE(is_python_builtin("load"));
  EXPECT_TRUE(is_tensor_method("to"));
  EXPECT_TRUE(is_tensor_method("sum"));
  EXPECT_FALSE(is_tensor_method("load"));
  std::vector<std::string> names = builtin_names();
  for (const char *n : {"load", "store", "dot", "math.exp", "math.fdiv", "zeros", "sum", "where"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_EQ(std::find(names.begin(), names.end(), "to"), names.end());
  Val out;
  ASSERT_TRUE(language_attribute("float16", out));
  EXPECT_EQ(out.kind, Val::Kind::DType);
  EXPECT_EQ(out.type.str(), "fp16");
  ASSERT_TRUE(language_attribute("bfloat16", out));
  EXPECT_EQ(out.type.str(), "bf16");
  ASSERT_TRUE(language_attribute("float8e4nv", out));
  ASSERT_TRUE(language_attribute("int1", out));
  EXPECT_EQ(out.type.str(), "i1");
  ASSERT_TRUE(language_attribute("math", out));
  EXPECT_EQ(out.kind, Val::Kind::Module);
  ASSERT_TRUE(language_attribute("PropagateNan.ALL", out));
  EXPECT_NE(out.i, 0);
  ASSERT_TRUE(language_attribute("float8e4b15", out)); // Triton's software fp8
  EXPECT_EQ(out.type.str(), "fp8e4b15");
  EXPECT_FALSE(language_attribute("float8e4b8", out)); // AMD's
  EXPECT_FALSE(language_attribute("nonsense", out));
  TestEmitter e;
  EXPECT_EQ(error_of([&] { e.method("nope", e.arg("i32"), {}); }),
            "'tensor' object has no attribute 'nope'");
}

TEST(Program, ProgramIdAndNumPrograms) {
  TestEmitter e;
  Val pid = e.call("program_id", {}, {{"axis", I(0)}});
  EXPECT_EQ(type_of(pid), "i32");
  EXPECT_EQ(pid.tensor->def->kind(), OpKind::ProgramId);
  Val n = e.call("num_programs", {I(2)});
  EXPECT_EQ(n.tensor->def->kind(), OpKind::NumPrograms);
  EXPECT_EQ(n.tensor->def->int_attr("axis"), 2);
  EXPECT_EQ(error_of([&] { e.call("program_id", {I(3)}); }),
            "program_id axis must be 0, 1, or 2 but got 3");
  EXPECT_EQ(error_of([&] { e.call("num_programs", {I(-1)}); }),
            "num_programs axis must be 0, 1, or 2 but got -1");
  EXPECT_EQ(error_of([&] { e.call("program_id", {pid}); }),
            "program_id axis must be a constexpr int (0, 1 or 2), got a tensor");
  e.verify();
}

TEST(Creation, Arange) {
  TestEmitter e;
  Val r = e.call("arange", {I(0), I(1024)});
  EXPECT_EQ(type_of(r), "tile<1024xi32>");
  EXPECT_EQ(r.tensor->def->int_attr("end"), 1024);
  EXPECT_EQ(type_of(e.call("arange", {I(16), I(32)})), "tile<16xi32>");
  EXPECT_EQ(error_of([&] {
              e.call("arange", {I(0), I(100)});
            }),
            "arange's range must be a power of 2");
  EXPECT_EQ(error_of([&] {
              e.call("arange", {I(8), I(4)});
            }),
            "arange's end argument must be greater than the start argument");
  EXPECT_EQ(error_of([&] {
              e.call("arange", {I(0), e.arg("i32")});
            }),
            "arange's arguments must be of type tl.constexpr");
  EXPECT_EQ(error_of([&] {
              e.call("arange", {I(0), I(int64_t(1) << 21)});
            }),
            "arange(): numel (2097152) exceeds triton maximum tensor numel (1048576)");
  e.verify();
}

TEST(Creation, FullAndZeros) {
  TestEmitter e;
  Val z = e.call("zeros", {T({I(16), I(32)})}, {{"dtype", D(ir::DType::F32)}});
  EXPECT_EQ(type_of(z), "tile<16x32xfp32>");
  EXPECT_EQ(z.tensor->def->kind(), OpKind::Constant);
  EXPECT_EQ(z.tensor->def->float_attr("value"), 0.0);
  Val f = e.call("full", {T({I(8)}), F(-INFINITY), D(ir::DType::F16)});
  EXPECT_EQ(type_of(f), "tile<8xfp16>");
  EXPECT_TRUE(std::isinf(f.tensor->def->float_attr("value")));
  Val fi = e.call("full", {T({I(4)}), I(7), D(ir::DType::I64)});
  EXPECT_EQ(fi.tensor->def->int_attr("value"), 7);
  Val scalar = e.call("full", {T({}), I(3), D(ir::DType::I32)});
  EXPECT_EQ(type_of(scalar), "i32");
  Val fromt = e.call("full", {T({I(4), I(4)}), e.arg("i32"), D(ir::DType::F32)});
  EXPECT_EQ(type_of(fromt), "tile<4x4xfp32>");
  EXPECT_EQ(fromt.tensor->def->kind(), OpKind::Splat);
  Val zl = e.call("zeros_like", {e.arg("tile<2x8xbf16>")});
  EXPECT_EQ(type_of(zl), "tile<2x8xbf16>");
  EXPECT_EQ(error_of([&] {
              e.call("full", {T({I(4)}), F(1.5), D(ir::DType::I32)});
            }),
            "cannot convert float 1.5 to integer type int32");
  // zero is every type's null value, as in Triton: full(shape, 0.0, tl.int8) is fine
  EXPECT_EQ(type_of(e.call("full", {T({I(4)}), F(0.0), D(ir::DType::I8)})), "tile<4xi8>");
  EXPECT_EQ(error_of([&] {
              e.call("zeros", {T({I(3)}), D(ir::DType::F32)});
            }),
            "Shape element 0 must be a power of 2");
  EXPECT_EQ(error_of([&] {
              e.call("zeros", {T({I(4)}), I(1)});
            }),
            "zeros(): `dtype` must be a dtype (e.g. tl.float32), got a value of type int");
  e.verify();
}

TEST(Shape, ReshapePermuteExpand) {
  TestEmitter e;
  Val x = e.arg("tile<16x16xfp32>");
  EXPECT_EQ(type_of(e.call("reshape", {x, I(256)})), "tile<256xfp32>");
  EXPECT_EQ(type_of(e.call("reshape", {x, T({I(4), I(64)})})), "tile<4x64xfp32>");
  EXPECT_EQ(type_of(e.method("reshape", x, {I(8), I(32)})), "tile<8x32xfp32>");
  EXPECT_EQ(type_of(e.call("view", {x, T({I(256)})})), "tile<256xfp32>");
  EXPECT_EQ(type_of(e.call("ravel", {x})), "tile<256xfp32>");
  EXPECT_EQ(error_of([&] {
              e.call("reshape", {x, I(128)});
            }),
            "reshape() cannot change total number of elements in tensor ([16, 16] to [128])");
  Val x3 = e.arg("tile<2x4x8xfp32>");
  Val p = e.call("permute", {x3, I(2), I(0), I(1)});
  EXPECT_EQ(type_of(p), "tile<8x2x4xfp32>");
  EXPECT_EQ(p.tensor->def->ints_attr("order"), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(type_of(e.call("permute", {x3, T({I(1), I(0), I(2)})})), "tile<4x2x8xfp32>");
  Val y = e.arg("tile<16x32xfp16>");
  EXPECT_EQ(type_of(e.call("trans", {y})), "tile<32x16xfp16>");
  EXPECT_EQ(error_of([&] { e.call("trans", {e.arg("tile<16xfp16>")}); }),
            "tl.trans invoked with a 0- or 1-dimensional tensor");
  EXPECT_EQ(error_of([&] {
              e.call("permute", {x3, I(0), I(0), I(1)});
            }),
            "permute(): permute dims must be a permutation of 0, 1, ..., n-1, but were [0, 0, 1]");
  Val v = e.arg("tile<16xi32>");
  EXPECT_EQ(type_of(e.call("expand_dims", {v, I(0)})), "tile<1x16xi32>");
  EXPECT_EQ(type_of(e.call("expand_dims", {v, I(-1)})), "tile<16x1xi32>");
  EXPECT_EQ(type_of(e.call("expand_dims", {v, T({I(0), I(2)})})), "tile<1x16x1xi32>");
  EXPECT_EQ(error_of([&] {
              e.call("expand_dims", {v, I(2)});
            }),
            "expand_dims(): invalid axis 2. Expected -2 <= axis < 2");
  Val row = e.arg("tile<1x16xi32>");
  EXPECT_EQ(type_of(e.call("broadcast_to", {row, I(8), I(16)})), "tile<8x16xi32>");
  EXPECT_EQ(type_of(e.method("broadcast_to", row, {T({I(4), I(16)})})), "tile<4x16xi32>");
  // As in Triton, broadcast_to never adds dimensions.
  EXPECT_EQ(error_of([&] {
              e.call("broadcast_to", {v, I(8), I(16)});
            }),
            "Cannot broadcast, rank mismatch: [16], [8, 16]");
  Val bc = e.call("broadcast", {e.arg("tile<4x1xi32>"), e.arg("tile<1x8xfp32>")});
  ASSERT_EQ(bc.kind, Val::Kind::Tuple);
  EXPECT_EQ(type_of(bc.elems[0]), "tile<4x8xi32>");
  EXPECT_EQ(type_of(bc.elems[1]), "tile<4x8xfp32>");
  e.verify();
}

TEST(Shape, JoinSplitCat) {
  TestEmitter e;
  Val a = e.arg("tile<4x8xfp32>"), b = e.arg("tile<4x8xfp32>");
  Val j = e.call("join", {a, b});
  EXPECT_EQ(type_of(j), "tile<4x8x2xfp32>");
  Val s = e.call("split", {j});
  ASSERT_EQ(s.kind, Val::Kind::Tuple);
  EXPECT_EQ(type_of(s.elems[1]), "tile<4x8xfp32>");
  Val js = e.call("join", {e.arg("fp32"), e.arg("fp32")});
  EXPECT_EQ(type_of(js), "tile<2xfp32>");
  Val ss = e.method("split", js, {});
  EXPECT_EQ(type_of(ss.elems[0]), "fp32");
  EXPECT_EQ(error_of([&] { e.call("split", {a}); }),
            "split(): the last dimension must have size 2, got a tensor of shape [4, 8]");
  EXPECT_EQ(error_of([&] {
              e.call("join", {a, e.arg("tile<4x8xfp16>")});
            }),
            "join(): both tensors must have the same dtype, got fp32 and fp16");
  Val c = e.call("cat", {e.arg("tile<8xi32>"), e.arg("tile<8xi32>")}, {{"can_reorder", B(true)}});
  EXPECT_EQ(type_of(c), "tile<16xi32>");
  Val item = e.method("item", e.arg("tile<1x1xi32>"), {});
  EXPECT_EQ(type_of(item), "i32");
  e.verify();
}

TEST(Cast, ToAndCast) {
  TestEmitter e;
  Val x = e.arg("tile<8xfp32>");
  Val h = e.method("to", x, {D(ir::DType::F16)});
  EXPECT_EQ(type_of(h), "tile<8xfp16>");
  EXPECT_EQ(h.tensor->def->kind(), OpKind::Cast);
  EXPECT_FALSE(h.tensor->def->has_attr("rounding"));
  Val rz = e.call("cast", {x, D(ir::DType::BF16)}, {{"fp_downcast_rounding", S("rtz")}});
  EXPECT_EQ(rz.tensor->def->str_attr("rounding"), "rtz");
  EXPECT_EQ(e.method("to", x, {D(ir::DType::F32)}).tensor, x.tensor);
  Val bits = e.method("to", x, {D(ir::DType::I32)}, {{"bitcast", B(true)}});
  EXPECT_EQ(bits.tensor->def->kind(), OpKind::Bitcast);
  EXPECT_EQ(type_of(bits), "tile<8xi32>");
  EXPECT_EQ(error_of([&] {
              e.method("to", x, {D(ir::DType::I16)}, {{"bitcast", B(true)}});
            }),
            "Cannot bitcast data-type of size 32 to data-type of size 16");
  EXPECT_EQ(error_of([&] {
              e.method("to", x, {D(ir::DType::F64)}, {{"fp_downcast_rounding", S("rtz")}});
            }),
            "fp_downcast_rounding should be set only for truncating fp conversions. Source "
            "scalar type is fp32 and destination type is fp64");
  EXPECT_EQ(error_of([&] {
              e.method("to", x, {D(ir::DType::F16)}, {{"fp_downcast_rounding", S("up")}});
            }),
            "Invalid rounding mode: up. Supported rounding modes are 'rtne' and 'rtz'.");
  Val p = e.arg("ptr<fp32>");
  Val i8p = e.method("to", p, {e.call("pointer_type", {D(ir::DType::I8)})});
  EXPECT_EQ(type_of(i8p), "ptr<i8>");
  EXPECT_EQ(i8p.tensor->def->kind(), OpKind::Bitcast);
  Val as_int = e.method("to", p, {D(ir::DType::I64)});
  EXPECT_EQ(type_of(as_int), "i64");
  EXPECT_EQ(type_of(e.method("to", e.arg("tile<4xi32>"), {D(ir::DType::I1)})), "tile<4xi1>");
  e.verify();
}

TEST(Where, NonBoolConditionWarnsAsTriton) {
  TestEmitter e;
  Val x = e.arg("tile<64xfp32>");
  e.call("where", {e.arg("tile<64xu32>"), x, x});
  EXPECT_EQ(e.warnings, "tl.where with a non-boolean condition is deprecated and will error "
                        "out in a future triton release. Got uint32\n");
  e.warnings.clear();
  e.call("where", {e.arg("tile<64xi1>"), x, x});
  EXPECT_EQ(e.warnings, "");
  e.verify();
}

} // namespace
} // namespace tilec::sema::test
