#include "ir/IR.h"

#include <algorithm>

#include "ir/RingOps.h"

namespace tilec::ir {

namespace {
struct OpInfo {
  const char *name;
  unsigned traits;
};
const OpInfo kOps[] = {
#define OP(id, name, traits) {name, traits},
#include "ir/Ops.def"
#undef OP
};
constexpr size_t kNumOps = sizeof(kOps) / sizeof(kOps[0]);
} // namespace

std::string_view op_name(OpKind k) { return kOps[static_cast<size_t>(k)].name; }
unsigned op_traits(OpKind k) { return kOps[static_cast<size_t>(k)].traits; }
bool op_kind_from_name(std::string_view name, OpKind &out) {
  for (size_t i = 0; i < kNumOps; ++i)
    if (name == kOps[i].name) {
      out = static_cast<OpKind>(i);
      return true;
    }
  return false;
}

static void remove_use(Value *v, Op *user) {
  auto it = std::find(v->users.begin(), v->users.end(), user);
  TILEC_ASSERT(it != v->users.end(), "use list out of sync");
  v->users.erase(it);
}

void Value::replace_all_uses_with(Value *v) {
  if (v == this)
    return;
  std::vector<Op *> us = users;
  for (Op *u : us)
    for (size_t i = 0; i < u->num_operands(); ++i)
      if (u->operand(i) == this)
        u->set_operand(i, v);
}

Op::~Op() {
  // Regions die first so inner ops release their uses of outer values.
  regions_.clear();
  drop_operands();
}

void Op::set_operand(size_t i, Value *v) {
  Value *&slot = operands_.at(i);
  if (slot)
    remove_use(slot, this);
  slot = v;
  if (v)
    v->users.push_back(this);
}

void Op::add_operand(Value *v) {
  operands_.push_back(v);
  if (v)
    v->users.push_back(this);
}

void Op::drop_operands() {
  for (Value *v : operands_)
    if (v)
      remove_use(v, this);
  operands_.clear();
}

void Op::erase_operand(size_t i) {
  TILEC_ASSERT(i < operands_.size(), "erase_operand: no such operand");
  if (operands_[i])
    remove_use(operands_[i], this);
  operands_.erase(operands_.begin() + static_cast<std::ptrdiff_t>(i));
}

void Op::erase_result(size_t i) {
  TILEC_ASSERT(i < results_.size() && results_[i]->users.empty(),
               "erase_result: a result still used");
  results_.erase(results_.begin() + static_cast<std::ptrdiff_t>(i));
  for (size_t j = i; j < results_.size(); ++j)
    results_[j]->index = static_cast<unsigned>(j);
}

Value *Op::add_result(Type t) {
  auto v = std::make_unique<Value>();
  v->type = std::move(t);
  v->def = this;
  v->index = static_cast<unsigned>(results_.size());
  results_.push_back(std::move(v));
  return results_.back().get();
}

Region *Op::add_region() {
  regions_.push_back(std::make_unique<Region>(this));
  regions_.back()->ensure_block();
  return regions_.back().get();
}

bool Op::has_attr(std::string_view name) const { return attr(name) != nullptr; }

const AttrValue *Op::attr(std::string_view name) const {
  for (const NamedAttr &a : attrs_)
    if (a.name == name)
      return &a.value;
  return nullptr;
}

void Op::set_attr(std::string name, AttrValue v) {
  for (NamedAttr &a : attrs_)
    if (a.name == name) {
      a.value = std::move(v);
      return;
    }
  attrs_.push_back({std::move(name), std::move(v)});
}

void Op::erase_attr(std::string_view name) {
  std::erase_if(attrs_, [&](const NamedAttr &a) { return a.name == name; });
}

int64_t Op::int_attr(std::string_view name, int64_t def) const {
  const AttrValue *a = attr(name);
  if (!a)
    return def;
  if (auto *i = std::get_if<int64_t>(a))
    return *i;
  if (auto *d = std::get_if<double>(a))
    return static_cast<int64_t>(*d);
  return def;
}

double Op::float_attr(std::string_view name, double def) const {
  const AttrValue *a = attr(name);
  if (!a)
    return def;
  if (auto *d = std::get_if<double>(a))
    return *d;
  if (auto *i = std::get_if<int64_t>(a))
    return static_cast<double>(*i);
  return def;
}

std::string Op::str_attr(std::string_view name, std::string def) const {
  const AttrValue *a = attr(name);
  if (auto *s = a ? std::get_if<std::string>(a) : nullptr)
    return *s;
  return def;
}

std::vector<int64_t> Op::ints_attr(std::string_view name) const {
  const AttrValue *a = attr(name);
  if (auto *v = a ? std::get_if<std::vector<int64_t>>(a) : nullptr)
    return *v;
  return {};
}

std::list<std::unique_ptr<Op>>::iterator Op::self_iterator() {
  TILEC_ASSERT(parent_, "op has no parent block");
  auto &ops = parent_->ops();
  for (auto it = ops.begin(); it != ops.end(); ++it)
    if (it->get() == this)
      return it;
  throw_internal(__FILE__, __LINE__, "op not found in its parent block");
}

void Op::erase() {
  for (auto &r : results_)
    TILEC_ASSERT(r->users.empty(),
                 std::string("erasing ") + std::string(name()) + " whose result is still used");
  Block *b = parent_;
  TILEC_ASSERT(b, "erasing an op with no parent");
  b->ops().erase(self_iterator()); // destroys *this
}

Block::~Block() {
  while (!ops_.empty())
    ops_.pop_back();
}

void Block::erase_arg(size_t i) {
  TILEC_ASSERT(i < args_.size() && args_[i]->users.empty(), "erase_arg: an argument still used");
  args_.erase(args_.begin() + static_cast<std::ptrdiff_t>(i));
  for (size_t j = i; j < args_.size(); ++j)
    args_[j]->index = static_cast<unsigned>(j);
}

Value *Block::add_arg(Type t) {
  auto v = std::make_unique<Value>();
  v->type = std::move(t);
  v->owner = this;
  v->index = static_cast<unsigned>(args_.size());
  args_.push_back(std::move(v));
  return args_.back().get();
}

Op *Block::terminator() const {
  if (ops_.empty())
    return nullptr;
  Op *last = ops_.back().get();
  return is_terminator(last->kind()) ? last : nullptr;
}

Op *Block::insert(std::list<std::unique_ptr<Op>>::iterator pos, std::unique_ptr<Op> op) {
  op->parent_ = this;
  return ops_.insert(pos, std::move(op))->get();
}

std::unique_ptr<Op> Block::take(Op *op) {
  auto it = op->self_iterator();
  std::unique_ptr<Op> owned = std::move(*it);
  ops_.erase(it);
  owned->parent_ = nullptr;
  return owned;
}

Block *Region::ensure_block() {
  if (!block_) {
    block_ = std::make_unique<Block>();
    block_->parent_ = this;
  }
  return block_.get();
}

Function *Module::add_function(std::string name) {
  functions.push_back(std::make_unique<Function>());
  functions.back()->name = std::move(name);
  return functions.back().get();
}

int64_t Module::int_attr(std::string_view name, int64_t def) const {
  for (const NamedAttr &a : attrs)
    if (a.name == name)
      if (auto *v = std::get_if<int64_t>(&a.value))
        return *v;
  return def;
}

Function *Module::lookup(std::string_view name) const {
  for (auto &f : functions)
    if (f->name == name)
      return f.get();
  return nullptr;
}

Op *Builder::create(OpKind kind, const std::vector<Value *> &operands,
                    const std::vector<Type> &result_types, std::vector<NamedAttr> attrs,
                    SourceLoc loc, unsigned num_regions) {
  TILEC_ASSERT(block_, "builder has no insertion point");
  auto op = std::make_unique<Op>(kind, loc);
  for (Value *v : operands)
    op->add_operand(v);
  for (const Type &t : result_types)
    op->add_result(t);
  for (NamedAttr &a : attrs)
    op->set_attr(std::move(a.name), std::move(a.value));
  for (unsigned i = 0; i < num_regions; ++i)
    op->add_region();
  return block_->insert(pos_, std::move(op));
}

Value *Builder::constant_int(Type t, int64_t v, SourceLoc loc) {
  return create(OpKind::Constant, {}, {t}, {{"value", v}}, loc)->result();
}

Value *Builder::constant_float(Type t, double v, SourceLoc loc) {
  return create(OpKind::Constant, {}, {t}, {{"value", v}}, loc)->result();
}

bool defined_outside(const Value *v, const Op *op) {
  for (const Block *b = v->def ? v->def->parent() : v->owner; b;) {
    const Op *owner = b->parent() ? b->parent()->parent() : nullptr;
    if (owner == op)
      return false;
    b = owner ? owner->parent() : nullptr;
  }
  return true;
}

bool has_schedule_barriers(Block *b, bool stores_ok) {
  bool found = false;
  walk(b, [&](Op *op) {
    OpKind k = op->kind();
    found = found || (k == OpKind::Store && !stores_ok) || k == OpKind::AtomicRmw ||
            k == OpKind::AtomicCas || k == OpKind::Barrier || k == OpKind::Print ||
            k == OpKind::Assert || k == OpKind::GridDepControl || is_ring_op(k);
  });
  return found;
}

Op *clone(const Op &op, Builder &b, std::map<const Value *, Value *> &map) {
  std::vector<Value *> ops;
  for (Value *v : op.operands()) {
    auto it = map.find(v);
    ops.push_back(it == map.end() ? v : it->second);
  }
  std::vector<Type> types;
  for (size_t i = 0; i < op.num_results(); ++i)
    types.push_back(op.result(i)->type);
  Op *c = b.create(op.kind(), ops, types, op.attrs(), op.loc(),
                   static_cast<unsigned>(op.num_regions()));
  for (size_t i = 0; i < op.num_results(); ++i)
    map[op.result(i)] = c->result(i);
  for (size_t r = 0; r < op.num_regions(); ++r) {
    const Block *from = op.region(r)->block();
    Block *to = c->region(r)->ensure_block();
    for (size_t i = 0; i < from->num_args(); ++i)
      map[from->arg(i)] = to->add_arg(from->arg(i)->type);
    Builder in(to);
    for (const auto &inner : from->ops())
      clone(*inner, in, map);
  }
  return c;
}

} // namespace tilec::ir
