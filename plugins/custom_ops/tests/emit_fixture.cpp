#include "emit_fixture.hpp"

namespace migrate::custom_ops_test {

test::ConfiguredPlugin* CustomOpsEmitTest::plugin_ = nullptr;

std::vector<const sdk::Finding*> Emitted::rule(const std::string& id) const {
  std::vector<const sdk::Finding*> out;
  for (const auto& f : findings)
    if (f.rule_id == id) out.push_back(&f);
  return out;
}

std::string detail(const sdk::Finding& f, const std::string& key) {
  auto it = f.details.find(key);
  return it == f.details.end() ? std::string() : it->second;
}

test::CommandResult runClean(const std::string& command, const std::map<std::string, std::string>& env) {
  std::string line = "env -i PATH=/usr/bin:/bin HOME=" + test::quote(fs::temp_directory_path().string());
  for (const auto& [name, value] : env) line += " " + name + "=" + test::quote(value);
  return test::run(line + " bash -c " + test::quote(command));
}

void CustomOpsEmitTest::SetUpTestSuite() {
  auto loaded = test::ConfiguredPlugin::load("custom_ops");
  ASSERT_TRUE(loaded) << loaded.error().message;
  plugin_ = loaded->release();
}

void CustomOpsEmitTest::TearDownTestSuite() {
  delete plugin_;
  plugin_ = nullptr;
}

Emitted CustomOpsEmitTest::emit(const fs::path& repo) {
  MigrationModel model = std::move(plugin_->analyze(repo).model);
  for (const auto& d : model.diagnostics) EXPECT_NE(d.code, "plugin-error") << d.message;
  for (auto& f : model.findings) f.domain = "custom_ops";
  return emitFindings(std::move(model.findings));
}

Emitted CustomOpsEmitTest::emitFindings(std::vector<sdk::Finding> findings) {
  Emitted out;
  out.kit = kits_.path() / ("kit " + std::to_string(++runs_));  // a space: every path is quoted
  out.findings = std::move(findings);
  out.context = std::make_unique<test::TestEmitContext>(out.kit, "sample");
  out.context->mutableFindings() = out.findings;
  plugin_->plugin().emit(*out.context);
  return out;
}

fs::path CustomOpsEmitTest::repo(const std::map<std::string, std::string>& files) {
  return repos_.make(files);
}

}  // namespace migrate::custom_ops_test
