// FunctionSource construction from Python: the kernel's text and its resolved globals,
// plus the front end's name queries (referenced names, builtin names).
#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>

#include "Bindings.h"
#include "frontend/Parser.h"
#include "frontend/sema/Sema.h"
#include "ir/Type.h"

namespace tilec::python {

namespace {

// Markers the Python layer wraps globals in when a plain Python value is ambiguous.
struct ModuleRef {
  std::string name;
};
struct DTypeRef {
  ir::Type type;
};
struct BuiltinRef {
  std::string name;
};
struct Unsupported {
  std::string what;
};
// A NamedTuple class (a global the kernel calls, or the type of an argument) and an
// instance of one (a constexpr value).
struct NamedTupleType {
  std::shared_ptr<const sema::NamedTupleInfo> info;
};
struct NamedTupleValue {
  NamedTupleType type;
  nb::tuple values;
};

} // namespace

std::shared_ptr<const sema::NamedTupleInfo> named_tuple_info(nb::handle h) {
  return nb::cast<const NamedTupleType &>(h).info;
}

bool value_from_python(nb::handle h, sema::Val &out, std::string &what) {
  if (h.is_none()) {
    out = sema::Val::none();
    return true;
  }
  if (nb::isinstance<nb::bool_>(h)) {
    out = sema::Val::boolean(nb::cast<bool>(h));
    return true;
  }
  if (nb::isinstance<nb::int_>(h)) {
    int64_t v = 0;
    if (nb::try_cast<int64_t>(h, v)) {
      out = sema::Val::integer(v);
      return true;
    }
    uint64_t u = 0; // [2**63, 2**64): uint64, as Triton types it
    if (nb::try_cast<uint64_t>(h, u)) {
      out = sema::Val::uint64(u);
      return true;
    }
    what = "int that does not fit in 64 bits";
    return false;
  }
  if (nb::isinstance<nb::float_>(h)) {
    out = sema::Val::floating(nb::cast<double>(h));
    return true;
  }
  if (nb::isinstance<nb::str>(h)) {
    out = sema::Val::string(nb::cast<std::string>(h));
    return true;
  }
  if (nb::isinstance<nb::tuple>(h)) {
    std::vector<sema::Val> elems;
    for (nb::handle e : nb::borrow<nb::tuple>(h)) {
      sema::Val v;
      if (!value_from_python(e, v, what))
        return false;
      elems.push_back(std::move(v));
    }
    out = sema::Val::tuple(std::move(elems));
    return true;
  }
  if (nb::isinstance<DTypeRef>(h)) {
    out = sema::Val::dtype(nb::cast<const DTypeRef &>(h).type);
    return true;
  }
  if (nb::isinstance<ModuleRef>(h)) {
    out = sema::Val::module(nb::cast<const ModuleRef &>(h).name);
    return true;
  }
  if (nb::isinstance<BuiltinRef>(h)) {
    out = sema::Val::builtin(nb::cast<const BuiltinRef &>(h).name);
    return true;
  }
  if (nb::isinstance<sema::FunctionSource>(h)) {
    out = sema::Val();
    out.kind = sema::Val::Kind::Function;
    out.fn = nb::cast<std::shared_ptr<sema::FunctionSource>>(h);
    return true;
  }
  if (nb::isinstance<NamedTupleType>(h)) {
    out = sema::Val();
    out.kind = sema::Val::Kind::TupleClass;
    out.named = nb::cast<const NamedTupleType &>(h).info;
    return true;
  }
  if (nb::isinstance<NamedTupleValue>(h)) {
    const auto &nt = nb::cast<const NamedTupleValue &>(h);
    if (!value_from_python(nt.values, out, what))
      return false;
    out.named = nt.type.info;
    return true;
  }
  if (host_function_from_python(h, out))
    return true;
  if (nb::isinstance<Unsupported>(h)) {
    what = nb::cast<const Unsupported &>(h).what;
    return false;
  }
  what = "value of type " + nb::cast<std::string>(nb::str(h.type().attr("__name__")));
  return false;
}

namespace {

std::shared_ptr<sema::FunctionSource> make_function_source(std::string name, std::string file,
                                                           std::string source, int first_line,
                                                           const nb::dict &globals,
                                                           bool noinline, bool must_use_result,
                                                           std::string must_use_note) {
  auto fs = std::make_shared<sema::FunctionSource>();
  fs->name = std::move(name);
  fs->file = std::move(file);
  fs->source = std::move(source);
  fs->first_line = first_line;
  fs->noinline = noinline;
  fs->must_use_result = must_use_result;
  fs->must_use_note = std::move(must_use_note);
  for (auto [k, v] : globals) {
    std::string key = nb::cast<std::string>(k);
    sema::Val val;
    std::string what;
    if (value_from_python(v, val, what))
      fs->globals[key] = std::move(val);
    else
      fs->unsupported_globals[key] = what;
  }
  return fs;
}

// Parses one function's text and lists the names it reads. Syntax errors surface as
// tilec.CompilationError, exactly as they would when compiling.
std::vector<std::string> referenced_names(const std::string &name, const std::string &file,
                                          const std::string &source, int first_line) {
  SourceManager sm;
  int id = sm.add(file, source, first_line);
  try {
    ast::Module mod = frontend::parse(sm, id);
    for (const auto &st : mod.body) {
      if (st->kind != ast::StmtKind::FunctionDef)
        continue;
      const auto &fn = static_cast<const ast::FunctionDefStmt &>(*st);
      if (fn.name == name || name.empty())
        return frontend::referenced_names(fn);
    }
  } catch (const CompileError &e) {
    throw compile_error(sm, e);
  }
  throw compile_error(sm, SourceLoc{id, first_line, 1},
                      "no definition of function '" + name + "' in its source text");
}

} // namespace

void bind_frontend(nb::module_ &m) {
  bind_host_function(m);
  nb::class_<ModuleRef>(m, "ModuleRef", "A global naming a module the compiler knows.")
      .def(nb::init<std::string>(), nb::arg("name"))
      .def_ro("name", &ModuleRef::name)
      .def("__repr__", [](const ModuleRef &r) { return "ModuleRef('" + r.name + "')"; });
  nb::class_<DTypeRef>(m, "DTypeRef", "A global naming a dtype, in Tile IR spelling.")
      .def(
          "__init__",
          [](DTypeRef *self, const std::string &ir) {
            auto t = ir::parse_type(ir);
            if (!t)
              throw nb::value_error(("unknown Tile IR type '" + ir + "'").c_str());
            new (self) DTypeRef{*t};
          },
          nb::arg("ir_type"))
      .def_prop_ro("ir_type", [](const DTypeRef &r) { return r.type.str(); })
      .def("__repr__", [](const DTypeRef &r) { return "DTypeRef('" + r.type.str() + "')"; });
  nb::class_<BuiltinRef>(m, "BuiltinRef", "A global bound to a language builtin.")
      .def(nb::init<std::string>(), nb::arg("name"))
      .def_ro("name", &BuiltinRef::name);
  nb::class_<Unsupported>(m, "Unsupported",
                          "A global whose value a kernel cannot use; `what` describes it.")
      .def(nb::init<std::string>(), nb::arg("what"))
      .def_ro("what", &Unsupported::what)
      .def("__repr__", [](const Unsupported &u) { return "Unsupported('" + u.what + "')"; });

  nb::class_<NamedTupleType>(m, "NamedTupleType",
                             "A NamedTuple class: name, fields, defaults of the last fields.")
      .def(
          "__init__",
          [](NamedTupleType *self, const std::string &name, std::vector<std::string> fields,
             const nb::tuple &defaults) {
            auto info = std::make_shared<sema::NamedTupleInfo>();
            info->name = name;
            info->fields = std::move(fields);
            if (nb::len(defaults) > info->fields.size())
              throw nb::value_error("more defaults than fields");
            for (nb::handle d : defaults) {
              sema::Val v;
              std::string what;
              if (!value_from_python(d, v, what))
                throw nb::type_error(("a default of NamedTuple '" + name + "' is a " + what +
                                      ", which a kernel cannot use")
                                         .c_str());
              info->defaults.push_back(std::move(v));
            }
            new (self) NamedTupleType{std::move(info)};
          },
          nb::arg("name"), nb::arg("fields"), nb::arg("defaults") = nb::tuple())
      .def_prop_ro("name", [](const NamedTupleType &t) { return t.info->name; })
      .def("__repr__",
           [](const NamedTupleType &t) { return "NamedTupleType('" + t.info->name + "')"; });
  nb::class_<NamedTupleValue>(m, "NamedTupleValue", "An instance of a NamedTuple class.")
      .def(nb::init<NamedTupleType, nb::tuple>(), nb::arg("type"), nb::arg("values"));

  nb::class_<sema::FunctionSource>(m, "FunctionSource",
                                   "The source of one @jit function and its resolved globals.")
      .def(nb::new_(&make_function_source), nb::arg("name"), nb::arg("file"),
           nb::arg("source"), nb::arg("first_line"), nb::arg("globals") = nb::dict(),
           nb::arg("noinline") = false, nb::arg("must_use_result") = false,
           nb::arg("must_use_note") = "")
      .def_ro("name", &sema::FunctionSource::name)
      .def_ro("file", &sema::FunctionSource::file)
      .def_ro("source", &sema::FunctionSource::source)
      .def_ro("first_line", &sema::FunctionSource::first_line)
      .def_ro("noinline", &sema::FunctionSource::noinline)
      .def_ro("must_use_result", &sema::FunctionSource::must_use_result)
      .def_ro("unsupported_globals", &sema::FunctionSource::unsupported_globals)
      .def_ro("entry_name", &sema::FunctionSource::entry_name)
      .def(
          "with_entry_name",
          [](const sema::FunctionSource &fs, const std::string &entry) {
            auto copy = std::make_shared<sema::FunctionSource>(fs);
            copy->entry_name = entry;
            return copy;
          },
          nb::arg("entry_name"),
          "A copy compiled under another kernel name (the source and globals shared).")
      .def_prop_ro("global_names",
                   [](const sema::FunctionSource &fs) {
                     std::vector<std::string> out;
                     for (const auto &kv : fs.globals)
                       out.push_back(kv.first);
                     return out;
                   })
      .def("__repr__", [](const sema::FunctionSource &fs) {
        return "FunctionSource('" + fs.name + "', '" + fs.file + "':" +
               std::to_string(fs.first_line) + ")";
      });

  m.def("referenced_names", &referenced_names, nb::arg("name"), nb::arg("file"),
        nb::arg("source"), nb::arg("first_line") = 1,
        "Names the function `name` in `source` reads, in first-use order.");
  m.def("builtin_names", &sema::builtin_names,
        "Every builtin the language module exposes (tl.*, 'math.*').");
}

} // namespace tilec::python
