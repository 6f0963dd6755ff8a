#include "analysis/AxisInfo.h"

#include <algorithm>

#include "analysis/AxisInfoRules.h"
#include "ir/Printer.h"

namespace tilec::analysis {

using ir::OpKind;
using rules::gcd;

AxisInfo AxisInfo::unknown(int rank) {
  AxisInfo a;
  a.divisibility.assign(rank, 1);
  a.contiguity.assign(rank, 1);
  a.constancy.assign(rank, 1);
  return a;
}

AxisInfo AxisInfo::of_constant(int64_t v, const std::vector<int64_t> &shape) {
  AxisInfo a = unknown(static_cast<int>(shape.size()));
  a.divisibility.assign(shape.size(), rules::pow2_divisor(v));
  a.constancy = shape;
  a.constant = v;
  return a;
}

AxisInfo AxisInfo::meet(const AxisInfo &a, const AxisInfo &b) {
  if (a.rank() != b.rank())
    return unknown(std::max(a.rank(), b.rank()));
  AxisInfo r = a;
  for (int d = 0; d < a.rank(); ++d) {
    r.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
    r.contiguity[d] = gcd(a.contiguity[d], b.contiguity[d]);
    r.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
  }
  r.constant = a.constant == b.constant ? a.constant : std::nullopt;
  return r;
}

std::string AxisInfo::str() const {
  auto list = [](const std::vector<int64_t> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
  };
  std::string s =
      "div=" + list(divisibility) + ", contig=" + list(contiguity) + ", const=" + list(constancy);
  if (constant)
    s += ", value=" + std::to_string(*constant);
  return s;
}

AxisInfoAnalysis::AxisInfoAnalysis(const ir::Function &fn, const ir::Module *module) {
  std::vector<int64_t> div;
  if (module)
    for (const ir::NamedAttr &a : module->attrs)
      if (a.name == "tt.divisibility" && std::holds_alternative<std::vector<int64_t>>(a.value))
        div = std::get<std::vector<int64_t>>(a.value);
  const ir::Block *entry = fn.entry();
  for (size_t i = 0; i < entry->num_args(); ++i) {
    const ir::Value *arg = entry->arg(i);
    AxisInfo a = AxisInfo::unknown(static_cast<int>(rules::dims_of(arg->type).size()));
    bool integral = arg->type.is_ptr() || !ir::is_float(arg->type.elem);
    if (integral && i < div.size() && div[i] > 1)
      a.divisibility.assign(a.rank(), rules::pow2_divisor(div[i]));
    set(arg, a);
  }
  run_block(*entry);
}

const AxisInfo &AxisInfoAnalysis::get(const ir::Value *v) const {
  auto it = info_.find(v);
  if (it != info_.end())
    return it->second;
  int rank = v ? static_cast<int>(rules::dims_of(v->type).size()) : 1;
  auto u = unknown_.find(rank);
  if (u == unknown_.end())
    u = unknown_.emplace(rank, AxisInfo::unknown(rank)).first;
  return u->second;
}

void AxisInfoAnalysis::set(const ir::Value *v, AxisInfo a) {
  // contiguity and constancy never exceed the dim
  std::vector<int64_t> dims = rules::dims_of(v->type);
  if (a.rank() != static_cast<int>(dims.size()))
    a = AxisInfo::unknown(static_cast<int>(dims.size()));
  for (size_t d = 0; d < dims.size(); ++d) {
    a.contiguity[d] = std::max<int64_t>(1, std::min(a.contiguity[d], dims[d]));
    a.constancy[d] = std::max<int64_t>(1, std::min(a.constancy[d], dims[d]));
    a.divisibility[d] = std::max<int64_t>(1, a.divisibility[d]);
  }
  info_[v] = std::move(a);
}

std::vector<AxisInfo> AxisInfoAnalysis::infos(const std::vector<ir::Value *> &vs) const {
  std::vector<AxisInfo> r;
  for (const ir::Value *v : vs)
    r.push_back(get(v));
  return r;
}

void AxisInfoAnalysis::run_block(const ir::Block &b) {
  for (const auto &op : b.ops())
    run_op(*op);
}

namespace {

std::vector<ir::Value *> terminator_operands(const ir::Block &b, size_t skip = 0) {
  std::vector<ir::Value *> vs;
  if (const ir::Op *t = b.terminator())
    for (size_t i = skip; i < t->num_operands(); ++i)
      vs.push_back(t->operand(i));
  return vs;
}

constexpr int kMaxIterations = 32;

} // namespace

void AxisInfoAnalysis::run_op(const ir::Op &op) {
  switch (op.kind()) {
  case OpKind::For:
    return run_for(op);
  case OpKind::While:
    return run_while(op);
  case OpKind::If: {
    for (size_t r = 0; r < op.num_regions(); ++r)
      run_block(*op.region(r)->block());
    std::vector<AxisInfo> a = infos(terminator_operands(*op.region(0)->block()));
    std::vector<AxisInfo> b = infos(terminator_operands(*op.region(1)->block()));
    for (size_t i = 0; i < op.num_results(); ++i)
      set(op.result(i),
          i < a.size() && i < b.size() ? AxisInfo::meet(a[i], b[i]) : AxisInfo::unknown(1));
    return;
  }
  case OpKind::WarpSpecialize: // no results: its regions' values
    for (size_t r = 0; r < op.num_regions(); ++r)
      run_block(*op.region(r)->block());
    return;
  case OpKind::Reduce:
  case OpKind::Scan: {
    const ir::Block *body = op.region(0)->block();
    for (size_t i = 0; i < body->num_args(); ++i)
      set(body->arg(i), AxisInfo::unknown(1));
    run_block(*body);
    break; // results: the rules give unknown
  }
  default:
    break;
  }
  std::vector<const AxisInfo *> in;
  for (size_t i = 0; i < op.num_operands(); ++i)
    in.push_back(&get(op.operand(i)));
  for (size_t i = 0; i < op.num_results(); ++i)
    set(op.result(i), rules::transfer(op, in, i));
}

void AxisInfoAnalysis::run_for(const ir::Op &op) {
  const ir::Block *body = op.region(0)->block();
  const AxisInfo &lb = get(op.operand(0)), &step = get(op.operand(2));
  AxisInfo iv = AxisInfo::unknown(1);
  iv.divisibility[0] = gcd(lb.divisibility[0], step.divisibility[0]);
  if (step.constant == 0) // a zero step never advances
    iv = lb;
  set(body->arg(0), iv);
  std::vector<AxisInfo> cur =
      infos(std::vector<ir::Value *>(op.operands().begin() + 3, op.operands().end()));
  for (int it = 0;; ++it) {
    for (size_t i = 0; i < cur.size(); ++i)
      set(body->arg(i + 1), cur[i]);
    run_block(*body);
    std::vector<AxisInfo> y = infos(terminator_operands(*body));
    bool changed = false;
    for (size_t i = 0; i < cur.size() && i < y.size(); ++i) {
      AxisInfo m = AxisInfo::meet(cur[i], get(body->arg(i + 1)));
      m = AxisInfo::meet(m, y[i]);
      if (!(m == cur[i])) {
        cur[i] = m;
        changed = true;
      }
    }
    if (!changed)
      break;
    if (it == kMaxIterations) { // give up: nothing known about the carried values
      for (size_t i = 0; i < cur.size(); ++i)
        cur[i] = AxisInfo::unknown(cur[i].rank());
      for (size_t i = 0; i < cur.size(); ++i)
        set(body->arg(i + 1), cur[i]);
      run_block(*body);
      break;
    }
  }
  for (size_t i = 0; i < op.num_results(); ++i)
    set(op.result(i), get(body->arg(i + 1)));
}

void AxisInfoAnalysis::run_while(const ir::Op &op) {
  const ir::Block *before = op.region(0)->block();
  const ir::Block *after = op.region(1)->block();
  std::vector<AxisInfo> cur = infos(op.operands());
  for (int it = 0;; ++it) {
    for (size_t i = 0; i < cur.size() && i < before->num_args(); ++i)
      set(before->arg(i), cur[i]);
    run_block(*before);
    std::vector<AxisInfo> fwd = infos(terminator_operands(*before, 1));
    for (size_t i = 0; i < fwd.size() && i < after->num_args(); ++i)
      set(after->arg(i), fwd[i]);
    run_block(*after);
    std::vector<AxisInfo> y = infos(terminator_operands(*after));
    bool changed = false;
    for (size_t i = 0; i < cur.size() && i < y.size(); ++i) {
      AxisInfo m = AxisInfo::meet(cur[i], y[i]);
      if (!(m == cur[i])) {
        cur[i] = m;
        changed = true;
      }
    }
    if (!changed)
      break;
    if (it == kMaxIterations) {
      for (AxisInfo &c : cur)
        c = AxisInfo::unknown(c.rank());
      changed = false;
    }
  }
  std::vector<ir::Value *> fwd = terminator_operands(*before, 1);
  for (size_t i = 0; i < op.num_results() && i < fwd.size(); ++i)
    set(op.result(i), get(fwd[i]));
}

int64_t AxisInfoAnalysis::ptr_vector_elems(const ir::Value *ptr, int dim) const {
  const AxisInfo &a = get(ptr);
  if (dim >= a.rank())
    return 1;
  int64_t elem = ir::byte_size(ptr->type.elem);
  int64_t align = std::max<int64_t>(1, a.divisibility[dim] / elem);
  return std::max<int64_t>(1, std::min(a.contiguity[dim], align));
}

std::vector<int32_t> AxisInfoAnalysis::order_by_contiguity(const ir::Value *ptr) const {
  const AxisInfo &a = get(ptr);
  std::vector<int32_t> order;
  for (int d = a.rank() - 1; d >= 0; --d)
    order.push_back(d);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t x, int32_t y) { return a.contiguity[x] > a.contiguity[y]; });
  return order;
}

std::string dump_axis_info(const ir::Module &m) {
  std::string out;
  for (const auto &f : m.functions) {
    AxisInfoAnalysis ax(*f, &m);
    ir::PrintOptions o;
    o.context = f.get();
    o.elide_regions = true;
    ir::walk(f->entry(), [&](ir::Op *op) {
      if (op->num_results() == 0)
        return;
      std::string line = ir::print(*op, o);
      line = line.substr(0, line.find('\n'));
      while (!line.empty() && line.front() == ' ')
        line.erase(line.begin());
      out += line + "  // " + ax.get(op->result(0)).str() + "\n";
    });
  }
  return out;
}

} // namespace tilec::analysis
