// Every builtin, Python builtin and tensor method called with argument lists of every
// shape and kind: each call either succeeds or raises a CompileError, never an internal
// error or a crash, and what it builds verifies.
#include "TestEmitter.h"

namespace tilec::sema::test {
namespace {

// A 2-D block pointer over an fp32 argument (tl.make_block_ptr), so every builtin meets one.
Val block_ptr(TestEmitter &e) {
  auto ints = [](int64_t a, int64_t b) { return Val::tuple({Val::integer(a), Val::integer(b)}); };
  return call_builtin(e, "make_block_ptr",
                      CallArgs{{e.arg("ptr<fp32>"), ints(64, 64), ints(64, 1), ints(0, 0),
                                ints(16, 16), ints(1, 0)},
                               {},
                               e.loc});
}

// A 2-D tensor descriptor over an fp32 argument, blocks of 4 x 4 (16-byte rows).
Val tensor_desc(TestEmitter &e) {
  auto ints = [](int64_t a, int64_t b) { return Val::tuple({Val::integer(a), Val::integer(b)}); };
  return call_builtin(e, "make_tensor_descriptor",
                      CallArgs{{e.arg("ptr<fp32>"), Val::tuple({e.arg("i32"), Val::integer(64)}),
                                ints(64, 1), ints(4, 4)},
                               {},
                               e.loc});
}

std::vector<Val> samples(TestEmitter &e) {
  return {Val::integer(2),
          Val::integer(-1),
          Val::floating(1.5),
          Val::boolean(true),
          Val::none(),
          Val::string("x"),
          Val::tuple({Val::integer(4), Val::integer(4)}),
          Val::tuple({}),
          Val::dtype(ir::Type(ir::DType::F16)),
          Val::dtype(ir::Type(ir::DType::I32, true)),
          e.arg("i32"),
          e.arg("fp32"),
          e.arg("i1"),
          e.arg("ptr<fp32>"),
          e.arg("tile<16xi32>"),
          e.arg("tile<4x4xfp32>"),
          e.arg("tile<16xptr<fp16>>"),
          e.arg("tile<2xi1>"),
          block_ptr(e),
          tensor_desc(e),
          e.function("combine", [](TestEmitter &t, const std::vector<Val> &a) {
            return t.bin(ast::BinOp::Add, a[0], a[a.size() / 2]);
          })};
}

enum class Outcome { Ok, UserError };

template <typename F> Outcome run(F &&f, const std::string &what) {
  try {
    f();
    return Outcome::Ok;
  } catch (const CompileError &) {
    return Outcome::UserError;
  } catch (const std::exception &x) {
    ADD_FAILURE() << what << ": unexpected exception: " << x.what();
  }
  return Outcome::UserError;
}

// Calls `call(args)` for all argument lists of length 0..2 over the samples (and some
// of length 3), checking that no internal error escapes and that the IR stays valid.
template <typename Call> size_t sweep(const std::string &name, Call &&call) {
  TestEmitter e;
  std::vector<Val> s = samples(e);
  size_t ok = 0;
  auto one = [&](std::vector<Val> args) {
    std::string what = name + "(" + std::to_string(args.size()) + " args)";
    ok += run([&] { call(e, args); }, what) == Outcome::Ok;
  };
  one({});
  // A few longer lists that some builtins need.
  Val zero = Val::integer(0), two = Val::integer(2), f16 = s[8];
  Val combine = s.back(), ints = s[14], iptrs = e.arg("tile<16xptr<i32>>");
  one({zero, Val::integer(16)});
  one({ints, zero, combine});
  one({iptrs, ints, s[17]});
  one({iptrs, ints});
  one({s[6], two, f16});
  one({two, two, Val::integer(8), Val::integer(8), two});
  Val order = Val::tuple({Val::integer(1), Val::integer(0)});
  one({s[13], s[6], s[6], s[6], s[6], order}); // make_block_ptr
  one({s[18], s[6]});                          // advance
  Val unit_last = Val::tuple({Val::integer(8), Val::integer(1)});
  one({s[13], s[6], unit_last, s[6]}); // make_tensor_descriptor
  one({s[19], s[6], s[15]});           // store_tensor_descriptor, desc.store / atomic_*
  one({s[19], s[7]});
  one({s[19], s[6], s[7]});
  one({s[19], s[17], s[6]});
  one({s[19], s[15], s[6], s[6]});
  Val words = e.arg("tile<16xu32>");           // philox_impl: four counters and two keys
  one({words, words, words, words, words, words});
  one({Val::string("mov.b32 $0, $1;"), Val::string("=r,r"), Val::tuple({ints}), // inline asm
       Val::dtype(ir::Type(ir::DType::I32)), Val::boolean(true), Val::integer(1)});
  // libdevice's forms take exact dtypes: fp64, 64-bit and unsigned ints.
  Val f64 = e.arg("fp64"), i64 = e.arg("i64"), u64 = e.arg("tile<16xu64>");
  one({f64});
  one({i64});
  one({u64});
  one({words});
  one({words, words, words});
  one({f64, s[10]});
  one({s[11], s[11], s[11]});
  one({s[11], s[11], s[11], s[11]});
  one({ints, ints, zero}); // gather: an index tile of the source's rank
  Val bytes = e.arg("tile<16x16xu8>"); // dot_scaled: fp8 operands, no scales
  one({bytes, Val::none(), Val::string("e4m3"), bytes, Val::none(), Val::string("e5m2")});
  for (const Val &a : s) {
    one({a});
    for (const Val &b : s)
      one({a, b});
    one({a, s[14], s[14]});
    one({s[16], a, s[17]});
  }
  run([&] { e.verify(); }, name + ": verify");
  return ok;
}

TEST(Robustness, EveryBuiltin) {
  for (const std::string &n : builtin_names()) {
    size_t ok = sweep(n, [&](TestEmitter &e, std::vector<Val> args) {
      call_builtin(e, n, CallArgs{std::move(args), {}, e.loc});
    });
    // Some argument list works for every builtin but the loop forms.
    if (n != "range" && n != "static_range") {
      EXPECT_GT(ok, 0u) << n;
    }
  }
}

TEST(Robustness, EveryPythonBuiltin) {
  for (const char *n : {"min", "max", "abs", "float", "int", "bool", "len", "print", "range"})
    sweep(n, [&](TestEmitter &e, std::vector<Val> args) {
      call_python_builtin(e, n, CallArgs{std::move(args), {}, e.loc});
    });
}

TEST(Robustness, EveryTensorMethod) {
  for (const char *n :
       {"to",    "sum",        "max",     "min",         "argmax",       "reshape",
        "view",  "permute",    "trans",   "expand_dims", "broadcast_to", "split",
        "ravel", "item",       "exp",     "cumsum",      "reduce",       "associative_scan",
        "store", "atomic_add", "softmax", "flip",        "cdiv",         "sigmoid",
        "abs",   "cast"})
    sweep(n, [&](TestEmitter &e, std::vector<Val> args) {
      std::vector<Val> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
      Val self = args.empty() ? e.arg("tile<8xfp32>") : args[0];
      call_tensor_method(e, n, self, CallArgs{std::move(rest), {}, e.loc});
    });
}

TEST(Robustness, EveryDescriptorMethod) {
  for (const char *n : {"load", "store", "atomic_add", "atomic_min", "atomic_max", "atomic_and",
                        "atomic_or", "atomic_xor", "gather", "scatter"})
    sweep(n, [&](TestEmitter &e, std::vector<Val> args) {
      call_descriptor_method(e, n, tensor_desc(e), CallArgs{std::move(args), {}, e.loc});
    });
}

TEST(Robustness, EveryOperator) {
  using ast::BinOp;
  for (BinOp op :
       {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::FloorDiv, BinOp::Mod, BinOp::Pow,
        BinOp::MatMul, BinOp::LShift, BinOp::RShift, BinOp::BitAnd, BinOp::BitOr, BinOp::BitXor})
    sweep(ast::binop_symbol(op), [&](TestEmitter &e, std::vector<Val> args) {
      if (args.size() == 2)
        binary_op(e, op, args[0], args[1], e.loc);
    });
  for (ast::CmpOp op : {ast::CmpOp::Eq, ast::CmpOp::NotEq, ast::CmpOp::Lt, ast::CmpOp::GtE,
                        ast::CmpOp::Is, ast::CmpOp::In})
    sweep(ast::cmpop_symbol(op), [&](TestEmitter &e, std::vector<Val> args) {
      if (args.size() == 2)
        compare_op(e, op, args[0], args[1], e.loc);
    });
  sweep("unary/logical/subscript", [&](TestEmitter &e, std::vector<Val> args) {
    if (args.size() == 1)
      for (ast::UnaryOp op :
           {ast::UnaryOp::Neg, ast::UnaryOp::Pos, ast::UnaryOp::Invert, ast::UnaryOp::Not})
        run([&] { unary_op(e, op, args[0], e.loc); }, ast::unaryop_symbol(op));
    if (args.size() == 2) {
      run([&] { logical_op(e, true, args[0], args[1], e.loc); }, "and");
      run([&] { subscript(e, args[0], args[1], e.loc); }, "subscript");
      run([&] { to_condition(e, args[0], e.loc); }, "to_condition");
    }
  });
}

} // namespace
} // namespace tilec::sema::test
