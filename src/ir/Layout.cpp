#include "ir/Layout.h"

#include <cctype>
#include <charconv>

namespace tilec::ir {

LayoutRef Layout::blocked(std::vector<int32_t> spt, std::vector<int32_t> tpw,
                          std::vector<int32_t> wpc, std::vector<int32_t> order) {
  auto l = std::make_shared<Layout>();
  l->kind = LayoutKind::Blocked;
  l->size_per_thread = std::move(spt);
  l->threads_per_warp = std::move(tpw);
  l->warps_per_cta = std::move(wpc);
  l->order = std::move(order);
  return l;
}

LayoutRef Layout::slice(int32_t dim, LayoutRef parent) {
  auto l = std::make_shared<Layout>();
  l->kind = LayoutKind::Slice;
  l->dim = dim;
  l->parent = std::move(parent);
  return l;
}

LayoutRef Layout::shared(int32_t vec, int32_t per_phase, int32_t max_phase,
                         std::vector<int32_t> order) {
  auto l = std::make_shared<Layout>();
  l->kind = LayoutKind::Shared;
  l->vec = vec;
  l->per_phase = per_phase;
  l->max_phase = max_phase;
  l->order = std::move(order);
  return l;
}

LayoutRef Layout::linear(int32_t rank,
                         std::vector<std::pair<std::string, std::vector<std::vector<int32_t>>>> b) {
  auto l = std::make_shared<Layout>();
  l->kind = LayoutKind::Linear;
  l->linear_rank = rank;
  l->bases = std::move(b);
  return l;
}

LayoutRef Layout::mma(int32_t version, std::vector<int32_t> wpc, std::vector<int32_t> instr) {
  auto l = std::make_shared<Layout>();
  l->kind = LayoutKind::Mma;
  l->mma_version = version;
  l->warps_per_cta = std::move(wpc);
  l->instr_shape = std::move(instr);
  return l;
}

LayoutRef Layout::dot_operand(int32_t idx, LayoutRef parent, int32_t k_width) {
  auto l = std::make_shared<Layout>();
  l->kind = LayoutKind::DotOperand;
  l->op_idx = idx;
  l->parent = std::move(parent);
  l->k_width = k_width;
  return l;
}

int Layout::rank() const {
  switch (kind) {
  case LayoutKind::Blocked:
    return static_cast<int>(size_per_thread.size());
  case LayoutKind::Slice:
    return parent ? parent->rank() - 1 : 0;
  case LayoutKind::Shared:
    return static_cast<int>(order.size());
  case LayoutKind::Linear:
    return linear_rank;
  case LayoutKind::Mma:
    return static_cast<int>(warps_per_cta.size());
  case LayoutKind::DotOperand:
    return parent ? parent->rank() : 0;
  }
  return 0;
}

int Layout::num_warps() const {
  switch (kind) {
  case LayoutKind::Blocked: {
    int n = 1;
    for (int32_t w : warps_per_cta)
      n *= w;
    return n;
  }
  case LayoutKind::Mma: {
    int n = 1;
    for (int32_t w : warps_per_cta)
      n *= w;
    return n;
  }
  case LayoutKind::Slice:
  case LayoutKind::DotOperand:
    return parent ? parent->num_warps() : 0;
  case LayoutKind::Linear:
    for (const auto &[name, b] : bases)
      if (name == "warp")
        return 1 << b.size();
    return 1;
  default:
    return 0;
  }
}

namespace {

std::string ints(const std::vector<int32_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

} // namespace

std::string Layout::str() const {
  switch (kind) {
  case LayoutKind::Blocked:
    return "#blocked<spt=" + ints(size_per_thread) + ", tpw=" + ints(threads_per_warp) +
           ", wpc=" + ints(warps_per_cta) + ", order=" + ints(order) + ">";
  case LayoutKind::Slice:
    return "#slice<dim=" + std::to_string(dim) + ", " + (parent ? parent->str() : "?") + ">";
  case LayoutKind::Shared:
    return "#shared<vec=" + std::to_string(vec) + ", per_phase=" + std::to_string(per_phase) +
           ", max_phase=" + std::to_string(max_phase) + ", order=" + ints(order) + ">";
  case LayoutKind::Linear: {
    std::string s = "#linear<rank=" + std::to_string(linear_rank);
    for (const auto &[name, b] : bases) {
      s += ", " + name + "=[";
      for (size_t i = 0; i < b.size(); ++i)
        s += (i ? "," : "") + ints(b[i]);
      s += "]";
    }
    return s + ">";
  }
  case LayoutKind::Mma:
    return "#mma<v=" + std::to_string(mma_version) + ", wpc=" + ints(warps_per_cta) +
           ", instr=" + ints(instr_shape) + ">";
  case LayoutKind::DotOperand:
    return "#dot_op<idx=" + std::to_string(op_idx) + ", parent=" + (parent ? parent->str() : "?") +
           ", k_width=" + std::to_string(k_width) + ">";
  }
  return "#?";
}

bool Layout::operator==(const Layout &o) const {
  if (kind != o.kind)
    return false;
  switch (kind) {
  case LayoutKind::Blocked:
    return size_per_thread == o.size_per_thread && threads_per_warp == o.threads_per_warp &&
           warps_per_cta == o.warps_per_cta && order == o.order;
  case LayoutKind::Slice:
    return dim == o.dim && same_layout(parent, o.parent);
  case LayoutKind::Shared:
    return vec == o.vec && per_phase == o.per_phase && max_phase == o.max_phase && order == o.order;
  case LayoutKind::Linear:
    return linear_rank == o.linear_rank && bases == o.bases;
  case LayoutKind::Mma:
    return mma_version == o.mma_version && warps_per_cta == o.warps_per_cta &&
           instr_shape == o.instr_shape;
  case LayoutKind::DotOperand:
    return op_idx == o.op_idx && k_width == o.k_width && same_layout(parent, o.parent);
  }
  return false;
}

bool same_layout(const LayoutRef &a, const LayoutRef &b) {
  if (a == b)
    return true;
  if (!a || !b)
    return false;
  return *a == *b;
}

// ---- parsing ------------------------------------------------------------------------

namespace {

class LayoutParser {
public:
  explicit LayoutParser(std::string_view s) : s_(s) {}
  size_t pos = 0;

  void ws() {
    while (pos < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos])))
      ++pos;
  }
  bool accept(char c) {
    ws();
    if (pos < s_.size() && s_[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool expect(char c) { return accept(c); }
  std::string word() {
    ws();
    size_t b = pos;
    while (pos < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos])) || s_[pos] == '_'))
      ++pos;
    return std::string(s_.substr(b, pos - b));
  }
  bool integer(int32_t &out) {
    ws();
    size_t b = pos;
    if (pos < s_.size() && s_[pos] == '-')
      ++pos;
    while (pos < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos])))
      ++pos;
    auto r = std::from_chars(s_.data() + b, s_.data() + pos, out);
    return r.ec == std::errc() && r.ptr == s_.data() + pos && pos > b;
  }
  bool int_list(std::vector<int32_t> &out) {
    if (!expect('['))
      return false;
    if (accept(']'))
      return true;
    do {
      int32_t v = 0;
      if (!integer(v))
        return false;
      out.push_back(v);
    } while (accept(','));
    return expect(']');
  }
  bool key(const char *k) { return word() == k && expect('='); }
  bool key_int(const char *k, int32_t &out) { return key(k) && integer(out); }
  bool key_list(const char *k, std::vector<int32_t> &out) { return key(k) && int_list(out); }

  LayoutRef layout() {
    if (!accept('#'))
      return nullptr;
    std::string kind = word();
    if (!expect('<'))
      return nullptr;
    LayoutRef r;
    if (kind == "blocked") {
      std::vector<int32_t> spt, tpw, wpc, order;
      if (!key_list("spt", spt) || !expect(',') || !key_list("tpw", tpw) || !expect(',') ||
          !key_list("wpc", wpc) || !expect(',') || !key_list("order", order))
        return nullptr;
      r = Layout::blocked(spt, tpw, wpc, order);
    } else if (kind == "slice") {
      int32_t d = 0;
      if (!key_int("dim", d) || !expect(','))
        return nullptr;
      LayoutRef p = layout();
      if (!p)
        return nullptr;
      r = Layout::slice(d, p);
    } else if (kind == "shared") {
      int32_t v = 0, pp = 0, mp = 0;
      std::vector<int32_t> order;
      if (!key_int("vec", v) || !expect(',') || !key_int("per_phase", pp) || !expect(',') ||
          !key_int("max_phase", mp) || !expect(',') || !key_list("order", order))
        return nullptr;
      r = Layout::shared(v, pp, mp, order);
    } else if (kind == "linear") {
      int32_t rank = 0;
      if (!key_int("rank", rank))
        return nullptr;
      std::vector<std::pair<std::string, std::vector<std::vector<int32_t>>>> bases;
      while (accept(',')) {
        std::string name = word();
        if (name.empty() || !expect('=') || !expect('['))
          return nullptr;
        std::vector<std::vector<int32_t>> b;
        if (!accept(']')) {
          do {
            std::vector<int32_t> v;
            if (!int_list(v))
              return nullptr;
            b.push_back(std::move(v));
          } while (accept(','));
          if (!expect(']'))
            return nullptr;
        }
        bases.emplace_back(std::move(name), std::move(b));
      }
      r = Layout::linear(rank, std::move(bases));
    } else if (kind == "mma") {
      int32_t v = 0;
      std::vector<int32_t> wpc, instr;
      if (!key_int("v", v) || !expect(',') || !key_list("wpc", wpc) || !expect(',') ||
          !key_list("instr", instr))
        return nullptr;
      r = Layout::mma(v, wpc, instr);
    } else if (kind == "dot_op") {
      int32_t idx = 0, kw = 0;
      if (!key_int("idx", idx) || !expect(',') || !key("parent"))
        return nullptr;
      LayoutRef p = layout();
      if (!p || !expect(',') || !key_int("k_width", kw))
        return nullptr;
      r = Layout::dot_operand(idx, p, kw);
    } else {
      return nullptr;
    }
    if (!expect('>'))
      return nullptr;
    return r;
  }

private:
  std::string_view s_;
};

bool pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

bool is_permutation(const std::vector<int32_t> &order, int rank) {
  if (static_cast<int>(order.size()) != rank)
    return false;
  std::vector<bool> seen(rank, false);
  for (int32_t d : order) {
    if (d < 0 || d >= rank || seen[d])
      return false;
    seen[d] = true;
  }
  return true;
}

} // namespace

std::optional<LayoutRef> parse_layout(std::string_view s, size_t *consumed) {
  LayoutParser p(s);
  LayoutRef r = p.layout();
  if (!r)
    return std::nullopt;
  if (consumed)
    *consumed = p.pos;
  return r;
}

std::string check_layout(const Layout &l, int rank) {
  if (l.rank() != rank)
    return "layout " + l.str() + " has rank " + std::to_string(l.rank()) + ", the tile " +
           std::to_string(rank);
  switch (l.kind) {
  case LayoutKind::Blocked: {
    size_t n = static_cast<size_t>(rank);
    if (l.threads_per_warp.size() != n || l.warps_per_cta.size() != n)
      return "blocked layout fields must all have the tile's rank";
    int64_t lanes = 1;
    for (int i = 0; i < rank; ++i) {
      if (!pow2(l.size_per_thread[i]) || !pow2(l.threads_per_warp[i]) || !pow2(l.warps_per_cta[i]))
        return "blocked layout sizes must be powers of two";
      lanes *= l.threads_per_warp[i];
    }
    if (lanes != 32)
      return "threads_per_warp must multiply to 32";
    if (!is_permutation(l.order, rank))
      return "order must be a permutation of the dims";
    return "";
  }
  case LayoutKind::Slice:
    if (!l.parent)
      return "slice layout without a parent";
    if (l.dim < 0 || l.dim > rank)
      return "slice dim out of range";
    return check_layout(*l.parent, rank + 1);
  case LayoutKind::Shared:
    if (!pow2(l.vec) || !pow2(l.per_phase) || !pow2(l.max_phase))
      return "shared layout parameters must be powers of two";
    if (!is_permutation(l.order, rank))
      return "order must be a permutation of the dims";
    return "";
  case LayoutKind::Linear:
    for (const auto &[name, b] : l.bases)
      for (const auto &v : b)
        if (static_cast<int>(v.size()) != rank)
          return "linear layout basis of '" + name + "' must have one entry per tile dim";
    return "";
  case LayoutKind::Mma: {
    if (l.mma_version == 3) { // wgmma: wpc = [4 * warpgroups along M, warpgroups along N]
      if (rank != 2 || l.instr_shape.size() != 2 || l.instr_shape[0] != 64 ||
          l.instr_shape[1] < 8 || l.instr_shape[1] > 256 || !pow2(l.instr_shape[1]))
        return "mma v3 (wgmma) is rank 2 with instruction shape [64, N], N a power of two 8..256";
      if (l.warps_per_cta.size() != 2 || l.warps_per_cta[0] < 4 || !pow2(l.warps_per_cta[0]) ||
          !pow2(l.warps_per_cta[1]))
        return "mma v3 warps_per_cta must be [4 * warpgroups along M, warpgroups along N]";
      return "";
    }
    if (l.mma_version != 2)
      return "mma versions are 2 (mma.sync) and 3 (wgmma)";
    if (rank != 2 && rank != 3)
      return "mma layouts are rank 2 or 3 (batched)";
    if (l.instr_shape.size() != static_cast<size_t>(rank) || l.instr_shape[rank - 2] != 16 ||
        l.instr_shape[rank - 1] != 8 || (rank == 3 && l.instr_shape[0] != 1))
      return "mma v2 instruction shape must be [16,8] (batched [1,16,8])";
    for (int32_t w : l.warps_per_cta)
      if (!pow2(w))
        return "mma warps_per_cta must be powers of two";
    return "";
  }
  case LayoutKind::DotOperand:
    if (!l.parent)
      return "dot operand layout without a parent";
    if (l.op_idx != 0 && l.op_idx != 1)
      return "dot operand idx must be 0 (A) or 1 (B)";
    if (l.parent->kind == LayoutKind::Mma && l.k_width != 1 && l.k_width != 2 && l.k_width != 4)
      return "dot operand k_width must be 1, 2 or 4 for an mma parent";
    if (l.parent->kind != LayoutKind::Mma && l.parent->kind != LayoutKind::Blocked)
      return "a dot operand's parent is an mma or blocked layout";
    return check_layout(*l.parent, rank);
  }
  return "unknown layout kind";
}

} // namespace tilec::ir
