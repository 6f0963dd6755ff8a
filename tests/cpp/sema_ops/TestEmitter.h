// A throwaway Emitter for the operator and builtin tests: a Builder at the end of a
// fresh ir::Function's body, kernel arguments made as block arguments, and @jit
// combiners stood in for by C++ functions registered by name.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frontend/sema/Builtins.h"
#include "frontend/sema/Emitter.h"
#include "frontend/sema/Operators.h"
#include "frontend/sema/Sema.h"
#include "ir/IR.h"
#include "ir/Verifier.h"

namespace tilec::sema::test {

class TestEmitter : public Emitter {
public:
  using Fn = std::function<Val(TestEmitter &, const std::vector<Val> &)>;

  TestEmitter() : b_(fn_.entry()) { fn_.name = "kernel"; }

  ir::Builder &builder() override { return b_; }
  const CompileOptions &options() const override { return opts; }
  Val call_function(const Val &fn, std::vector<Val> args, SourceLoc) override {
    EXPECT_EQ(fn.kind, Val::Kind::Function);
    return fns.at(fn.fn->name)(*this, args);
  }
  Val attribute(const Val &, const std::string &attr, SourceLoc loc) override {
    throw CompileError(loc, "no attribute '" + attr + "' in the test emitter");
  }
  void static_print(const std::string &text) override { printed += text + "\n"; }
  std::string file_path(SourceLoc) const override { return "kernel.py"; }
  std::string function_name() const override { return "kernel"; }
  void breakpoint(SourceLoc) override {}
  void warn(SourceLoc, const std::string &msg) override { warnings += msg + "\n"; }
  std::string warnings;

  // A run-time kernel argument of type `t` (a block argument of the body).
  Val arg(const ir::Type &t) { return Val::of(fn_.entry()->add_arg(t)); }
  Val arg(const std::string &type_text) { return arg(*ir::parse_type(type_text)); }
  // A @jit function value whose body is `f`.
  Val function(const std::string &name, Fn f) {
    auto src = std::make_shared<FunctionSource>();
    src->name = name;
    fns[name] = std::move(f);
    sources.push_back(src);
    Val v;
    v.kind = Val::Kind::Function;
    v.fn = src;
    return v;
  }

  // Calls through the public entry points.
  Val call(const std::string &name, std::vector<Val> args,
           std::vector<std::pair<std::string, Val>> kwargs = {}) {
    return call_builtin(*this, name, CallArgs{std::move(args), std::move(kwargs), loc});
  }
  Val method(const std::string &name, const Val &self, std::vector<Val> args,
             std::vector<std::pair<std::string, Val>> kwargs = {}) {
    return call_tensor_method(*this, name, self, CallArgs{std::move(args), std::move(kwargs), loc});
  }
  Val py(const std::string &name, std::vector<Val> args,
         std::vector<std::pair<std::string, Val>> kwargs = {}) {
    return call_python_builtin(*this, name, CallArgs{std::move(args), std::move(kwargs), loc});
  }
  Val bin(ast::BinOp op, const Val &a, const Val &b) { return binary_op(*this, op, a, b, loc); }

  // The kinds of the ops in the body, in order ("add", "splat", ...), regions included.
  std::vector<std::string> op_names() {
    std::vector<std::string> out;
    ir::walk(fn_.entry(), [&](ir::Op *op) { out.push_back(std::string(op->name())); });
    return out;
  }
  size_t count(ir::OpKind k) {
    size_t n = 0;
    ir::walk(fn_.entry(), [&](ir::Op *op) { n += op->kind() == k; });
    return n;
  }
  ir::Op *last_op(ir::OpKind k) {
    ir::Op *found = nullptr;
    ir::walk(fn_.entry(), [&](ir::Op *op) {
      if (op->kind() == k)
        found = op;
    });
    return found;
  }
  ir::Function &function_ir() { return fn_; }
  // Ends the body with `return` and runs the IR verifier (throws InternalError).
  void verify() {
    ir::Builder end(fn_.entry());
    if (!fn_.entry()->terminator())
      end.create(ir::OpKind::Return, {}, {}, {}, loc);
    ir::verify(fn_);
  }

  CompileOptions opts;
  SourceLoc loc{0, 7, 3};
  std::string printed;
  std::map<std::string, Fn> fns;
  std::vector<std::shared_ptr<FunctionSource>> sources;

private:
  ir::Function fn_;
  ir::Builder b_;
};

inline std::string type_of(const Val &v) {
  if (!v.is_tensor())
    return "<not a tensor: " + v.repr() + ">";
  return v.tensor->type.str();
}

// The message of the CompileError `f` throws ("" when it throws none).
template <typename F> std::string error_of(F &&f) {
  try {
    f();
  } catch (const CompileError &e) {
    return e.message();
  }
  return "";
}

} // namespace tilec::sema::test
