// The emit stage's parts: the mustache renderer, the source adaptation (edits, imports, TODOs),
// the libgit2 patch checked with `git apply`, the siblings layout's import redirects, and the
// built-in templates rendered and compiled.

#include <gtest/gtest.h>

#include "emit/mustache.hpp"
#include "emit/patch_writer.hpp"
#include "emit/siblings.hpp"
#include "emit/source_edits.hpp"
#include "emit/support_modules.hpp"
#include "emit/template_store.hpp"
#include "migrate/sdk/text_position.hpp"
#include "parse/python_parser.hpp"
#include "support/test_support.hpp"

namespace migrate {
namespace {

using test::TempDir;

std::string render(const std::string& text, const sdk::TemplateData& data) {
  auto out = emit::renderMustache("t", text, data);
  EXPECT_TRUE(out) << (out ? "" : out.error().message);
  return out ? *out : std::string();
}

TEST(Mustache, VariablesAreInsertedVerbatim) {
  sdk::TemplateData d;
  d.set("name", "a<b> & \"c\"");
  EXPECT_EQ(render("x = {{name}}; y = {{{name}}}; z = {{missing}}.", d),
            "x = a<b> & \"c\"; y = a<b> & \"c\"; z = .");
}

TEST(Mustache, SectionsOverFlagsListsAndInvertedSections) {
  sdk::TemplateData d;
  d.set("outer", "O").setFlag("on").setFlag("off", false);
  d.addItem("items").set("v", "1");
  d.addItem("items").set("v", "2").set("outer", "shadowed");
  const std::string text =
      "{{#on}}on{{/on}}{{#off}}off{{/off}}{{^off}}!off{{/off}}|{{#items}}[{{v}} {{outer}}]{{/items}}"
      "{{^items}}none{{/items}}{{! a comment }}";
  EXPECT_EQ(render(text, d), "on!off|[1 O][2 shadowed]");
  sdk::TemplateData empty;
  empty.setEmptyList("items");
  EXPECT_EQ(render("{{#items}}x{{/items}}{{^items}}none{{/items}}", empty), "none");
}

TEST(Mustache, StandaloneTagLinesVanish) {
  sdk::TemplateData d;
  d.setFlag("keep");
  const std::string text =
      "a\n{{#keep}}\n  kept\n  {{/keep}}\n{{#drop}}\ndropped\n{{/drop}}\nb {{#keep}}inline{{/keep}}\n";
  EXPECT_EQ(render(text, d), "a\n  kept\nb inline\n");
}

TEST(Mustache, MalformedTemplatesAreErrorsWithLines) {
  sdk::TemplateData d;
  auto unclosed = emit::renderMustache("t.mustache", "a\n{{#x}}\nb\n", d);
  ASSERT_FALSE(unclosed);
  EXPECT_NE(unclosed.error().message.find("t.mustache:2: section {{#x}} is never closed"), std::string::npos);
  auto mismatched = emit::renderMustache("t", "{{#x}}\n{{/y}}\n", d);
  ASSERT_FALSE(mismatched);
  EXPECT_NE(mismatched.error().message.find("{{/y}} closes {{#x}}"), std::string::npos);
  EXPECT_FALSE(emit::renderMustache("t", "{{> partial}}", d));
  EXPECT_FALSE(emit::renderMustache("t", "{{name", d));
}

// Found by fuzz_mustache: each section's line was counted from the start of the template, and
// each standalone-line check searched to both ends of the line (quadratic over a long template or
// line of tags), and nesting was unbounded (rendering and freeing recurse once per level).
TEST(Mustache, HostileTemplatesAreLinearAndNestingIsBounded) {
  sdk::TemplateData d;
  d.setFlag("on");
  std::string line, lines, deep;
  for (int i = 0; i < 100000; ++i) {
    line += "{{#off}}x{{/off}}";
    lines += "{{#on}}\n{{/on}}\n";
  }
  EXPECT_EQ(render(line, d), "");
  EXPECT_EQ(render(lines + "{{#on}}\nend\n{{/on}}\n", d), "end\n");
  for (int i = 0; i < 100; ++i) deep += "{{#on}}";
  deep += "x";
  for (int i = 0; i < 100; ++i) deep += "{{/on}}";
  EXPECT_EQ(render(deep, d), "x");
  auto deeper = emit::renderMustache("t", "\n{{#on}}" + deep + "{{/on}}", d);
  ASSERT_FALSE(deeper);
  EXPECT_NE(deeper.error().message.find("t:2: sections nested deeper than 100 levels"), std::string::npos)
      << deeper.error().message;
  auto unclosed = emit::renderMustache("t", lines + "{{#x}}\n", d);
  ASSERT_FALSE(unclosed);
  EXPECT_NE(unclosed.error().message.find("t:200001: section {{#x}} is never closed"), std::string::npos)
      << unclosed.error().message;
}

sdk::Finding finding(const std::string& rule, const std::string& file, const std::string& text,
                     const std::string& at, const std::string& replacement, bool fix = true) {
  sdk::Finding f;
  f.rule_id = rule;
  f.file = file;
  f.message = rule + " message. More detail that is cut.";
  const auto start = static_cast<std::uint32_t>(text.find(at));
  EXPECT_NE(text.find(at), std::string::npos) << at;
  sdk::LineIndex index(text);
  f.range = index.range(start, start + static_cast<std::uint32_t>(at.size()));
  if (fix) f.edits.push_back({start, start + static_cast<std::uint32_t>(at.size()), replacement});
  return f;
}

std::vector<const sdk::Finding*> pointers(const std::vector<sdk::Finding>& findings) {
  std::vector<const sdk::Finding*> out;
  for (const auto& f : findings) out.push_back(&f);
  return out;
}

TEST(PythonLayout, TheAnalysisParseRecordsTheImportPlaceAndEveryStatement) {
  const std::string text =
      "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n# c\nimport torch\n\n"
      "def f(x):\n    y = g(x,\n          1)\n    return y\n";
  auto parsed = parse::parsePython("m.py", text);
  ASSERT_TRUE(parsed);
  const PythonLayout& layout = (*parsed)->layout();
  EXPECT_EQ(layout.import_offset, text.find("import torch"));
  // docstring, __future__ import, import, def, then the def's two statements (pre-order)
  ASSERT_EQ(layout.statements.size(), 6u);
  const auto at = [&](const char* s) { return static_cast<std::uint32_t>(text.find(s)); };
  EXPECT_EQ(layout.statements[3].start, at("def f"));
  EXPECT_EQ(layout.statements[4].start, at("y = g"));
  EXPECT_EQ(layout.statements[4].line_start, at("    y = g"));
  // An offset on the statement's second line belongs to the statement's first.
  EXPECT_EQ(layout.statementLineStart(at("1)"), text), at("    y = g"));
  EXPECT_EQ(layout.statementLineStart(at("return"), text), at("    return"));
}

TEST(AdaptSource, UsesTheLayoutItIsGivenRatherThanParsingAgain) {
  const std::string text = "\"\"\"Doc.\"\"\"\nimport torch\nx = torch.cuda.is_available()\n";
  const std::vector<sdk::Finding> fs{
      finding("DEV-001", "m.py", text, "torch.cuda.is_available", "torch.npu.is_available")};
  const std::string parsed = emit::adaptSource("m.py", text, pointers(fs)).text;
  EXPECT_EQ(parsed.find("import npu_compat"), text.find("import torch"));
  auto module = parse::parsePython("m.py", text);
  ASSERT_TRUE(module);
  EXPECT_EQ(emit::adaptSource("m.py", text, pointers(fs), &(*module)->layout()).text, parsed);
  const PythonLayout at_top{0, {}};  // a layout says where the imports go: nothing is parsed
  EXPECT_EQ(emit::adaptSource("m.py", text, pointers(fs), &at_top).text.find("import npu_compat"), 0u);
}

TEST(AdaptSource, AppliesEditsAndAddsTheImportsAfterDocstringAndFutureImports) {
  const std::string text =
      "#!/usr/bin/env python3\n\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n# the imports\nimport "
      "torch\n\n"
      "x = torch.cuda.is_available()\ny = flash(1)\n";
  const std::vector<sdk::Finding> fs{
      finding("DEV-001", "m.py", text, "torch.cuda.is_available", "torch.npu.is_available"),
      finding("ATT-001", "m.py", text, "flash", "npu_ops.flash")};
  const emit::FileAdaptation a = emit::adaptSource("m.py", text, pointers(fs));
  EXPECT_EQ(a.edits_applied, 2u);
  EXPECT_TRUE(a.compat_import_added);
  EXPECT_TRUE(a.ops_import_added);
  EXPECT_EQ(a.text,
            "#!/usr/bin/env python3\n\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n# the imports\n"
            "import npu_compat  # added by migrate-pipeline: torch_npu on NPU hosts, CPU/CUDA elsewhere\n"
            "npu_compat.activate()\nimport npu_ops  # added by migrate-pipeline\nimport torch\n\n"
            "x = torch.npu.is_available()\ny = npu_ops.flash(1)\n");
  // Once adapted, nothing more is added (the edits' targets are gone from the new text).
  EXPECT_EQ(emit::adaptSource("m.py", a.text, {}).text, a.text);
}

TEST(AdaptSource, IdenticalEditsApplyOnceAndOverlappingOnesBecomeManualWork) {
  const std::string text = "import torch\nd = 'cuda'\n";
  std::vector<sdk::Finding> fs{finding("A-1", "m.py", text, "'cuda'", "'npu'"),
                               finding("A-2", "m.py", text, "'cuda'", "'npu'"),
                               finding("B-1", "m.py", text, "cuda", "xpu")};
  const emit::FileAdaptation a = emit::adaptSource("m.py", text, pointers(fs));
  EXPECT_EQ(a.edits_applied, 1u);
  EXPECT_EQ(a.fixed, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(a.conflicting, (std::vector<std::size_t>{2}));
  EXPECT_NE(a.text.find("d = 'npu'"), std::string::npos);
  EXPECT_NE(a.text.find("# TODO(migrate-pipeline B-1): B-1 message.\nd = 'npu'"), std::string::npos)
      << a.text;
}

TEST(AdaptSource, TodoGoesAboveTheWholeStatementWithItsIndentationOnce) {
  const std::string text =
      "def f():\n    y = call(\n        a,\n        cupy_thing(),\n    )\n    return y\n";
  std::vector<sdk::Finding> fs{finding("DEP-7", "m.py", text, "cupy_thing", "", false),
                               finding("DEP-7", "m.py", text, "call", "", false)};
  fs[0].severity = fs[1].severity = sdk::Severity::Warning;
  const emit::FileAdaptation a = emit::adaptSource("m.py", text, pointers(fs));
  EXPECT_EQ(a.todos_added, 1u);
  EXPECT_EQ(a.manual.size(), 2u);
  EXPECT_EQ(a.text,
            "def f():\n    # TODO(migrate-pipeline DEP-7): DEP-7 message.\n    y = call(\n        a,\n"
            "        cupy_thing(),\n    )\n    return y\n");
  EXPECT_FALSE(a.compat_import_added);  // no edit: the file needs no device layer
  // Re-adapting the result with the finding at its new place adds no second TODO.
  std::vector<sdk::Finding> again{finding("DEP-7", "m.py", a.text, "cupy_thing", "", false)};
  EXPECT_EQ(emit::adaptSource("m.py", a.text, pointers(again)).text, a.text);
}

TEST(AdaptSource, ShellTodoStaysOutOfBackslashContinuationsAndKeepsCrlf) {
  const std::string text = "#!/bin/sh\r\nexport A=1 \\\r\n  NCCL_X=2\r\necho done\r\n";
  std::vector<sdk::Finding> fs{finding("DIST-1", "run.sh", text, "NCCL_X", "", false)};
  const emit::FileAdaptation a = emit::adaptSource("run.sh", text, pointers(fs));
  EXPECT_EQ(a.text,
            "#!/bin/sh\r\n# TODO(migrate-pipeline DIST-1): DIST-1 message.\r\nexport A=1 \\\r\n  "
            "NCCL_X=2\r\necho done\r\n");
  EXPECT_EQ(emit::commentPrefixFor("k.cu"), "//");
  EXPECT_EQ(emit::commentPrefixFor("Dockerfile"), "#");
  EXPECT_EQ(emit::commentPrefixFor("data.json"), "");
  // A Markdown page takes shell comments in its blocks only when it is a guide.
  EXPECT_EQ(emit::commentPrefixFor("docs/asr.md", "# ASR\n## Installation\n"), "#");
  EXPECT_EQ(emit::commentPrefixFor("docs/results.md", "# Results\n"), "");
  std::vector<sdk::Finding> json{finding("X-1", "data.json", "{\"cuda\": 1}", "cuda", "", false)};
  const emit::FileAdaptation j = emit::adaptSource("data.json", "{\"cuda\": 1}", pointers(json));
  EXPECT_EQ(j.text, "{\"cuda\": 1}");  // no comment syntax: manual work only
  EXPECT_EQ(j.manual.size(), 1u);
}

TEST(AdaptSource, EditsOutsideTheFileAreRefused) {
  const std::string text = "x = 1\n";
  sdk::Finding f = finding("A-1", "m.py", text, "1", "2");
  f.edits[0].end_byte = 99;
  const emit::FileAdaptation a = emit::adaptSource("m.py", text, {&f});
  EXPECT_EQ(a.edits_applied, 0u);
  EXPECT_EQ(a.conflicting.size(), 1u);
}

TEST(PatchWriter, GitApplyReproducesTheAdaptedTree) {
  TempDir dir;
  const auto repo = dir / "repo";
  test::writeFile(repo / "a.py", "import torch\nx = 'cuda'\n");
  test::writeFile(repo / "run.sh", "#!/bin/sh\necho NCCL\n");
  std::filesystem::permissions(repo / "run.sh", std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add);
  ASSERT_EQ(test::run("cd " + test::quote(repo.string()) +
                      " && git init -q . && git add -A && "
                      "git -c user.name=t -c user.email=t@t commit -qm init")
                .exit_code,
            0);
  emit::PatchWriter patch;
  ASSERT_TRUE(patch.add("a.py", test::readFile(repo / "a.py"), "import torch\nx = 'npu'\n"));
  ASSERT_TRUE(patch.add("run.sh", test::readFile(repo / "run.sh"), "#!/bin/sh\necho HCCL\n", true));
  ASSERT_TRUE(patch.add("new/mod.py", std::nullopt, "print('new')\n"));
  ASSERT_TRUE(patch.add("same.py", std::string("x\n"), "x\n"));  // unchanged: nothing
  EXPECT_EQ(patch.files(), 3u);
  test::writeFile(dir / "p.patch", patch.text());
  const auto apply = test::run("cd " + test::quote(repo.string()) +
                               " && git apply --check ../p.patch && git apply ../p.patch");
  ASSERT_EQ(apply.exit_code, 0) << apply.output << patch.text();
  EXPECT_EQ(apply.output, "");  // no mode warnings
  EXPECT_EQ(test::readFile(repo / "a.py"), "import torch\nx = 'npu'\n");
  EXPECT_EQ(test::readFile(repo / "new/mod.py"), "print('new')\n");
  EXPECT_EQ(test::run("cd " + test::quote(repo.string()) + " && git diff --summary").output, "");
}

TEST(Siblings, ImportsOfAdaptedModulesPointToTheirNpuVersions) {
  const std::string text =
      "from gpt.model import GPT, Block\nfrom . import attention\nfrom gpt import rope as r\nimport "
      "gpt.model as gm\n"
      "import gpt.model\nfrom gpt.config import Config\nimport torch\n";
  const std::set<std::string> adapted{"gpt.model", "gpt.attention", "gpt.rope"};
  std::vector<sdk::Finding> redirects = emit::siblingImportEdits("gpt/train.py", text, adapted);
  const emit::FileAdaptation a = emit::adaptSource("gpt/train.py", text, pointers(redirects));
  EXPECT_NE(a.text.find("from gpt.model_npu import GPT, Block\n"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("from . import attention_npu as attention\n"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("from gpt import rope_npu as r\n"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("import gpt.model_npu as gm\n"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("# TODO(migrate-pipeline EMIT-002)"), std::string::npos) << a.text;
  EXPECT_NE(a.text.find("from gpt.config import Config\n"), std::string::npos);
  EXPECT_EQ(emit::siblingPath("gpt/model.py"), "gpt/model_npu.py");
}

TEST(SupportModules, EveryBuiltInTemplateRendersAndTheModulesCompile) {
  TempDir dir;
  const emit::TemplateStore templates;
  auto compat = emit::renderCompatModule(templates, "proj");
  ASSERT_TRUE(compat) << compat.error().message;
  test::writeFile(dir / "npu_compat.py", *compat);
  for (const std::set<std::string>& sections :
       {std::set<std::string>{},
        std::set<std::string>{"op_flash_attn", "op_xformers", "op_rms_norm", "op_rotary", "op_swiglu"},
        std::set<std::string>{"op_rotary"}}) {
    auto ops = emit::renderOpsModule(templates, "proj", sections);
    ASSERT_TRUE(ops) << ops.error().message;
    EXPECT_EQ(emit::recordedSections(*ops), sections);
    test::writeFile(dir / "npu_ops.py", *ops);
    const auto check = test::run("cd " + test::quote(dir.path().string()) +
                                 " && /usr/bin/python3 -m pyflakes npu_compat.py npu_ops.py && "
                                 "/usr/bin/python3 -c 'import npu_compat, npu_ops'");
    EXPECT_EQ(check.exit_code, 0) << check.output;
  }
  EXPECT_TRUE(emit::isKnownSection(templates, "npu_ops.py", "op_rms_norm"));
  EXPECT_FALSE(emit::isKnownSection(templates, "npu_ops.py", "op_nothing"));
  EXPECT_FALSE(templates.text("no_such_template"));
}

TEST(TemplateStore, AFileInTheOverrideDirectoryReplacesTheBuiltInTemplate) {
  TempDir dir;
  test::writeFile(dir / "npu_compat.py.mustache", "# custom for {{project}}\n");
  const emit::TemplateStore templates(dir.path());
  auto compat = emit::renderCompatModule(templates, "proj");
  ASSERT_TRUE(compat);
  EXPECT_EQ(*compat, "# custom for proj\n");
  EXPECT_TRUE(emit::renderOpsModule(templates, "proj", {}));  // not overridden: built-in
}

}  // namespace
}  // namespace migrate
