// Helpers shared by the lexer and parser tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "frontend/AstDump.h"
#include "frontend/Lexer.h"
#include "frontend/Parser.h"

namespace tilec::test {

inline std::vector<frontend::Token> lex(const std::string &text, int first_line = 1) {
  frontend::Lexer lexer(text, 0, first_line);
  return lexer.tokenize();
}

// "Name:x Op:= Int:1 Newline EndOfFile" style summary of a token stream.
inline std::string kinds(const std::vector<frontend::Token> &toks) {
  std::string out;
  for (const auto &t : toks) {
    if (!out.empty())
      out += " ";
    switch (t.kind) {
    case frontend::TokKind::Name:
      out += "Name:" + t.text;
      break;
    case frontend::TokKind::Keyword:
      out += "Kw:" + t.text;
      break;
    case frontend::TokKind::Int:
      out += "Int:" + std::to_string(t.int_value);
      break;
    case frontend::TokKind::Float:
      out += "Float:" + t.text;
      break;
    case frontend::TokKind::Imag:
      out += "Imag:" + t.text;
      break;
    case frontend::TokKind::String:
      out += "Str";
      break;
    case frontend::TokKind::FString:
      out += "FStr";
      break;
    case frontend::TokKind::Op:
      out += t.text;
      break;
    case frontend::TokKind::Newline:
      out += "NL";
      break;
    case frontend::TokKind::Indent:
      out += "IN";
      break;
    case frontend::TokKind::Dedent:
      out += "DE";
      break;
    case frontend::TokKind::EndOfFile:
      out += "EOF";
      break;
    case frontend::TokKind::Error:
      out += "ERR";
      break;
    }
  }
  return out;
}

struct Parsed {
  SourceManager sm;
  ast::Module module;
};

inline Parsed parse(const std::string &text, int first_line = 1) {
  Parsed p;
  int f = p.sm.add("test.py", text, first_line);
  p.module = frontend::parse(p.sm, f);
  return p;
}

inline std::string dump_src(const std::string &text, bool locs = false) {
  return ast::dump(parse(text).module, locs);
}

// The s-expression of a single expression statement.
inline std::string expr(const std::string &text) {
  Parsed p = parse(text);
  EXPECT_EQ(p.module.body.size(), 1u);
  if (p.module.body.empty() || p.module.body[0]->kind != ast::StmtKind::Expr)
    return "<not an expression statement>";
  return ast::dump(*static_cast<const ast::ExprStmt &>(*p.module.body[0]).value);
}

// "line:col: message" of the CompileError that parsing `text` raises.
inline std::string parse_error(const std::string &text, int first_line = 1) {
  SourceManager sm;
  int f = sm.add("test.py", text, first_line);
  try {
    frontend::parse(sm, f);
  } catch (const CompileError &e) {
    return std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": " + e.message();
  }
  return "<no error>";
}

inline std::string read_file(const std::filesystem::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// tests/data/, found from this header's path (the build passes absolute source paths).
inline std::filesystem::path data_dir() {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "data";
}

} // namespace tilec::test
