// custom_ops' per-file memo of its extension glue pass (glue_memo.cpp): what a run stores in the
// analysis cache comes back the same, and bytes that are not such a memo are refused, never
// half-read into the summary.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "glue_summary.hpp"

namespace custom_ops::glue {
namespace {

PyFile sample() {
  PyFile f;
  f.autograd_import = true;
  f.imports.push_back({3, "pkg.ops", "conv_fwd", "conv_fwd", false});
  f.imports.push_back({4, "fused_ext", "", "fe", false});
  f.imports.push_back({5, "pkg.all", "*", "", true});
  Block helper{"helper", 10, 120, 14, {}, {}};
  helper.uses.calls = {"conv_fwd"};
  helper.uses.attributes = {{"fe", "forward"}, {"fe", "backward"}};
  f.functions.push_back(helper);
  Block cls{"Conv", 20, 300, 40, {}, {}};
  cls.uses.calls = {"helper"};
  cls.uses.launch = true;
  f.classes.push_back(cls);
  return f;
}

void expectSameSummary(const PyFile& a, const PyFile& b) {
  EXPECT_EQ(a.autograd_import, b.autograd_import);
  ASSERT_EQ(a.imports.size(), b.imports.size());
  for (std::size_t i = 0; i < a.imports.size(); ++i) {
    EXPECT_EQ(a.imports[i].line, b.imports[i].line);
    EXPECT_EQ(a.imports[i].module, b.imports[i].module);
    EXPECT_EQ(a.imports[i].name, b.imports[i].name);
    EXPECT_EQ(a.imports[i].bound, b.imports[i].bound);
    EXPECT_EQ(a.imports[i].star, b.imports[i].star);
  }
  auto same = [](const std::vector<Block>& x, const std::vector<Block>& y) {
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(x[i].name, y[i].name);
      EXPECT_EQ(x[i].line, y[i].line);
      EXPECT_EQ(x[i].name_begin, y[i].name_begin);
      EXPECT_EQ(x[i].body_end, y[i].body_end);
      EXPECT_EQ(x[i].uses.calls, y[i].uses.calls);
      EXPECT_EQ(x[i].uses.attributes, y[i].uses.attributes);
      EXPECT_EQ(x[i].uses.launch, y[i].uses.launch);
    }
  };
  same(a.functions, b.functions);
  same(a.classes, b.classes);
}

TEST(GlueMemo, ASummaryAndAScanComeBackAsStored) {
  const Scan scan{
      {"fused_ext", "other_ext"},
      true,
      {{"load_module", true, true, true, {}}, {"_init", false, true, false, {"get_plugin", "dirname"}}}};
  const PyFile file = sample();
  Scan s;
  PyFile f;
  bool summarised = false;
  ASSERT_TRUE(decodeMemo(encodeMemo(scan, &file), s, f, summarised));
  EXPECT_TRUE(summarised);
  EXPECT_EQ(s.declared, scan.declared);
  EXPECT_TRUE(s.may_import);
  ASSERT_EQ(s.builders.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(s.builders[i].name, scan.builders[i].name);
    EXPECT_EQ(s.builders[i].loads, scan.builders[i].loads);
    EXPECT_EQ(s.builders[i].cuda, scan.builders[i].cuda);
    EXPECT_EQ(s.builders[i].returns, scan.builders[i].returns);
    EXPECT_EQ(s.builders[i].calls, scan.builders[i].calls);
  }
  expectSameSummary(f, file);

  PyFile untouched;
  untouched.path = "kept.py";
  ASSERT_TRUE(decodeMemo(encodeMemo(Scan{{}, false}, nullptr), s, untouched, summarised));
  EXPECT_FALSE(summarised) << "a scan without a summary";
  EXPECT_TRUE(s.declared.empty());
  EXPECT_TRUE(untouched.imports.empty());
  EXPECT_EQ(untouched.path, "kept.py") << "the path is the file's, never the memo's";
}

TEST(GlueMemo, EveryTruncationExtraByteOrForeignValueIsRefused) {
  const std::string bytes = encodeMemo(Scan{{"fused_ext"}, true}, [] {
    static const PyFile f = sample();
    return &f;
  }());
  const PyFile before = sample();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    Scan s;
    PyFile f = before;
    bool summarised = false;
    EXPECT_FALSE(decodeMemo(bytes.substr(0, n), s, f, summarised)) << n << " bytes";
    expectSameSummary(f, before);  // nothing half-read
  }
  Scan s;
  PyFile f;
  bool summarised = false;
  EXPECT_FALSE(decodeMemo(bytes + '\0', s, f, summarised)) << "an extra byte";
  std::string cbor;
  nlohmann::json::to_cbor(nlohmann::json{{"declared", {"x"}}}, cbor);
  EXPECT_FALSE(decodeMemo(cbor, s, f, summarised)) << "a map, not the flat array";
  cbor.clear();
  nlohmann::json::to_cbor(nlohmann::json::array({1000000000, "x"}), cbor);
  EXPECT_FALSE(decodeMemo(cbor, s, f, summarised)) << "a count beyond the memo";
  cbor.clear();
  nlohmann::json::to_cbor(nlohmann::json::array({0, "not a bool", false}), cbor);
  EXPECT_FALSE(decodeMemo(cbor, s, f, summarised)) << "a value of another type";
  cbor.clear();
  nlohmann::json::to_cbor(nlohmann::json::array({-1.5e305, false, false}), cbor);
  EXPECT_FALSE(decodeMemo(cbor, s, f, summarised))
      << "a float where a count goes (found by fuzz_cache_entry)";
  cbor.clear();
  nlohmann::json::to_cbor(nlohmann::json::array({-1, false, false}), cbor);
  EXPECT_FALSE(decodeMemo(cbor, s, f, summarised)) << "a negative count";
  EXPECT_FALSE(decodeMemo("\xff\x00\xff", s, f, summarised));
}

TEST(GlueMemo, NestedArraysAreRefusedAtTheirFirstLevel) {
  // A memo is one flat array. 200,000 nested one-element arrays (0x81 each) overflowed the stack of
  // the library's recursive reader, found by fuzz_cache_entry; now refused at the second level.
  Scan s;
  PyFile f;
  bool summarised = false;
  EXPECT_FALSE(decodeMemo(std::string(200000, '\x81') + '\x00', s, f, summarised));
  std::string cbor;
  nlohmann::json::to_cbor(nlohmann::json::array({0, nlohmann::json::array({false}), false}), cbor);
  EXPECT_FALSE(decodeMemo(cbor, s, f, summarised)) << "one array inside";
  cbor.clear();
  nlohmann::json::to_cbor(nlohmann::json(false), cbor);
  EXPECT_FALSE(decodeMemo(cbor, s, f, summarised)) << "a value alone";
}

}  // namespace
}  // namespace custom_ops::glue
