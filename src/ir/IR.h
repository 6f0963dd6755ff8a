// Tile IR: SSA values, ops, blocks and regions. Block-level semantics; no threads.
// Ops own their results and regions; blocks own their arguments and ops.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/Type.h"
#include "support/Diagnostics.h"

namespace tilec::ir {

enum class OpKind : uint16_t {
#define OP(id, name, traits) id,
#include "ir/Ops.def"
#undef OP
};

enum OpTrait : unsigned { kPure = 1, kTerminator = 2, kElementwise = 4 };

std::string_view op_name(OpKind k);
unsigned op_traits(OpKind k);
bool op_kind_from_name(std::string_view name, OpKind &out);
inline bool is_pure(OpKind k) { return op_traits(k) & kPure; }
inline bool is_terminator(OpKind k) { return op_traits(k) & kTerminator; }
inline bool is_elementwise(OpKind k) { return op_traits(k) & kElementwise; }

class Op;
class Block;
class Region;

class Value {
public:
  Type type;
  Op *def = nullptr;       // defining op, or null for a block argument
  Block *owner = nullptr;  // the block of a block argument
  unsigned index = 0;      // result number or argument number
  std::vector<Op *> users; // one entry per use (an op using it twice appears twice)

  bool is_block_arg() const { return def == nullptr; }
  void replace_all_uses_with(Value *v);
};

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>>;
struct NamedAttr {
  std::string name;
  AttrValue value;
};

class Op {
public:
  Op(OpKind kind, SourceLoc loc) : kind_(kind), loc_(loc) {}
  ~Op();
  Op(const Op &) = delete;
  Op &operator=(const Op &) = delete;

  OpKind kind() const { return kind_; }
  std::string_view name() const { return op_name(kind_); }
  SourceLoc loc() const { return loc_; }
  void set_loc(SourceLoc l) { loc_ = l; }
  Block *parent() const { return parent_; }

  // operands
  size_t num_operands() const { return operands_.size(); }
  Value *operand(size_t i) const { return operands_.at(i); }
  const std::vector<Value *> &operands() const { return operands_; }
  void set_operand(size_t i, Value *v);
  void add_operand(Value *v);
  void drop_operands();         // detach from all operands (before erasing)
  void erase_operand(size_t i); // the later operands move down

  // results
  size_t num_results() const { return results_.size(); }
  Value *result(size_t i = 0) const { return results_.at(i).get(); }
  Value *add_result(Type t);
  void erase_result(size_t i); // an unused result; the later ones move down

  // regions (one block each: control flow is structured)
  size_t num_regions() const { return regions_.size(); }
  Region *region(size_t i) const { return regions_.at(i).get(); }
  Region *add_region();

  // attributes
  const std::vector<NamedAttr> &attrs() const { return attrs_; }
  bool has_attr(std::string_view name) const;
  const AttrValue *attr(std::string_view name) const;
  void set_attr(std::string name, AttrValue v);
  void erase_attr(std::string_view name);
  int64_t int_attr(std::string_view name, int64_t def = 0) const;
  double float_attr(std::string_view name, double def = 0) const;
  std::string str_attr(std::string_view name, std::string def = "") const;
  std::vector<int64_t> ints_attr(std::string_view name) const;

  // the block this op is in, and its position
  std::list<std::unique_ptr<Op>>::iterator self_iterator();
  void erase(); // removes from the parent block (must have no used results)

private:
  friend class Block;
  OpKind kind_;
  SourceLoc loc_;
  Block *parent_ = nullptr;
  std::vector<Value *> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  std::vector<std::unique_ptr<Region>> regions_;
  std::vector<NamedAttr> attrs_;
};

class Block {
public:
  Block() = default;
  ~Block(); // destroys ops last-to-first, so users die before the values they use
  Block(const Block &) = delete;
  Block &operator=(const Block &) = delete;
  Region *parent() const { return parent_; }
  Value *add_arg(Type t);
  void erase_arg(size_t i); // an unused argument; the later ones move down
  size_t num_args() const { return args_.size(); }
  Value *arg(size_t i) const { return args_.at(i).get(); }
  std::list<std::unique_ptr<Op>> &ops() { return ops_; }
  const std::list<std::unique_ptr<Op>> &ops() const { return ops_; }
  Op *terminator() const; // the last op if it is a terminator, else null
  // Take ownership of `op`, inserting it before `pos`.
  Op *insert(std::list<std::unique_ptr<Op>>::iterator pos, std::unique_ptr<Op> op);
  Op *append(std::unique_ptr<Op> op) { return insert(ops_.end(), std::move(op)); }
  std::unique_ptr<Op> take(Op *op); // detach without destroying

private:
  friend class Region;
  Region *parent_ = nullptr;
  std::vector<std::unique_ptr<Value>> args_;
  std::list<std::unique_ptr<Op>> ops_;
};

class Region {
public:
  explicit Region(Op *parent) : parent_(parent) {}
  Op *parent() const { return parent_; } // null for a function body
  Block *block() const { return block_.get(); }
  Block *ensure_block();

private:
  Op *parent_;
  std::unique_ptr<Block> block_;
};

// A kernel after inlining: one body region whose block arguments are the run-time
// kernel arguments (constexpr and specialised-away parameters do not appear).
class Function {
public:
  std::string name;
  std::vector<std::string> arg_names; // one per body argument, the Python parameter name
  SourceLoc loc;
  Region body{nullptr};
  Function() { body.ensure_block(); }
  Block *entry() const { return body.block(); }
};

class Module {
public:
  std::vector<std::unique_ptr<Function>> functions;
  std::vector<NamedAttr> attrs; // e.g. num_warps
  Function *add_function(std::string name);
  // The integer attribute `name` (num_warps, num_stages, wgmma, ...), or `def` when absent.
  int64_t int_attr(std::string_view name, int64_t def) const;
  Function *lookup(std::string_view name) const;
};

// Visit every op, outer before inner, in program order.
template <typename F> void walk(Block *b, F &&f);
template <typename F> void walk(Op *op, F &&f) {
  f(op);
  for (size_t i = 0; i < op->num_regions(); ++i)
    if (Block *b = op->region(i)->block())
      walk(b, f);
}
template <typename F> void walk(Block *b, F &&f) {
  for (auto it = b->ops().begin(); it != b->ops().end();) {
    Op *op = (it++)->get(); // f may erase op
    walk(op, f);
  }
}

// Visit every `for` op, loops nested in a loop's body before that loop, in program order
// (the loop passes: LICM, StrengthReduce, PipelineLoads, PipelineLoops). f may add ops
// before or after the loop and move or erase ops of its body.
template <typename F> void for_each_loop(Block &b, F &&f) {
  for (auto it = b.ops().begin(); it != b.ops().end();) {
    Op *op = (it++)->get(); // past it: f may insert next to it
    for (size_t r = 0; r < op->num_regions(); ++r)
      if (Block *inner = op->region(r)->block())
        for_each_loop(*inner, f);
    if (op->kind() == OpKind::For)
      f(*op);
  }
}

// Whether `v` is defined outside `op` (not in a block nested in one of its regions).
bool defined_outside(const Value *v, const Op *op);

class Builder;
// A copy of `op`, its regions included, made with `b`; operands through `map` (values not
// in it are used as they are), which gains the copy's values.
Op *clone(const Op &op, Builder &b, std::map<const Value *, Value *> &map);

// Whether `b` (nested regions included) holds an op loads may not be moved across by a
// loop schedule: a store, atomic, barrier, print, assert, grid-dependency control, or a
// shared-memory ring op (a loop pipelined already). PipelineLoads and the rings leave
// such loops alone. `stores_ok`: stores do not count (a flattened loop's epilogue:
// FlattenLoops.h).
bool has_schedule_barriers(Block *b, bool stores_ok = false);

// Creates ops at an insertion point.
class Builder {
public:
  Builder() = default;
  explicit Builder(Block *b) { set_insertion_point_to_end(b); }
  void set_insertion_point_to_end(Block *b) {
    block_ = b;
    pos_ = b->ops().end();
  }
  void set_insertion_point(Op *before) {
    block_ = before->parent();
    pos_ = before->self_iterator();
  }
  Block *block() const { return block_; }

  Op *create(OpKind kind, const std::vector<Value *> &operands,
             const std::vector<Type> &result_types, std::vector<NamedAttr> attrs = {},
             SourceLoc loc = {}, unsigned num_regions = 0);

  // Shorthands for the most common single-result ops.
  Value *constant_int(Type t, int64_t v, SourceLoc loc = {});
  Value *constant_float(Type t, double v, SourceLoc loc = {});

private:
  Block *block_ = nullptr;
  std::list<std::unique_ptr<Op>>::iterator pos_;
};

} // namespace tilec::ir
