#include "transforms/CSE.h"

#include <algorithm>
#include <unordered_map>

#include "ir/Printer.h"

namespace tilec::transforms {

using namespace ir;

namespace {

bool commutative(OpKind k) {
  return k == OpKind::Add || k == OpKind::Mul || k == OpKind::And || k == OpKind::Or ||
         k == OpKind::Xor;
}

// Two ops with equal keys compute the same values.
std::string key_of(const Op &op) {
  std::vector<const Value *> operands(op.operands().begin(), op.operands().end());
  if (commutative(op.kind()))
    std::sort(operands.begin(), operands.end(), std::less<const Value *>());
  std::string k = std::to_string(static_cast<int>(op.kind()));
  for (const Value *v : operands)
    k += " " + std::to_string(reinterpret_cast<uintptr_t>(v));
  std::vector<std::string> attrs;
  for (const NamedAttr &a : op.attrs())
    attrs.push_back(a.name + "=" + format_attr_value(a.value));
  std::sort(attrs.begin(), attrs.end());
  for (const std::string &a : attrs)
    k += " {" + a + "}";
  for (size_t i = 0; i < op.num_results(); ++i)
    k += " : " + op.result(i)->type.str();
  return k;
}

class CSE {
public:
  void block(Block &b) {
    scopes_.emplace_back();
    for (auto it = b.ops().begin(); it != b.ops().end();) {
      Op *op = (it++)->get();
      if (is_pure(op->kind()) && op->num_regions() == 0 && op->num_results() > 0) {
        std::string k = key_of(*op);
        if (Op *prev = lookup(k)) {
          for (size_t i = 0; i < op->num_results(); ++i)
            op->result(i)->replace_all_uses_with(prev->result(i));
          op->erase();
          continue;
        }
        scopes_.back()[k] = op;
      }
      for (size_t r = 0; r < op->num_regions(); ++r)
        block(*op->region(r)->block());
    }
    scopes_.pop_back();
  }

private:
  Op *lookup(const std::string &k) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      auto f = s->find(k);
      if (f != s->end())
        return f->second;
    }
    return nullptr;
  }

  std::vector<std::unordered_map<std::string, Op *>> scopes_;
};

} // namespace

void cse(Module &m) {
  for (auto &f : m.functions)
    CSE().block(*f->entry());
}

} // namespace tilec::transforms
