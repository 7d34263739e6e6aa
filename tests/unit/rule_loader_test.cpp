// Rule files: validation errors with positions, and the placeholders of messages.

#include <gtest/gtest.h>

#include <algorithm>
#include <unordered_set>

#include "parse/python_parser.hpp"
#include "rules/rule_loader.hpp"
#include "rules/rule_set.hpp"

namespace migrate::rules {
namespace {

const char* kHeader = "format: 1\ndomain: device\nrules:\n";

std::string rule(const std::string& match, const std::string& extra = "") {
  return std::string(kHeader) +
         "  - id: T-1\n"
         "    message: \"{api} -> {npu}{note}\"\n"
         "    npu_alternative: \"{npu}\"\n"
         "    confidence: high\n"
         "    difficulty: low\n"
         "    effort_days: 0.1\n"
         "    match:\n" +
         match + extra;
}

class Sink : public sdk::FindingSink {
 public:
  std::vector<sdk::Finding> findings;
  void report(sdk::Finding f) override { findings.push_back(std::move(f)); }
  void diagnose(sdk::Diagnostic) override {}
};

TEST(RuleLoader, ErrorsNamePositionAndExpectation) {
  auto unknown = loadRules(rule("      api: [a.b]\n", "    severty: info\n"), "p:rules/x.yaml", "device");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("p:rules/x.yaml:12:5: unknown key 'severty'"), std::string::npos)
      << unknown.error().message;
  EXPECT_NE(unknown.error().message.find("did you mean 'severity'"), std::string::npos);

  auto two = loadRules(rule("      api: [a.b]\n      import: [x]\n"), "f", "device");
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message.find("exactly one of"), std::string::npos);

  auto regex = loadRules(rule("      string:\n        regex: '(unclosed'\n"), "f", "device");
  ASSERT_FALSE(regex.ok());
  EXPECT_NE(regex.error().message.find("not a valid regular expression"), std::string::npos);

  auto domain = loadRules(rule("      api: [a.b]\n"), "f", "attention");
  ASSERT_FALSE(domain.ok());
  EXPECT_NE(domain.error().message.find("declares domain 'device'"), std::string::npos);

  // `except` leaves calls out of "any call" only.
  auto except = loadRules(
      rule("      string:\n        regex: '^cuda$'\n        where:\n          - arg_of: [torch.load]\n"
           "            except: [os.path.join]\n"),
      "f", "device");
  ASSERT_FALSE(except.ok());
  EXPECT_NE(except.error().message.find("except leaves calls out of arg_of: ['*'] only"), std::string::npos)
      << except.error().message;

  // `index` selects a positional argument: of arg_of and method_arg_of only.
  auto index = loadRules(
      rule("      string:\n        regex: '^nccl$'\n        where:\n          - keyword: [backend]\n"
           "            index: 1\n"),
      "f", "device");
  ASSERT_FALSE(index.ok());
  EXPECT_NE(index.error().message.find("index selects a positional argument of arg_of or method_arg_of only"),
            std::string::npos)
      << index.error().message;

  auto format = loadRules("format: 2\ndomain: device\nrules: []\n", "f", "device");
  ASSERT_FALSE(format.ok());
  EXPECT_NE(format.error().message.find("this engine reads format 1"), std::string::npos);
}

TEST(RuleLoader, APatternOnlyStdRegexCouldCheckIsRefused) {
  // std::regex would check these, recursing once per character of a string from the repository.
  for (const char* regex : {"'^(a(?!b))+$'", "'(cuda)\\1'", "'^x(?!a)y(?!b)'"}) {
    auto refused =
        loadRules(rule(std::string("      string:\n        regex: ") + regex + "\n"), "f", "device");
    ASSERT_FALSE(refused.ok()) << regex;
    EXPECT_NE(refused.error().message.find("cannot be checked in linear time"), std::string::npos)
        << refused.error().message;
  }
  // One lookahead per alternative, outside groups, runs on RE2 and loads.
  EXPECT_TRUE(
      loadRules(rule("      string:\n        regex: '^NCCL_(?!DEBUG)[A-Z]+$|^x(?=y)'\n"), "f", "device")
          .ok());
}

TEST(RuleLoader, DuplicateIdsAreRefused) {
  std::string text = rule("      api: [a.b]\n");
  text += text.substr(std::string(kHeader).size());
  auto dup = loadRules(text, "f", "device");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.error().message.find("duplicate rule id T-1"), std::string::npos);
}

TEST(RuleLoader, NoNpuCounterpartIsAFlagOfTheRule) {
  auto plain = loadRules(rule("      api: [a.b]\n"), "f", "device");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_FALSE(plain.value()[0].no_npu_counterpart) << "by default an API has a counterpart";
  for (const char* yes : {"true", "yes"}) {
    auto flagged = loadRules(rule("      api: [a.b]\n", std::string("    no_npu_counterpart: ") + yes + "\n"),
                             "f", "device");
    ASSERT_TRUE(flagged.ok()) << flagged.error().message;
    EXPECT_TRUE(flagged.value()[0].no_npu_counterpart) << yes;
  }
  auto word =
      loadRules(rule("      api: [a.b]\n", "    no_npu_counterpart: always\n"), "p:rules/x.yaml", "device");
  ASSERT_FALSE(word.ok());
  EXPECT_NE(word.error().message.find("p:rules/x.yaml:12:25: "), std::string::npos) << word.error().message;
  EXPECT_NE(word.error().message.find("no_npu_counterpart"), std::string::npos) << word.error().message;
}

TEST(RuleSet, ExactBeatsPrefixAndPlaceholdersExpand) {
  auto rules =
      loadRules(std::string(kHeader) +
                    "  - id: EXACT\n    message: \"{api} -> {npu}{note}\"\n    npu_alternative: \"{npu}\"\n"
                    "    confidence: high\n    difficulty: low\n    effort_days: 0.1\n"
                    "    match:\n      api:\n        - {name: torch.cuda.synchronize, npu: "
                    "torch.npu.synchronize, note: \"(same)\"}\n"
                    "    fix: {replace_api: true}\n"
                    "  - id: PREFIX\n    message: \"{api} unknown\"\n"
                    "    confidence: low\n    difficulty: low\n    effort_days: 0.1\n"
                    "    match:\n      api: [torch.cuda.*]\n",
                "f", "device");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  RuleSet set(std::move(rules.value()));
  auto m =
      parse::parsePython("a.py", "import torch\ntorch.cuda.synchronize()\ntorch.cuda.nvtx.range_push('x')\n");
  ASSERT_TRUE(m.ok());
  Sink sink;
  set.match(**m, sink);
  ASSERT_EQ(sink.findings.size(), 2u);
  EXPECT_EQ(sink.findings[0].rule_id, "EXACT");
  EXPECT_EQ(sink.findings[0].message, "torch.cuda.synchronize -> torch.npu.synchronize (same)");
  EXPECT_EQ(sink.findings[0].npu_alternative, "torch.npu.synchronize");
  ASSERT_EQ(sink.findings[0].edits.size(), 1u);
  EXPECT_EQ(sink.findings[0].edits[0].replacement, "torch.npu.synchronize");
  EXPECT_EQ(sink.findings[1].rule_id, "PREFIX");
  EXPECT_EQ(sink.findings[1].message, "torch.cuda.nvtx.range_push unknown");
  EXPECT_FALSE(sink.findings[1].autofix());
}

TEST(RuleSet, AliasedUsesMatchButAreNotAutoFixed) {
  auto rules =
      loadRules(rule("      api:\n        - {name: torch.cuda.synchronize, npu: torch.npu.synchronize}\n",
                     "    fix: {replace_api: true}\n"),
                "f", "device");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  RuleSet set(std::move(rules.value()));
  auto m = parse::parsePython("a.py", "import torch.cuda as tc\ntc.synchronize()\n");
  Sink sink;
  set.match(**m, sink);
  ASSERT_EQ(sink.findings.size(), 1u);
  EXPECT_EQ(sink.findings[0].api, "tc.synchronize");
  EXPECT_EQ(sink.findings[0].resolved_api, "torch.cuda.synchronize");
  EXPECT_FALSE(sink.findings[0].autofix());
}

std::vector<unsigned> linesOf(const std::string& rules_yaml, const std::string& code) {
  auto rules = loadRules(rules_yaml, "f", "device");
  EXPECT_TRUE(rules.ok()) << rules.error().message;
  if (!rules.ok()) return {};
  RuleSet set(std::move(rules.value()));
  auto m = parse::parsePython("a.py", code);
  EXPECT_TRUE(m.ok());
  Sink sink;
  set.match(**m, sink);
  std::vector<unsigned> lines;
  for (const auto& f : sink.findings) lines.push_back(f.range.line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

TEST(RuleSet, AKeywordWithDictKeysAlsoMatchesTheKeysOfDictsAndSubscripts) {
  const std::string yaml = rule(
      "      keyword:\n"
      "        name: [load_in_8bit]\n"
      "        value: '^(?!(False|None)$)'\n"
      "        dict_keys: true\n");
  const std::string code =
      "kw = {'torch_dtype': 'auto', \"load_in_8bit\": True}\n"    // 1 a display's key
      "kw['load_in_8bit'] = args.int8\n"                          // 2 a subscript assignment
      "kw['load_in_8bit'] = False\n"                              // 3 switched off
      "print(kw['load_in_8bit'])\n"                               // 4 read, not set
      "x = y['load_in_8bit':]\n"                                  // 5 not a key
      "f(load_in_8bit=flag)\n"                                    // 6 the keyword itself
      "g({'load_in_8bit': None, 'other': True})\n"                // 7 None
      "d = {\n    'load_in_8bit':\n        cfg.bits == 8,\n}\n";  // 9 across lines
  EXPECT_EQ(linesOf(yaml, code), (std::vector<unsigned>{1, 2, 6, 9}));
}

TEST(RuleSet, AnArgsConstraintOnAnApiMatchTestsTheCallsArgument) {
  const std::string yaml = rule(
      "      api: [torch.device]\n"
      "      args: {index: 0, regex: '^(\\w+\\.)*(local_rank|rank)$'}\n");
  const std::string code =
      "import torch\n"
      "a = torch.device(rank)\n"             // 2
      "b = torch.device(args.local_rank)\n"  // 3
      "c = torch.device('npu', rank)\n"      // 4 the first argument is a string
      "d = torch.device\n";                  // 5 not a call
  EXPECT_EQ(linesOf(yaml, code), (std::vector<unsigned>{2, 3}));
}

TEST(RuleSet, AFindingOfAnArgsConstraintSpansThroughTheArgument) {
  auto rules = loadRules(rule("      api: [flex.create_block_mask]\n"
                              "      args: {keyword: _compile, kind: bool, regex: '^True$'}\n"),
                         "f", "device");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  RuleSet set(std::move(rules.value()));
  auto m = parse::parsePython("a.py",
                              "import flex\n"
                              "mask = flex.create_block_mask(\n"  // 2
                              "    mod, B=1, H=8,\n"
                              "    _compile=True\n"  // 4
                              ")\n"
                              "same = flex.create_block_mask(mod, _compile=True)\n");  // 6
  ASSERT_TRUE(m.ok());
  Sink sink;
  set.match(**m, sink);
  ASSERT_EQ(sink.findings.size(), 2u);
  std::sort(sink.findings.begin(), sink.findings.end(),
            [](const auto& a, const auto& b) { return a.range.line < b.range.line; });
  EXPECT_EQ(sink.findings[0].range.line, 2u);
  EXPECT_EQ(sink.findings[0].range.end_line, 4u);  // the finding reaches the keyword's line
  EXPECT_EQ(sink.findings[1].range.line, 6u);
  EXPECT_EQ(sink.findings[1].range.end_line, 6u);
}

TEST(RuleSet, AComparisonKeptIsNotABranchTestAndAPositionRegexNarrows) {
  const std::string yaml = rule(
      "      string:\n"
      "        regex: '^cuda(:\\d+)?$'\n"
      "        where:\n"
      "          - compare: kept\n"
      "          - arg_of: ['*']\n"
      "            regex: '^cuda:\\d+$'\n");
  const std::string code =
      "def f(x, dev):\n"
      "    if x.device.type == 'cuda':\n"  // 2 picks between branches
      "        pass\n"
      "    else:\n"
      "        pass\n"
      "    if dev == 'cuda':\n"  // 6 a lone guard
      "        pass\n"
      "    use = dev == 'cuda'\n"  // 8 kept
      "    if dev != 'cuda':\n"    // 9 a check: its chain raises
      "        raise ValueError(dev)\n"
      "    elif x:\n"
      "        pass\n"
      "    Dev('cuda:0')\n"      // 13 any call, with an index
      "    Dev('cuda')\n"        // 14 no index: not narrowed in
      "    x.move('cuda:1')\n";  // 15 a method on a value: method_arg_of's
  EXPECT_EQ(linesOf(yaml, code), (std::vector<unsigned>{6, 8, 9, 13}));
}

}  // namespace
}  // namespace migrate::rules

namespace migrate::rules {
namespace {

TEST(RuleSet, TheProjectsOwnPackagesAreNotLibraryUses) {
  auto rules = loadRules(rule("      import: [mamba_ssm]\n"), "f", "device");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  RuleSet set(std::move(rules.value()));
  const std::unordered_set<std::string> roots{"mamba_ssm"};
  auto own = parse::parsePython("mamba_ssm/modules/x.py", "from mamba_ssm.ops import f\n");
  ASSERT_TRUE(own.ok());
  (*own)->setProjectRoots(&roots);
  Sink sink;
  set.match(**own, sink);
  EXPECT_TRUE(sink.findings.empty());
  auto user = parse::parsePython("train.py", "from mamba_ssm.ops import f\n");
  set.match(**user, sink);
  EXPECT_EQ(sink.findings.size(), 1u) << "without the package in the repository it is a library";
}

}  // namespace
}  // namespace migrate::rules

namespace migrate::rules {
namespace {

TEST(RuleSet, OwnRepositoryRulesAlsoMatchInsideTheLibrary) {
  auto rules = loadRules(rule("      api: [apex.amp.initialize]\n      own_repository: true\n") +
                             "  - id: T-2\n"
                             "    message: \"{api}\"\n"
                             "    confidence: high\n"
                             "    difficulty: low\n"
                             "    effort_days: 0.1\n"
                             "    match:\n"
                             "      import: [apex.amp]\n"
                             "      own_repository: true\n"
                             "  - id: T-3\n"
                             "    message: \"{api}\"\n"
                             "    confidence: high\n"
                             "    difficulty: low\n"
                             "    effort_days: 0.1\n"
                             "    match:\n"
                             "      import: [apex]\n",
                         "f", "device");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  RuleSet set(std::move(rules.value()));
  const std::unordered_set<std::string> roots{"apex"};
  auto m = parse::parsePython("examples/train.py", "from apex import amp\nm, o = amp.initialize(m, o)\n");
  ASSERT_TRUE(m.ok());
  (*m)->setProjectRoots(&roots);
  Sink sink;
  set.match(**m, sink);
  std::vector<std::string> ids;
  for (const auto& f : sink.findings) ids.push_back(f.rule_id + "@" + std::to_string(f.range.line));
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"T-1@2", "T-2@1"})) << "T-3 (no own_repository) stays silent";
  auto loader_error = loadRules(rule("      method: [cuda]\n      own_repository: true\n"), "f", "device");
  EXPECT_FALSE(loader_error.ok()) << "own_repository belongs to api and import matches only";
}

TEST(RuleSet, NotBesideSkipsPlatformLabels) {
  auto rules = loadRules(rule("      string:\n"
                              "        regex: '^cuda$'\n"
                              "        where: [{compare: true}, {assign_to: '(?i)device'}]\n"
                              "        not_beside: '^npu$'\n"),
                         "f", "device");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  RuleSet set(std::move(rules.value()));
  auto m = parse::parsePython("a.py",
                              "if npu_ok:\n"                    // 1
                              "    DEVICE = 'npu'\n"            // 2
                              "elif cuda_ok:\n"                 // 3
                              "    DEVICE = 'cuda'\n"           // 4  label: an npu branch beside it
                              "if kind == 'cuda':\n"            // 5  label: the next if tests npu
                              "    pass\n"                      // 6
                              "if kind == 'npu':\n"             // 7
                              "    pass\n"                      // 8
                              "ok = kind in ['cuda', 'npu']\n"  // 9  label: a list entry beside npu
                              "def pick():\n"                   // 10
                              "    if cuda_ok:\n"               // 11
                              "        device = 'cuda'\n"       // 12 a use: no npu alternative
                              "    return device\n"             // 13
                              "x = 'npu'\n");                   // 14 not an alternative of line 12
  ASSERT_TRUE(m.ok());
  Sink sink;
  set.match(**m, sink);
  ASSERT_EQ(sink.findings.size(), 1u);
  EXPECT_EQ(sink.findings[0].range.line, 12u);
}

}  // namespace
}  // namespace migrate::rules
