#include "ir/Printer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <unordered_map>

#include "support/Diagnostics.h"

namespace tilec::ir {

namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
}
bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0]))
    return false;
  return std::all_of(s.begin(), s.end(), is_ident_char);
}

std::string quote(std::string_view s) {
  static const char *kHex = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u >= 0x7f) {
      out += '\\';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The block that holds the kernel body an op lives in (the outermost block).
const Block *root_block(const Op &op) {
  const Block *b = op.parent();
  while (b) {
    const Region *r = b->parent();
    if (!r || !r->parent() || !r->parent()->parent())
      return b;
    b = r->parent()->parent();
  }
  return nullptr;
}

class Printer {
public:
  explicit Printer(const PrintOptions &opts) : opts_(opts) {}

  // Names every value under `root` in print order; the block's own arguments take
  // `arg_names` when they are usable identifiers.
  void number_root(const Block &root, const std::vector<std::string> *arg_names) {
    std::set<std::string> taken;
    for (size_t i = 0; i < root.num_args(); ++i) {
      std::string n;
      if (arg_names && i < arg_names->size() && is_identifier((*arg_names)[i]) &&
          !taken.count((*arg_names)[i]))
        n = (*arg_names)[i];
      else
        n = "arg" + std::to_string(i);
      while (taken.count(n))
        n += "_";
      taken.insert(n);
      names_[root.arg(i)] = "%" + n;
    }
    number_ops(root);
  }

  void number_op(const Op &op) {
    if (op.num_results() == 1) {
      names_[op.result(0)] = "%" + std::to_string(next_);
    } else if (op.num_results() > 1) {
      for (size_t i = 0; i < op.num_results(); ++i)
        names_[op.result(i)] = "%" + std::to_string(next_) + "#" + std::to_string(i);
    }
    if (op.num_results() > 0)
      result_ids_[&op] = next_++;
    for (size_t r = 0; r < op.num_regions(); ++r)
      if (const Block *b = op.region(r)->block()) {
        for (size_t i = 0; i < b->num_args(); ++i)
          names_[b->arg(i)] = "%" + std::to_string(next_++);
        number_ops(*b);
      }
  }

  void number_ops(const Block &b) {
    for (const auto &op : b.ops())
      number_op(*op);
  }

  std::string name(const Value *v) const {
    auto it = names_.find(v);
    return it == names_.end() ? std::string("%<undef>") : it->second;
  }

  void print_function(const Function &f) {
    number_root(*f.entry(), &f.arg_names);
    out_ += "tt.func @" + (is_identifier(f.name) ? f.name : quote(f.name)) + "(";
    const Block &e = *f.entry();
    for (size_t i = 0; i < e.num_args(); ++i) {
      if (i)
        out_ += ", ";
      out_ += name(e.arg(i)) + ": " + e.arg(i)->type.str();
    }
    out_ += ")";
    print_loc(f.loc);
    out_ += " {\n";
    print_ops(e, 2);
    out_ += "}\n";
  }

  void print_ops(const Block &b, int indent) {
    for (const auto &op : b.ops()) {
      out_.append(static_cast<size_t>(indent), ' ');
      print_op(*op, indent);
      out_ += "\n";
    }
  }

  void print_op(const Op &op, int indent) {
    if (op.num_results() > 0) {
      auto it = result_ids_.find(&op);
      std::string id = it == result_ids_.end() ? "<undef>" : std::to_string(it->second);
      out_ += "%" + id;
      if (op.num_results() > 1)
        out_ += ":" + std::to_string(op.num_results());
      out_ += " = ";
    }
    out_ += op.name();
    for (size_t i = 0; i < op.num_operands(); ++i)
      out_ += (i ? ", " : " ") + name(op.operand(i));
    print_attrs(op.attrs());
    print_types(op);
    for (size_t r = 0; r < op.num_regions(); ++r)
      print_region(*op.region(r), indent);
    print_loc(op.loc());
  }

  void print_attrs(const std::vector<NamedAttr> &attrs) {
    if (attrs.empty())
      return;
    std::vector<const NamedAttr *> sorted;
    for (const NamedAttr &a : attrs)
      sorted.push_back(&a);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const NamedAttr *a, const NamedAttr *b) { return a->name < b->name; });
    out_ += " {";
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i)
        out_ += ", ";
      out_ += is_identifier(sorted[i]->name) ? sorted[i]->name : quote(sorted[i]->name);
      out_ += " = " + format_attr_value(sorted[i]->value);
    }
    out_ += "}";
  }

  void print_types(const Op &op) {
    if (op.num_results() == 0)
      return;
    auto list = [](const std::vector<Type> &ts) {
      std::string s;
      for (size_t i = 0; i < ts.size(); ++i)
        s += (i ? ", " : "") + ts[i].str();
      return s;
    };
    std::vector<Type> res, ops;
    for (size_t i = 0; i < op.num_results(); ++i)
      res.push_back(op.result(i)->type);
    for (size_t i = 0; i < op.num_operands(); ++i)
      ops.push_back(op.operand(i) ? op.operand(i)->type : Type());
    auto all_equal = [](const std::vector<Type> &ts, const Type &t) {
      return std::all_of(ts.begin(), ts.end(), [&](const Type &x) { return x == t; });
    };
    const Type &first = res[0];
    if (all_equal(res, first) && all_equal(ops, first)) {
      out_ += " : " + first.str();
      return;
    }
    if (!ops.empty())
      out_ += " : " + (all_equal(ops, ops[0]) ? ops[0].str() : list(ops)) + " -> " + list(res);
    else
      out_ += " : " + list(res);
  }

  void print_region(const Region &r, int indent) {
    if (opts_.elide_regions) {
      out_ += " {...}";
      return;
    }
    out_ += " {\n";
    if (const Block *b = r.block()) {
      if (b->num_args() > 0) {
        out_.append(static_cast<size_t>(indent), ' ');
        out_ += "^bb(";
        for (size_t i = 0; i < b->num_args(); ++i) {
          if (i)
            out_ += ", ";
          out_ += name(b->arg(i)) + ": " + b->arg(i)->type.str();
        }
        out_ += "):\n";
      }
      print_ops(*b, indent + 2);
    }
    out_.append(static_cast<size_t>(indent), ' ');
    out_ += "}";
  }

  void print_loc(SourceLoc loc) {
    if (!opts_.locations || !loc.valid())
      return;
    out_ += " loc(";
    if (opts_.sources && static_cast<size_t>(loc.file) < opts_.sources->num_files())
      out_ += quote(opts_.sources->file(loc.file).path);
    else
      out_ += std::to_string(loc.file);
    out_ += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ")";
  }

  std::string &out() { return out_; }

private:
  const PrintOptions &opts_;
  std::unordered_map<const Value *, std::string> names_;
  std::unordered_map<const Op *, unsigned> result_ids_;
  unsigned next_ = 0;
  std::string out_;
};

} // namespace

std::string format_double(double d) {
  if (std::isnan(d))
    return std::signbit(d) ? "-nan" : "nan";
  if (std::isinf(d))
    return d < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d); // shortest text that reads back exactly
  TILEC_ASSERT(res.ec == std::errc(), "to_chars failed");
  std::string s(buf, res.ptr);
  if (s.find_first_of(".en") == std::string::npos)
    s += ".0";
  return s;
}

std::string format_attr_value(const AttrValue &v) {
  if (auto *i = std::get_if<int64_t>(&v))
    return std::to_string(*i);
  if (auto *d = std::get_if<double>(&v))
    return format_double(*d);
  if (auto *s = std::get_if<std::string>(&v))
    return quote(*s);
  const auto &xs = std::get<std::vector<int64_t>>(v);
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i)
    out += (i ? ", " : "") + std::to_string(xs[i]);
  return out + "]";
}

std::string print(const Module &m, const PrintOptions &opts) {
  std::string out;
  if (!m.attrs.empty()) {
    Printer p(opts);
    p.print_attrs(m.attrs);
    out += "module" + p.out() + "\n";
  }
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (i || !m.attrs.empty())
      out += "\n";
    out += print(*m.functions[i], opts);
  }
  return out;
}

std::string print(const Function &f, const PrintOptions &opts) {
  Printer p(opts);
  p.print_function(f);
  return std::move(p.out());
}

std::string print(const Op &op, const PrintOptions &opts) {
  Printer p(opts);
  if (const Block *root = root_block(op)) {
    const std::vector<std::string> *names =
        opts.context && opts.context->entry() == root ? &opts.context->arg_names : nullptr;
    p.number_root(*root, names);
  } else {
    p.number_op(op);
  }
  p.print_op(op, 0);
  return std::move(p.out());
}

} // namespace tilec::ir
