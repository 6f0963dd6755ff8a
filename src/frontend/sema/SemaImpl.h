// The AST walker behind sema::lower_kernel (private to src/frontend/sema).
//
// One Lowerer compiles one kernel specialisation. It is the Emitter the operator and
// builtin code builds IR through. Files: Sema.cpp (entry, kernel parameters, Emitter),
// SemaStmt.cpp (statements, `if`), SemaLoop.cpp (`for`, `while`, static_range),
// SemaExpr.cpp (expressions, attributes, f-strings), SemaCall.cpp (calls, inlining),
// SemaMerge.cpp (merging values where control flow joins).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frontend/Ast.h"
#include "frontend/sema/Builtins.h"
#include "frontend/sema/EmitUtil.h"
#include "frontend/sema/Emitter.h"

namespace tilec::sema::detail {

// Python builtins (min, max, float, range, ...) are Builtin vals whose name carries this
// prefix, so that `min` (Python's) and `tl.min` (the reduction) stay distinct.
inline constexpr std::string_view kPyBuiltinPrefix = "builtins.";

inline constexpr int64_t kMaxLoweredStatements = 100'000;

// Local variables of one function, ordered by name so merges are deterministic.
using Scope = std::map<std::string, Val>;

// A @jit function's source, registered and parsed once per compilation.
struct ParsedFunction {
  std::shared_ptr<const FunctionSource> src;
  int file = -1;
  ast::Module module;
  const ast::FunctionDefStmt *def = nullptr;
};

// The function being lowered: the kernel or an inlined callee.
struct Frame {
  const ParsedFunction *fn = nullptr;
  Scope scope;
  bool is_kernel = false;
  int loop_depth = 0; // enclosing for/while bodies of *this* function
  SourceLoc stmt_loc; // the statement being lowered (with debug stops: a caller's call line)
};

// A tl.static_range loop to unroll: its body once per iteration, with the loop variable
// bound to start + k * step (a constexpr).
struct StaticUnroll {
  const ast::ForStmt *loop = nullptr;
  std::string var;
  int64_t start = 0, step = 1, count = 0;
};

// The rest of a function after the statement being lowered: `stmts[start:]` (or, with
// `unroll`, iterations `iter`.. of an unrolled loop whose body may return), then `next`.
// An `if` containing `return` lowers the rest into its branches.
struct Cont {
  const ast::StmtList *stmts = nullptr;
  size_t start = 0;
  const Cont *next = nullptr;
  const StaticUnroll *unroll = nullptr;
  int64_t iter = 0;
  // Set once one branch has lowered it: the other branch's copy prints nothing, so
  // static_print output appears once, as in Triton.
  mutable bool lowered = false;
};

// How a statement sequence ended: by `return` (with its value) or by falling off.
struct Exit {
  bool returned = false;
  Val value; // None when falling off or `return` without a value
  SourceLoc loc;
};

// A value flowing into a join point (if results, loop-carried values) from two sides.
// `a`/`b` are the two incoming leaves; `name` is the variable (with a tuple path).
struct JoinLeaf {
  std::string name;
  Val a, b;
};

// Builds the message for two values that cannot be joined: (variable, type a, type b).
using MismatchMsg =
    std::function<std::string(const std::string &, const std::string &, const std::string &)>;

// Where the two sides of a join put their leaves: the template holds the joined value
// with holes (Tensor vals with tensor == nullptr and i = leaf index).
struct JoinPlan {
  Val tmpl;
  std::vector<JoinLeaf> leaves;
};

// The variables a loop carries: per variable its join plan (side a: the value before
// the loop), and the type of each leaf after one trial iteration.
struct LoopCarry {
  std::vector<std::string> names;
  std::vector<JoinPlan> plans;
  std::vector<ir::Type> body_types;
};

class Lowerer final : public Emitter {
public:
  Lowerer(const CompileOptions &opts, SourceManager &sm, bool debug_stops = false)
      : opts_(opts), sm_(sm), debug_stops_(debug_stops) {}
  Val eval_list_comp(const ast::ListCompExpr &e);
  Val construct_named_tuple(const Val &cls, const CallArgs &args);
  Val call_host_function(const HostFunction &h, const CallArgs &args);
  Val parameter_value(ir::Function &fn, const std::string &name, const ArgSpec &spec,
                      std::vector<int64_t> &divisibility, SourceLoc loc);
  SemaResult run(const std::shared_ptr<const FunctionSource> &kernel,
                 const std::vector<ArgSpec> &args);

  // Emitter
  ir::Builder &builder() override { return b_; }
  const CompileOptions &options() const override { return opts_; }
  Val call_function(const Val &fn, std::vector<Val> args, SourceLoc loc) override;
  Val attribute(const Val &base, const std::string &attr, SourceLoc loc) override {
    return attribute_of(base, attr, loc);
  }
  void static_print(const std::string &text) override;
  std::string file_path(SourceLoc loc) const override;
  std::string function_name() const override;
  void breakpoint(SourceLoc loc) override;
  void warn(SourceLoc loc, const std::string &msg) override;

  // --- the kernel debugger's stop points (SemaDebug.cpp) ---
  // A `breakpoint` op at `loc` holding the variables of every frame (kind 0: before a
  // statement, 1: breakpoint() itself). Only with debug_stops_, never in combiner regions.
  void emit_stop(SourceLoc loc, int64_t kind);
  // Whether lowering met breakpoint() (lower_kernel then lowers again with debug stops).
  bool saw_breakpoint() const { return saw_breakpoint_; }

  // --- statements (SemaStmt.cpp) ---
  Exit lower_seq(const ast::StmtList &stmts, size_t start, const Cont *next);
  void lower_stmt(const ast::Stmt &s);
  // `tl.multiple_of(x, ...)` (or max_contiguous / max_constancy) as a statement: rebinds x
  // to the hinted value (SemaStmt.cpp).
  void keep_statement_hint(const ast::Expr &e, const Val &result);
  void lower_assign(const ast::AssignStmt &s);
  void lower_aug_assign(const ast::AugAssignStmt &s);
  void lower_ann_assign(const ast::AnnAssignStmt &s);
  void assign_target(const ast::Expr &target, const Val &value);
  void lower_if(const ast::IfStmt &s);
  Exit lower_returning_if(const ast::IfStmt &s, const Val &cond, const Cont &rest);
  void lower_assert(const ast::AssertStmt &s);
  [[noreturn]] void reject_stmt(const ast::Stmt &s);

  // --- loops (SemaLoop.cpp) ---
  // With `defer`, a tl.static_range loop is not lowered but described in *defer (its
  // `loop` set), so that lower_seq unrolls it as a continuation: a `return` in its body
  // then ends the function, the rest going where the return is not taken.
  void lower_for(const ast::ForStmt &s, StaticUnroll *defer = nullptr);
  void lower_while(const ast::WhileStmt &s);
  void lower_static_range(const ast::ForStmt &s, const CallArgs &args, StaticUnroll *defer);
  void lower_range_for(const ast::ForStmt &s, const Val &start, const Val &end, const Val &step,
                       std::vector<ir::NamedAttr> attrs);
  // Lowers `body` once into a scratch block that is thrown away and compares the scope
  // it leaves with the current one: the variables it changes are loop-carried (this is
  // how Triton finds them). `iv_type`: the loop variable's placeholder, if any.
  LoopCarry find_carries(const ast::StmtList &body, const std::string &iv_name,
                         const ir::Type *iv_type, SourceLoc loc);
  // The carried values' initial IR values, emitted at the insertion point.
  std::vector<ir::Value *> carried_inits(const LoopCarry &c, SourceLoc loc);
  // The carried values at the end of the loop body, for its yield.
  std::vector<ir::Value *> carried_yields(const LoopCarry &c, const std::vector<ir::Type> &types,
                                          SourceLoc loc);
  // Rebinds the carried variables to `values` (block arguments or loop results).
  void bind_carried(const LoopCarry &c, const std::vector<ir::Value *> &values);

  // --- expressions (SemaExpr.cpp) ---
  Val eval(const ast::Expr &e);
  Val lookup(const std::string &name, SourceLoc loc);
  // A global of the current function (a dotted path for a user module's attribute).
  Val lookup_global(const std::string &name, SourceLoc loc);
  Val eval_attribute(const ast::AttributeExpr &e);
  Val attribute_of(const Val &base, const std::string &attr, SourceLoc loc);
  Val eval_fstring(const ast::FStringExpr &e);
  Val eval_if_exp(const ast::IfExpExpr &e);
  Val eval_bool_op(const ast::BoolOpExpr &e);
  Val eval_compare(const ast::CompareExpr &e);
  std::vector<Val> eval_elements(const std::vector<ast::ExprPtr> &elts);

  // --- calls (SemaCall.cpp) ---
  Val eval_call(const ast::CallExpr &e);
  CallArgs eval_call_args(const ast::CallExpr &e);
  Val call_value(const Val &fn, CallArgs args, const ast::Expr &callee);
  Val call_dtype_method(const Val &self, const std::string &name, const CallArgs &args);
  Val inline_call(const Val &fn, CallArgs args);
  const ParsedFunction &parsed(const std::shared_ptr<const FunctionSource> &src, SourceLoc loc);

  // --- joins (SemaMerge.cpp) ---
  // Pairs up `a` and `b` (same tuple structure); leaves that differ become holes.
  // Throws CompileError(loc, msg(name, type of a, type of b)) when they cannot join.
  JoinPlan plan_join(const Val &a, const Val &b, const std::string &name, SourceLoc loc,
                     const MismatchMsg &msg);
  // Emits each leaf's IR value on side a (at `ba`) and side b (at `bb`), appending to
  // `va`/`vb`; both sides' types must agree.
  void realize_join(const JoinPlan &plan, ir::Builder &ba, ir::Builder &bb,
                    std::vector<ir::Value *> &va, std::vector<ir::Value *> &vb, SourceLoc loc,
                    const MismatchMsg &msg);
  // The IR value of a join leaf: a tensor as is, a number through literal typing.
  ir::Value *leaf_value(const Val &v, SourceLoc loc);
  static Val fill_holes(const Val &tmpl, const std::vector<ir::Value *> &values);

  // --- helpers ---
  Frame &frame() { return *frames_.back(); }
  const Frame &frame() const { return *frames_.back(); }
  void set_var(const std::string &name, Val v) { frame().scope[name] = std::move(v); }
  // Triton's assignment rule: Python numbers become tensors (literal typing).
  Val sanitize_assigned(const Val &v, SourceLoc loc);
  ir::Value *emit_condition(const Val &cond, SourceLoc loc);
  // The constexpr truth of an `if` / conditional-expression test.
  bool constexpr_truth(const Val &cond, SourceLoc loc);

  ir::Builder b_;
  CompileOptions opts_;
  SourceManager &sm_;
  std::string static_out_;
  std::vector<std::string> warnings_; // "file:line: message", reported once lowering is done
  int dry_run_depth_ = 0; // lowering a loop body on trial
  int quiet_ = 0;         // lowering a second copy of a continuation
  // Statements left to lower: unrolling, inlining and copies after early returns can
  // multiply a kernel's size, so a pathological kernel fails instead of hanging.
  int64_t stmt_budget_ = kMaxLoweredStatements;
  std::map<const FunctionSource *, std::unique_ptr<ParsedFunction>> parsed_;
  std::vector<Frame *> frames_;
  bool debug_stops_ = false;   // emit a stop before every statement (kernels with breakpoint())
  bool saw_breakpoint_ = false;
  int no_stops_ = 0;           // inside a combiner region (tl.reduce's function): no stops
  const ast::Expr *dropped_ = nullptr; // an expression statement's call: its value is dropped
};

// RAII: runs a function body in `f`, restoring the frame stack on exit.
class FrameGuard {
public:
  FrameGuard(Lowerer &l, Frame &f) : l_(l) { l_.frames_.push_back(&f); }
  ~FrameGuard() { l_.frames_.pop_back(); }
  FrameGuard(const FrameGuard &) = delete;
  FrameGuard &operator=(const FrameGuard &) = delete;

private:
  Lowerer &l_;
};

// Detaches every op nested in `b` from its operands, so the block can be destroyed in
// any order (ops of a discarded dry run still use values of the enclosing function).
void drop_all_uses(ir::Block *b);

// Python-ish names used in messages.
std::string value_type_str(const Val &v);   // a tensor's type ("fp32[constexpr[64]]") or py_type_name
std::string ir_type_str(const ir::Type &t); // "int32", "fp32[constexpr[64]]"
bool is_py_number(const Val &v);            // Bool, Int or Float constexpr
bool same_val(const Val &a, const Val &b);  // the same constexpr or the same IR value
bool is_constexpr_annotation(const ast::Expr *annotation);
bool contains_return(const ast::StmtList &stmts);
std::string unparse(const ast::Expr &e); // an expression as text, for messages

// Python's format(value, spec) for numbers and strings (SemaFormat.cpp).
std::string format_value(const Val &v, const std::string &spec, SourceLoc loc);
std::string py_float_repr(double v);
std::string py_str_repr(const std::string &s); // 'text' with Python's escapes
std::string py_str(const Val &v);              // str(v)
std::string py_repr(const Val &v);             // repr(v)

} // namespace tilec::sema::detail
