// triton_notes.md written by the custom_ops emit hook: every Triton kernel with its facts, its
// launches, autotune configs and APIs to rework; the Python sketches compiled by python3.

#include <regex>
#include <set>

#include "emit_fixture.hpp"

namespace migrate::custom_ops_test {
namespace {

/// The section of the notes about one kernel (up to the next kernel's heading).
std::string sectionOf(const std::string& notes, const sdk::Finding& kernel) {
  const std::string heading = "\n## `" + detail(kernel, "kernel") + "` (" + kernel.file + ":" +
                              std::to_string(kernel.range.line) + ")\n";
  const std::size_t at = notes.find(heading);
  if (at == std::string::npos) return {};
  return notes.substr(at, notes.find("\n## ", at + heading.size()) - at);
}

/// Writes each ```python block of `markdown` to a file and byte-compiles it with python3.
int compilePythonBlocks(const std::string& markdown, const fs::path& dir) {
  static const std::regex kBlock("```python\n([\\s\\S]*?)```");
  int blocks = 0;
  for (auto it = std::sregex_iterator(markdown.begin(), markdown.end(), kBlock); it != std::sregex_iterator();
       ++it) {
    const fs::path file = dir / ("sketch_" + std::to_string(++blocks) + ".py");
    test::writeFile(file, (*it)[1].str());
    const auto r = test::run("/usr/bin/python3 -m py_compile " + test::quote(file.string()));
    EXPECT_EQ(r.exit_code, 0) << (*it)[1].str() << "\n" << r.output;
  }
  return blocks;
}

/// The BLOCK_SIZE_SUB the notes should suggest: 192 KB over the loaded and stored float32
/// blocks, halved, rounded down to a power of two.
long expectedSubBlock(const sdk::Finding& kernel) {
  const long tensors = std::max(1, std::stoi(detail(kernel, "loads")) + std::stoi(detail(kernel, "stores")));
  const long elements = 192 * 1024 / (4 * tensors) / 2;
  long power = 64;
  while (power * 2 <= elements) power *= 2;
  return power;
}

/// The npu_ops.py sections the findings' kernel categories call for.
std::set<std::string> expectedSections(const Emitted& e) {
  const std::map<std::string, std::string> by_category{
      {"rms_norm", "op_rms_norm"}, {"rotary_embedding", "op_rotary"}, {"swiglu", "op_swiglu"}};
  std::set<std::string> out;
  for (const auto& f : e.findings)
    if (f.rule_id == "OPS-001" || f.rule_id == "OPS-021")
      if (auto it = by_category.find(detail(f, "category")); it != by_category.end())
        out.insert("npu_ops.py:" + it->second);
  return out;
}

TEST_F(CustomOpsEmitTest, TritonNotesDescribeEveryKernelOfTheBundledExample) {
  const Emitted e = emit(test::sourceDir() / "examples" / "gpt_cuda");
  const auto kernels = e.rule("OPS-021");
  ASSERT_FALSE(kernels.empty());
  ASSERT_TRUE(e.wrote("triton_notes.md"));
  EXPECT_FALSE(e.context->written.at("triton_notes.md"));
  const std::string notes = e.read("triton_notes.md");

  for (const sdk::Finding* k : kernels) {
    const std::string name = detail(*k, "kernel");
    const std::string section = sectionOf(notes, *k);
    ASSERT_FALSE(section.empty()) << name << " has no section:\n" << notes;
    EXPECT_NE(section.find("`" + name + detail(*k, "signature") + "`"), std::string::npos) << section;
    EXPECT_NE(section.find("Block parameters: " + detail(*k, "block_params") + "."), std::string::npos)
        << section;
    EXPECT_NE(section.find("**" + std::to_string(expectedSubBlock(*k)) + "** elements"), std::string::npos)
        << section;
    EXPECT_NE(section.find("BLOCK_SIZE_SUB: tl.constexpr"), std::string::npos)
        << "the sketch adds the sub-block";
    for (const sdk::Finding* l : e.rule("OPS-023")) {
      if (detail(*l, "kernel") != name) continue;
      const std::string site = l->file + ":" + std::to_string(l->range.line);
      EXPECT_NE(section.find("- " + site + ": grid `" + detail(*l, "grid_expression") + "`"),
                std::string::npos)
          << site << "\n"
          << section;
      if (!detail(*l, "num_warps").empty()) {
        EXPECT_NE(section.find("- " + site + ": remove num_warps=" + detail(*l, "num_warps") + "."),
                  std::string::npos)
            << section;
      }
    }
    bool listed = false;
    for (const auto& w : e.context->manual_work)
      listed = listed || (w.rule_id == "OPS-021" && w.file == k->file && w.line == k->range.line &&
                          w.what.find("triton_notes.md") != std::string::npos);
    EXPECT_TRUE(listed) << name;
  }
  // The autotuned kernel's configs: num_warps to remove, at the decorator's line.
  for (const sdk::Finding* t : e.rule("OPS-022")) {
    const std::string line = "- " + t->file + ":" + std::to_string(t->range.line) +
                             ": `triton.autotune` with " + detail(*t, "configs") + " config(s)";
    EXPECT_NE(notes.find(line), std::string::npos) << notes;
    EXPECT_NE(notes.find("remove num_warps (" + detail(*t, "num_warps") + ")"), std::string::npos) << notes;
  }
  EXPECT_EQ(compilePythonBlocks(notes, kits_.path()), static_cast<int>(kernels.size()));
  // RMSNorm kernels point at the kit's npu_ops.rms_norm, whose section is required.
  EXPECT_EQ(e.context->sections, expectedSections(e));
  EXPECT_TRUE(e.context->sections.count("npu_ops.py:op_rms_norm"));
  EXPECT_NE(notes.find("call `npu_ops.rms_norm(x, weight, eps)`"), std::string::npos);
}

TEST_F(CustomOpsEmitTest, TritonNotesListTmaAndOtherCudaOnlyApisOfTheFixture) {
  const Emitted e = emit(test::sourceDir() / "plugins/custom_ops/tests/fixtures/fused_ops_project/input");
  ASSERT_TRUE(e.wrote("triton_notes.md"));
  const std::string notes = e.read("triton_notes.md");
  for (const sdk::Finding* k : e.rule("OPS-021")) EXPECT_FALSE(sectionOf(notes, *k).empty()) << k->api;
  // Each TMA, driver-query and CUDA-only API use is listed at its line, under its kernel or apart.
  for (const char* rule : {"OPS-024", "OPS-025", "OPS-026"}) {
    ASSERT_FALSE(e.rule(rule).empty()) << rule;
    for (const sdk::Finding* f : e.rule(rule))
      EXPECT_NE(notes.find("- " + f->file + ":" + std::to_string(f->range.line) + ": `" + f->api + "` (" +
                           rule + ")"),
                std::string::npos)
          << rule << "\n"
          << notes;
  }
  for (const sdk::Finding* k : e.rule("OPS-021")) {
    const std::string section = sectionOf(notes, *k);
    if (detail(*k, "features").find("tma") != std::string::npos) {
      EXPECT_NE(section.find("It builds TMA tensor descriptors"), std::string::npos) << section;
    }
    if (detail(*k, "dots") != "0") {
      EXPECT_NE(section.find("It uses `tl.dot`"), std::string::npos) << section;
    }
  }
  compilePythonBlocks(notes, kits_.path());
  // The CUDA RMSNorm kernel and the Triton SwiGLU kernel both have torch_npu fused ops.
  EXPECT_EQ(e.context->sections, expectedSections(e));
  EXPECT_TRUE(e.context->sections.count("npu_ops.py:op_swiglu"));
  EXPECT_TRUE(e.context->sections.count("npu_ops.py:op_rms_norm"));
}

}  // namespace
}  // namespace migrate::custom_ops_test
