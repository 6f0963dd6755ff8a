#include "runtime/KernelBinary.h"

#include "runtime/TensorMap.h"

#include <cstdio>
#include <stdexcept>

namespace tilec::runtime {

namespace {

struct KindInfo {
  ParamKind kind;
  const char *name;
  int bits;
  bool is_int;
  bool is_signed;
};

constexpr KindInfo kKinds[] = {
    {ParamKind::Ptr, "ptr", 64, false, false},
    {ParamKind::I1, "i1", 1, true, false},
    {ParamKind::I8, "i8", 8, true, true},
    {ParamKind::I16, "i16", 16, true, true},
    {ParamKind::I32, "i32", 32, true, true},
    {ParamKind::I64, "i64", 64, true, true},
    {ParamKind::U8, "u8", 8, true, false},
    {ParamKind::U16, "u16", 16, true, false},
    {ParamKind::U32, "u32", 32, true, false},
    {ParamKind::U64, "u64", 64, true, false},
    {ParamKind::F16, "fp16", 16, false, true},
    {ParamKind::BF16, "bf16", 16, false, true},
    {ParamKind::F32, "fp32", 32, false, true},
    {ParamKind::F64, "fp64", 64, false, true},
    {ParamKind::TensorMap, "tmap", 1024, false, false},
    {ParamKind::Scratch, "scratch", 64, false, false},
};

const KindInfo &kind_info(ParamKind k) { return kKinds[static_cast<size_t>(k)]; }

// --- a JSON subset: objects, arrays, strings, integers (what to_json writes) -----------

void write_string(std::string &out, std::string_view s) {
  out += '"';
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

struct Json {
  enum class Kind { Null, Int, Str, Arr, Obj } kind = Kind::Null;
  int64_t i = 0;
  std::string s;
  std::vector<Json> arr;
  std::vector<std::pair<std::string, Json>> obj;

  const Json *get(std::string_view key) const {
    for (const auto &kv : obj)
      if (kv.first == key)
        return &kv.second;
    return nullptr;
  }
};

class Parser {
public:
  explicit Parser(std::string_view text) : t_(text) {}

  Json parse_document() {
    Json v = value();
    skip_ws();
    if (pos_ != t_.size())
      fail("trailing characters");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string &what) {
    throw std::runtime_error("malformed kernel metadata (" + what + " at offset " +
                             std::to_string(pos_) + ")");
  }
  void skip_ws() {
    while (pos_ < t_.size() &&
           (t_[pos_] == ' ' || t_[pos_] == '\n' || t_[pos_] == '\t' || t_[pos_] == '\r'))
      ++pos_;
  }
  bool eat(char c) {
    skip_ws();
    if (pos_ < t_.size() && t_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c))
      fail(std::string("expected '") + c + "'");
  }
  std::string string() {
    expect('"');
    std::string out;
    while (pos_ < t_.size() && t_[pos_] != '"') {
      char c = t_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= t_.size())
        fail("bad escape");
      char e = t_[pos_++];
      if (e == 'n') {
        out += '\n';
      } else if (e == 't') {
        out += '\t';
      } else if (e == 'u') {
        if (pos_ + 4 > t_.size())
          fail("bad \\u escape");
        unsigned v = std::stoul(std::string(t_.substr(pos_, 4)), nullptr, 16);
        pos_ += 4;
        if (v >= 0x80)
          fail("non-ASCII \\u escape");
        out += static_cast<char>(v);
      } else {
        out += e;
      }
    }
    if (pos_ >= t_.size())
      fail("unterminated string");
    ++pos_;
    return out;
  }
  Json value() {
    skip_ws();
    if (pos_ >= t_.size())
      fail("unexpected end");
    Json v;
    char c = t_[pos_];
    if (c == '"') {
      v.kind = Json::Kind::Str;
      v.s = string();
    } else if (c == '[') {
      ++pos_;
      v.kind = Json::Kind::Arr;
      if (!eat(']')) {
        do
          v.arr.push_back(value());
        while (eat(','));
        expect(']');
      }
    } else if (c == '{') {
      ++pos_;
      v.kind = Json::Kind::Obj;
      if (!eat('}')) {
        do {
          skip_ws();
          std::string k = string();
          expect(':');
          v.obj.emplace_back(std::move(k), value());
        } while (eat(','));
        expect('}');
      }
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t start = pos_++;
      while (pos_ < t_.size() && t_[pos_] >= '0' && t_[pos_] <= '9')
        ++pos_;
      v.kind = Json::Kind::Int;
      try {
        v.i = std::stoll(std::string(t_.substr(start, pos_ - start)));
      } catch (const std::exception &) {
        fail("bad integer");
      }
    } else if (t_.substr(pos_, 4) == "null") {
      pos_ += 4;
    } else {
      fail("unexpected character");
    }
    return v;
  }

  std::string_view t_;
  size_t pos_ = 0;
};

const Json &field(const Json &obj, std::string_view key, Json::Kind kind) {
  const Json *v = obj.get(key);
  if (!v || v->kind != kind)
    throw std::runtime_error("malformed kernel metadata (field '" + std::string(key) +
                             "' missing or of the wrong type)");
  return *v;
}

int int_field(const Json &obj, std::string_view key) {
  int64_t v = field(obj, key, Json::Kind::Int).i;
  if (v < 0 || v > (int64_t(1) << 31))
    throw std::runtime_error("malformed kernel metadata (field '" + std::string(key) +
                             "' out of range)");
  return static_cast<int>(v);
}

} // namespace

const char *param_kind_name(ParamKind k) { return kind_info(k).name; }
bool param_kind_is_int(ParamKind k) { return kind_info(k).is_int; }
bool param_kind_is_signed(ParamKind k) { return kind_info(k).is_signed; }
int param_kind_bits(ParamKind k) { return kind_info(k).bits; }

std::optional<ParamKind> param_kind_from_name(std::string_view name) {
  for (const auto &k : kKinds)
    if (name == k.name)
      return k.kind;
  return std::nullopt;
}

std::optional<KernelParam> kernel_param(std::string name, std::string_view kind) {
  if (kind.substr(0, 5) == "tmap:") {
    TmaBox box;
    if (!parse_tma_box(kind.substr(5), box))
      return std::nullopt;
    return KernelParam{std::move(name), ParamKind::TensorMap, box};
  }
  if (kind.substr(0, 8) == "scratch:") {
    std::string_view n = kind.substr(8);
    int64_t bytes = 0;
    for (char ch : n) {
      if (ch < '0' || ch > '9' || bytes > (int64_t{1} << 40))
        return std::nullopt;
      bytes = bytes * 10 + (ch - '0');
    }
    if (n.empty() || bytes <= 0)
      return std::nullopt;
    KernelParam p{std::move(name), ParamKind::Scratch, {}};
    p.scratch_bytes = bytes;
    return p;
  }
  auto k = param_kind_from_name(kind);
  if (!k || *k == ParamKind::TensorMap || *k == ParamKind::Scratch)
    return std::nullopt;
  return KernelParam{std::move(name), *k, {}};
}

std::string kernel_param_kind_text(const KernelParam &p) {
  if (p.kind == ParamKind::TensorMap)
    return "tmap:" + tma_box_text(p.tma_box);
  if (p.kind == ParamKind::Scratch)
    return "scratch:" + std::to_string(p.scratch_bytes);
  return param_kind_name(p.kind);
}

int64_t scratch_bytes_per_program(const KernelMetadata &meta) {
  for (const KernelParam &p : meta.params)
    if (p.kind == ParamKind::Scratch)
      return p.scratch_bytes;
  return 0;
}

std::string KernelMetadata::to_json() const {
  std::string out = "{\n  \"format\": 1,\n  \"name\": ";
  write_string(out, name);
  out += ",\n  \"num_warps\": " + std::to_string(num_warps);
  out += ",\n  \"num_stages\": " + std::to_string(num_stages);
  out += ",\n  \"shared\": " + std::to_string(shared);
  out += ",\n  \"arch\": ";
  write_string(out, arch);
  out += ",\n  \"compiler\": ";
  write_string(out, compiler);
  out += ",\n  \"params\": [";
  for (size_t i = 0; i < params.size(); ++i) {
    out += i ? ", [" : "[";
    write_string(out, params[i].name);
    out += ", ";
    write_string(out, kernel_param_kind_text(params[i]));
    out += "]";
  }
  out += "]\n}\n";
  return out;
}

KernelMetadata KernelMetadata::from_json(std::string_view text) {
  Json doc = Parser(text).parse_document();
  if (doc.kind != Json::Kind::Obj)
    throw std::runtime_error("malformed kernel metadata (not an object)");
  if (int_field(doc, "format") != 1)
    throw std::runtime_error("kernel metadata of an unknown format version");
  KernelMetadata m;
  m.name = field(doc, "name", Json::Kind::Str).s;
  m.num_warps = int_field(doc, "num_warps");
  m.num_stages = int_field(doc, "num_stages");
  m.shared = int_field(doc, "shared");
  m.arch = field(doc, "arch", Json::Kind::Str).s;
  m.compiler = field(doc, "compiler", Json::Kind::Str).s;
  for (const Json &p : field(doc, "params", Json::Kind::Arr).arr) {
    if (p.kind != Json::Kind::Arr || p.arr.size() != 2 || p.arr[0].kind != Json::Kind::Str ||
        p.arr[1].kind != Json::Kind::Str)
      throw std::runtime_error("malformed kernel metadata (a parameter is not [name, kind])");
    auto param = kernel_param(p.arr[0].s, p.arr[1].s);
    if (!param)
      throw std::runtime_error("malformed kernel metadata (unknown parameter kind '" + p.arr[1].s +
                               "')");
    m.params.push_back(std::move(*param));
  }
  return m;
}

} // namespace tilec::runtime
