#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/IR.h"
#include "ir/Printer.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

// The seed vector add, built by hand.
std::unique_ptr<Module> add_kernel() {
  auto m = std::make_unique<Module>();
  Function *f = m->add_function("add_kernel");
  Block *e = f->entry();
  Value *x = e->add_arg(Type::pointer_to(DType::F32));
  Value *out = e->add_arg(Type::pointer_to(DType::F32));
  Value *n = e->add_arg(Type(DType::I32));
  f->arg_names = {"x_ptr", "out_ptr", "n_elements"};
  Builder b(e);
  Type ti(DType::I32, false, {1024});
  Value *pid =
      b.create(OpKind::ProgramId, {}, {Type(DType::I32)}, {{"axis", int64_t(0)}})->result();
  Value *c = b.constant_int(Type(DType::I32), 1024);
  Value *start = b.create(OpKind::Mul, {pid, c}, {Type(DType::I32)})->result();
  Value *r =
      b.create(OpKind::Arange, {}, {ti}, {{"start", int64_t(0)}, {"end", int64_t(1024)}})->result();
  Value *s = b.create(OpKind::Splat, {start}, {ti})->result();
  Value *offs = b.create(OpKind::Add, {s, r}, {ti})->result();
  Value *ns = b.create(OpKind::Splat, {n}, {ti})->result();
  Value *mask =
      b.create(OpKind::Cmp, {offs, ns}, {ti.with_elem(DType::I1)}, {{"pred", std::string("lt")}})
          ->result();
  Type tp(DType::F32, true, {1024});
  Value *xs = b.create(OpKind::Splat, {x}, {tp})->result();
  Value *xp = b.create(OpKind::AddPtr, {xs, offs}, {tp})->result();
  Value *xv = b.create(OpKind::Load, {xp, mask}, {Type(DType::F32, false, {1024})})->result();
  Value *os = b.create(OpKind::Splat, {out}, {tp})->result();
  Value *op = b.create(OpKind::AddPtr, {os, offs}, {tp})->result();
  b.create(OpKind::Store, {op, xv, mask}, {});
  b.create(OpKind::Return, {}, {});
  return m;
}

} // namespace

TEST(Printer, AddKernel) {
  auto m = add_kernel();
  EXPECT_EQ(print(*m),
            R"(tt.func @add_kernel(%x_ptr: ptr<fp32>, %out_ptr: ptr<fp32>, %n_elements: i32) {
  %0 = program_id {axis = 0} : i32
  %1 = constant {value = 1024} : i32
  %2 = mul %0, %1 : i32
  %3 = arange {end = 1024, start = 0} : tile<1024xi32>
  %4 = splat %2 : i32 -> tile<1024xi32>
  %5 = add %4, %3 : tile<1024xi32>
  %6 = splat %n_elements : i32 -> tile<1024xi32>
  %7 = cmp %5, %6 {pred = "lt"} : tile<1024xi32> -> tile<1024xi1>
  %8 = splat %x_ptr : ptr<fp32> -> tile<1024xptr<fp32>>
  %9 = addptr %8, %5 : tile<1024xptr<fp32>>, tile<1024xi32> -> tile<1024xptr<fp32>>
  %10 = load %9, %7 : tile<1024xptr<fp32>>, tile<1024xi1> -> tile<1024xfp32>
  %11 = splat %out_ptr : ptr<fp32> -> tile<1024xptr<fp32>>
  %12 = addptr %11, %5 : tile<1024xptr<fp32>>, tile<1024xi32> -> tile<1024xptr<fp32>>
  store %12, %10, %7
  return
}
)");
}

TEST(Printer, LoneOpUsesFunctionNumbering) {
  auto m = add_kernel();
  Function *f = m->functions[0].get();
  auto it = f->entry()->ops().begin();
  std::advance(it, 5);
  EXPECT_EQ(print(**it), "%5 = add %4, %3 : tile<1024xi32>");
  std::advance(it, -3);
  PrintOptions o;
  o.context = f;
  EXPECT_EQ(print(**it, o), "%2 = mul %0, %1 : i32");
  std::advance(it, 4);
  EXPECT_EQ(print(**it), "%6 = splat %arg2 : i32 -> tile<1024xi32>");
  EXPECT_EQ(print(**it, o), "%6 = splat %n_elements : i32 -> tile<1024xi32>");
}

TEST(Printer, RegionsAndMultipleResults) {
  Module m;
  m.attrs.push_back({"num_warps", int64_t(4)});
  Function *f = m.add_function("k");
  Value *lb = f->entry()->add_arg(Type(DType::I32));
  Value *x = f->entry()->add_arg(Type(DType::F32, false, {4, 2}));
  f->arg_names = {"n", "x"};
  Builder b(f->entry());
  Op *split =
      b.create(OpKind::Split, {x}, {Type(DType::F32, false, {4}), Type(DType::F32, false, {4})});
  Value *z = b.constant_float(Type(DType::F32), 0.0);
  Op *loop = b.create(OpKind::For, {lb, lb, lb, z}, {Type(DType::F32)}, {}, {}, 1);
  Block *body = loop->region(0)->block();
  body->add_arg(Type(DType::I32));
  Value *acc = body->add_arg(Type(DType::F32));
  Builder bb(body);
  Value *one = bb.constant_float(Type(DType::F32), 1.0);
  Value *next = bb.create(OpKind::Add, {acc, one}, {Type(DType::F32)})->result();
  bb.create(OpKind::Yield, {next}, {});
  b.create(OpKind::Join, {split->result(0), split->result(1)}, {Type(DType::F32, false, {4, 2})});
  b.create(OpKind::Return, {}, {});
  EXPECT_EQ(print(m), R"(module {num_warps = 4}

tt.func @k(%n: i32, %x: tile<4x2xfp32>) {
  %0:2 = split %x : tile<4x2xfp32> -> tile<4xfp32>, tile<4xfp32>
  %1 = constant {value = 0.0} : fp32
  %2 = for %n, %n, %n, %1 : i32, i32, i32, fp32 -> fp32 {
  ^bb(%3: i32, %4: fp32):
    %5 = constant {value = 1.0} : fp32
    %6 = add %4, %5 : fp32
    yield %6
  }
  %7 = join %0#0, %0#1 : tile<4xfp32> -> tile<4x2xfp32>
  return
}
)");
  PrintOptions o;
  o.elide_regions = true;
  EXPECT_EQ(print(*loop, o),
            "%2 = for %arg0, %arg0, %arg0, %1 : i32, i32, i32, fp32 -> fp32 {...}");
}

TEST(Printer, AttrValues) {
  EXPECT_EQ(format_attr_value(int64_t(-3)), "-3");
  EXPECT_EQ(format_attr_value(1.0), "1.0");
  EXPECT_EQ(format_attr_value(0.1), "0.1");
  EXPECT_EQ(format_attr_value(1e300), "1e+300");
  EXPECT_EQ(format_attr_value(-0.0), "-0.0");
  EXPECT_EQ(format_attr_value(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_attr_value(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(format_attr_value(std::nan("")), "nan");
  EXPECT_EQ(format_attr_value(std::string("a\"b\\\n\x01")), "\"a\\\"b\\\\\\n\\01\"");
  EXPECT_EQ(format_attr_value(std::vector<int64_t>{1, 0}), "[1, 0]");
  EXPECT_EQ(format_attr_value(std::vector<int64_t>{}), "[]");
}

TEST(Printer, Locations) {
  SourceManager sm;
  int file = sm.add("k.py", "x\ny\n");
  Module m;
  Function *f = m.add_function("k");
  Builder b(f->entry());
  b.create(OpKind::Return, {}, {}, {}, SourceLoc{file, 2, 5});
  PrintOptions o;
  o.locations = true;
  o.sources = &sm;
  EXPECT_EQ(print(*f, o), "tt.func @k() {\n  return loc(\"k.py\":2:5)\n}\n");
  o.sources = nullptr;
  EXPECT_EQ(print(*f, o), "tt.func @k() {\n  return loc(0:2:5)\n}\n");
}
