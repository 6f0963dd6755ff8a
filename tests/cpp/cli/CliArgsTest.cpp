// The command line's option parsing (tools/tilec); the signatures it takes are tested in
// tests/cpp/aot.
#include <gtest/gtest.h>

#include "../UsageErrorText.h"
#include "tilec/CliCommands.h"

using namespace tilec::cli;

TEST(CliArgs, OptionParsing) {
  ParsedArgs a = parse_args(
      {"f.py:k", "--signature", "*fp32", "--constexpr=A=1", "--constexpr", "B=2", "--debug"},
      {"signature", "constexpr"}, {"debug"});
  EXPECT_EQ(a.positional, (std::vector<std::string>{"f.py:k"}));
  EXPECT_EQ(a.get("signature"), "*fp32");
  EXPECT_TRUE(a.has("debug"));
  ASSERT_EQ(a.options.size(), 4u);
  EXPECT_EQ(a.options[1].second, "A=1");
  EXPECT_EQ(a.options[2].second, "B=2");
  EXPECT_EQ(usage_error([] { parse_args({"--bogus"}, {}, {}); }), "unknown option --bogus");
  EXPECT_EQ(usage_error([] { parse_args({"--signature"}, {"signature"}, {}); }),
            "option --signature needs a value");
  EXPECT_EQ(usage_error([] { parse_args({"--debug=1"}, {}, {"debug"}); }),
            "option --debug takes no value");
}
