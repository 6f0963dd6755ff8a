// C++ exceptions -> tilec's Python exceptions. User errors keep their location as
// attributes; internal errors say plainly that they are tilec's bugs.
#include <nanobind/stl/string.h>

#include <exception>

#include "Bindings.h"
#include "support/Diagnostics.h"

namespace tilec::python {

namespace {

bool add_frame(LocatedError &e, const SourceManager &sm, SourceLoc loc) {
  if (!loc.valid() || static_cast<size_t>(loc.file) >= sm.num_files())
    return false;
  const SourceFile &f = sm.file(loc.file);
  e.frames.push_back({f.path, f.text, loc.line, loc.col, f.first_line});
  return true;
}

} // namespace

LocatedError compile_error(const SourceManager &sm, SourceLoc loc, const std::string &message) {
  LocatedError e;
  e.kind = LocatedError::Kind::Compile;
  e.rendered = render_diagnostic(sm, loc, "error", message);
  e.message = message;
  if (add_frame(e, sm, loc)) {
    e.file = e.frames[0].file;
    e.line = loc.line;
    e.col = loc.col;
  }
  return e;
}

LocatedError compile_error(const SourceManager &sm, const CompileError &err) {
  LocatedError e = compile_error(sm, err.loc(), err.message());
  if (!e.frames.empty())
    for (SourceLoc call : err.calls())
      if (!add_frame(e, sm, call))
        break;
  return e;
}

namespace {

// Raises `cls(rendered, message, file, line, col)` from tilec.errors; falls back to a
// plain RuntimeError if the package cannot be imported (a broken install).
void raise_located(const LocatedError &e) {
  const char *name = e.kind == LocatedError::Kind::Compile ? "CompilationError" : "KernelError";
  try {
    nb::object cls = nb::module_::import_("tilec.errors").attr(name);
    nb::object file = e.file.empty() ? nb::none() : nb::cast(e.file);
    nb::object line = e.file.empty() ? nb::none() : nb::cast(e.line);
    nb::object col = e.file.empty() ? nb::none() : nb::cast(e.col);
    nb::list frames;
    for (const LocatedError::Frame &f : e.frames)
      frames.append(nb::make_tuple(f.file, f.line, f.col, f.text, f.first_line));
    nb::object inst = e.kind == LocatedError::Kind::Compile
                          ? cls(e.rendered, e.message, file, line, col, frames)
                          : cls(e.rendered, e.message, file, line, col);
    PyErr_SetObject(cls.ptr(), inst.ptr());
  } catch (const nb::python_error &pe) {
    PyErr_SetString(PyExc_RuntimeError, e.rendered.c_str());
  }
}

void translate(const std::exception_ptr &p, void *) {
  try {
    std::rethrow_exception(p);
  } catch (const LocatedError &e) {
    raise_located(e);
  } catch (const InternalError &e) {
    std::string msg = e.what();
    if (msg.rfind("tilec internal error", 0) != 0)
      msg = "tilec internal error: " + msg;
    msg += "\n(this is a bug in tilec, not in your kernel; please report it with the kernel)";
    PyErr_SetString(PyExc_RuntimeError, msg.c_str());
  } catch (const tilec::RuntimeError &e) {
    LocatedError le;
    le.kind = LocatedError::Kind::Kernel;
    le.rendered = e.what();
    le.message = e.what();
    raise_located(le);
  }
}

} // namespace

void bind_errors(nb::module_ &m) {
  nb::register_exception_translator(translate);
  // For tests of the translation path itself.
  m.def("_raise_internal_error", [] { TILEC_ASSERT(false, "raised on purpose"); });
  m.def("_raise_kernel_error", [](const std::string &msg) { throw tilec::RuntimeError(msg); });
}

} // namespace tilec::python
