// Rule-file regular expressions: RE2, ECMAScript meaning kept for lookaheads, the rest refused.

#include <gtest/gtest.h>

#include "rules/pattern.hpp"
#include "rules/pattern_set.hpp"

namespace migrate::rules {
namespace {

Pattern compiled(const std::string& text) {
  auto p = Pattern::compile(text);
  EXPECT_TRUE(p) << text << ": " << (p ? "" : p.error().message);
  return std::move(p.value());
}

TEST(Pattern, SearchesAnywhereAndAnchorsWhenAsked) {
  const Pattern device = compiled(R"(^cuda(:\d+)?$)");
  EXPECT_TRUE(device.search("cuda"));
  EXPECT_TRUE(device.search("cuda:1"));
  EXPECT_FALSE(device.search("cuda:x"));
  EXPECT_FALSE(device.search("my cuda"));
  EXPECT_TRUE(compiled(R"(\bnccl\b)").search("backend nccl here"));
  EXPECT_FALSE(compiled(R"(\bnccl\b)").search("ncclx"));
}

TEST(Pattern, LeadingCaseInsensitiveFlag) {
  const Pattern p = compiled("(?i)^nccl$");
  EXPECT_TRUE(p.search("NCCL"));
  EXPECT_TRUE(p.search("nccl"));
  EXPECT_FALSE(p.search("hccl"));
}

TEST(Pattern, LookaheadsKeepTheirMeaning) {
  const Pattern not_false = compiled("^(?!False$)");
  EXPECT_TRUE(not_false.search("True"));
  EXPECT_TRUE(not_false.search("args.use_cuda"));
  EXPECT_FALSE(not_false.search("False"));
  const Pattern nccl = compiled(R"(^(TORCH_)?NCCL_(?!DEBUG\b|SOCKET_IFNAME\b)[A-Z0-9_]+$)");
  EXPECT_TRUE(nccl.search("NCCL_IB_HCA"));
  EXPECT_TRUE(nccl.search("TORCH_NCCL_AVOID_RECORD_STREAMS"));
  EXPECT_FALSE(nccl.search("NCCL_DEBUG"));
  EXPECT_FALSE(nccl.search("NCCL_SOCKET_IFNAME"));
  EXPECT_FALSE(nccl.search("HCCL_BUFFSIZE")) << "the RE2 superset already says no";
  // Parentheses and brackets inside a lookahead do not end it early.
  const Pattern nested = compiled(R"(^a(?!(b|[)c]))\w)");
  EXPECT_TRUE(nested.search("ax"));
  EXPECT_FALSE(nested.search("ab"));
  EXPECT_FALSE(nested.search("a)"));
}

TEST(Pattern, LookaheadsRunOnRe2AndKeepTheirMeaningOnLongInput) {
  // std::regex recursed once per character: a value of 300,000 characters overflowed the stack.
  const Pattern nccl =
      compiled(R"(^\s*(TORCH_)?NCCL_(?!DEBUG\b|SOCKET_IFNAME\b)[A-Z0-9_]+\s*$|\$\{?NCCL_(?!DEBUG\b)\w+)");
  EXPECT_TRUE(nccl.search("NCCL_" + std::string(300000, 'A')));
  EXPECT_TRUE(nccl.search(std::string(300000, ' ') + "NCCL_IB_HCA"));
  EXPECT_FALSE(nccl.search(std::string(300000, ' ') + "NCCL_DEBUG"));
  EXPECT_TRUE(nccl.search("echo ${NCCL_DEBUG} ${NCCL_" + std::string(300000, 'B') + "}"));
  std::string many;
  for (int i = 0; i < 30000; ++i) many += " ${NCCL_DEBUG}";
  EXPECT_FALSE(nccl.search(many));
}

TEST(Pattern, WhatOnlyABacktrackingMatcherCouldCheckIsRefused) {
  // A lookahead in a group or repeated, two in one alternative, a backreference, (?i) on non-ASCII
  // text with a lookahead: each would recurse once per character of a string from the repository.
  for (const char* text : {"(a(?!b))c", "^(a(?!b))+$", "^x(?!y)(?!z)", "(cuda)\\1", "(?i)é(?!x)"}) {
    auto p = Pattern::compile(text);
    ASSERT_FALSE(p) << text;
    EXPECT_NE(p.error().message.find("cannot be checked in linear time"), std::string::npos)
        << text << ": " << p.error().message;
  }
  // An invalid expression with a lookahead is invalid, not refused for its shape.
  auto invalid = Pattern::compile("(?!a)(b");
  ASSERT_FALSE(invalid);
  EXPECT_NE(invalid.error().message.find("is not a valid regular expression"), std::string::npos)
      << invalid.error().message;
}

TEST(Pattern, AnInvalidExpressionIsAnErrorSayingWhy) {
  auto p = Pattern::compile("cuda(");
  ASSERT_FALSE(p);
  EXPECT_FALSE(p.error().message.empty());
}

TEST(Pattern, HostileInputStaysLinear) {
  // Catastrophic for a backtracking engine; RE2 answers at once.
  const Pattern p = compiled("^(a+)+$");
  EXPECT_FALSE(p.search(std::string(5000, 'a') + "!"));
}

// PatternSet, the prefilter in front of the string rules: it rules a pattern out only where the
// pattern's own search fails, and for plain patterns it says exactly which match.
TEST(PatternSet, RulesOutOnlyWhatThePatternsOwnSearchRulesOut) {
  const std::vector<std::string> texts = {
      R"(^cuda(:\d*)?$)", "(?i)^nccl$", R"(\bnccl\b)", R"(^cuda(?!:0))", R"(gloo(?=\s*$))",
      R"(^(cpu|mps)$)",   "x"};
  std::vector<Pattern> patterns;
  for (const std::string& t : texts) patterns.push_back(compiled(t));
  std::vector<const Pattern*> pointers;
  for (const Pattern& p : patterns) pointers.push_back(&p);
  pointers.push_back(nullptr);  // a rule without a pattern: always a candidate
  const PatternSet set(pointers);
  std::size_t ruled_out = 0;
  for (const std::string& s : std::vector<std::string>{"cuda", "cuda:0", "cuda:1", "NCCL", "backend nccl",
                                                       "ncclx", "gloo ", "gloo x", "cpu", "mpsx", "", "xyz",
                                                       "caf\xc3\xa9 cuda", std::string("\xff\xfe", 2)}) {
    const std::vector<unsigned char> flags = set.mayMatch(s);
    ASSERT_EQ(flags.size(), pointers.size());
    EXPECT_EQ(flags.back(), 0) << s;
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      if (flags[i] == 1) {
        ++ruled_out;
        EXPECT_FALSE(patterns[i].search(s)) << texts[i] << " on '" << s << "'";
      } else if (texts[i].find("(?") == std::string::npos || texts[i].starts_with("(?i)")) {
        EXPECT_TRUE(patterns[i].search(s)) << texts[i] << " on '" << s << "': a plain pattern is exact";
      }
    }
  }
  EXPECT_GT(ruled_out, 50u) << "the set rules most pairs out";
  EXPECT_EQ(set.mayMatch("cuda:0")[3], 0) << "a lookahead pattern's superset lets it decide";
  EXPECT_FALSE(patterns[3].search("cuda:0"));
  EXPECT_TRUE(PatternSet(std::vector<const Pattern*>{}).mayMatch("cuda").empty());
}

}  // namespace
}  // namespace migrate::rules
