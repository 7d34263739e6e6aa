// The outcomes of verification checks (verify/outcomes.cpp): a check of the adapted tree compared
// with the same check on the original tree, and what a failure says the target lacks.

#include <gtest/gtest.h>

#include "verify/outcomes.hpp"

namespace migrate {
namespace {

CheckResult check(const std::string& name, const std::string& status, const std::string& detail,
                  bool reference = false) {
  CheckResult c{"function", name, status, detail, 0, "", {}};
  c.reference = reference;
  return c;
}

verify::OutcomeContext context() {
  verify::OutcomeContext c;
  c.repository_modules = {"shop", "train"};
  c.declared_packages = {"pyyaml", "wandb"};
  return c;
}

std::map<std::string, CheckResult> outcomes(std::vector<CheckResult> checks) {
  verify::assignOutcomes(checks, context());
  std::map<std::string, CheckResult> by_name;
  for (auto& c : checks) by_name[c.check] = c;
  return by_name;
}

TEST(VerifyOutcomesUnit, EachAdaptedCheckIsComparedWithItsReference) {
  const auto o = outcomes({
      check("a", "passed", "ok"),
      check("a", "passed", "ok", true),
      check("b", "failed", "AssertionError: 1 != 2"),
      check("b", "failed", "AssertionError: 1 != 3", true),
      check("c", "failed", "AttributeError: no npu_relu"),
      check("c", "passed", "ok", true),
      check("d", "passed", "ok"),
      check("d", "failed", "RuntimeError: Torch not compiled with CUDA enabled", true),
      check("e", "failed", "TypeError: bad argument"),
      check("e", "failed", "ValueError: other", true),
      check("npu-ops:rms_norm", "failed", "max_abs=1 against plain PyTorch"),
      check("f", "skipped", "no NPU device"),
      check("only-reference", "failed", "x", true),
  });
  EXPECT_EQ(o.at("a").outcome, "passed");
  EXPECT_EQ(o.at("a").reference_status, "passed");
  EXPECT_EQ(o.at("b").outcome, "pre-existing") << "the same error class on both trees";
  EXPECT_EQ(o.at("c").outcome, "introduced");
  EXPECT_EQ(o.at("c").cause, "passes on the original tree");
  EXPECT_EQ(o.at("d").outcome, "fixed");
  EXPECT_EQ(o.at("e").outcome, "introduced") << "a different failure is the migration's";
  EXPECT_EQ(o.at("npu-ops:rms_norm").outcome, "introduced") << "the kit's own checks have no reference";
  EXPECT_EQ(o.at("f").outcome, "skipped");
  EXPECT_EQ(o.at("f").cause, "no NPU device");
  EXPECT_EQ(o.count("only-reference"), 0u) << "reference records are folded, never checks of their own";
}

TEST(VerifyOutcomesUnit, WhatTheTargetLacksIsTheEnvironment) {
  const auto o = outcomes({
      check("wandb", "failed", "ModuleNotFoundError: No module named 'wandb'"),
      check("wandb", "failed", "ModuleNotFoundError: No module named 'wandb'", true),
      check("yaml", "failed", "ModuleNotFoundError: No module named 'yaml.cyaml'"),
      check("yaml", "failed", "ModuleNotFoundError: No module named 'yaml.cyaml'", true),
      check("pandas", "failed", "ModuleNotFoundError: No module named 'pandas'"),
      check("pandas", "failed", "ModuleNotFoundError: No module named 'pandas'", true),
      check("npu", "failed", "ModuleNotFoundError: No module named 'torch_npu'"),
      check("npu", "passed", "ok", true),
      check("new-import", "failed", "ModuleNotFoundError: No module named 'apex'"),
      check("new-import", "passed", "ok", true),
      check("own", "failed", "ModuleNotFoundError: No module named 'shop.missing'"),
      check("own", "failed", "ModuleNotFoundError: No module named 'shop.missing'", true),
      check("kit", "failed", "ModuleNotFoundError: No module named 'npu_compat'"),
      check("old-torch", "failed", "AttributeError: module 'torch' has no attribute 'compiler'"),
      check("old-torch", "failed", "AttributeError: module 'torch' has no attribute 'compiler'", true),
      check("renamed", "failed", "AttributeError: module 'torch.nn.functional' has no attribute 'npu_relu'"),
      check("renamed", "passed", "ok", true),
      check("tool", "failed", "exit status 127: bash: line 1: pytest: command not found"),
      check("tool", "failed", "exit status 127: bash: line 1: pytest: command not found", true),
  });
  EXPECT_EQ(o.at("wandb").outcome, "environment");
  EXPECT_EQ(o.at("wandb").cause,
            "module wandb: not installed on the target (package wandb, which the project declares)");
  EXPECT_EQ(o.at("yaml").cause,
            "module yaml: not installed on the target (package pyyaml, which the project declares)");
  EXPECT_EQ(
      o.at("pandas").cause,
      "module pandas: not installed on the target (package pandas, which the project does not declare)");
  EXPECT_EQ(o.at("npu").outcome, "environment") << "the NPU stack is the host's to provide";
  EXPECT_EQ(o.at("new-import").outcome, "introduced") << "a third-party import the original did not need";
  EXPECT_EQ(o.at("own").outcome, "pre-existing") << "a module of the repository is no package to install";
  EXPECT_EQ(o.at("kit").outcome, "introduced") << "the kit's modules are the migration's";
  EXPECT_EQ(o.at("old-torch").outcome, "environment");
  EXPECT_EQ(o.at("old-torch").cause,
            "torch on the target has no torch.compiler (the project needs a newer torch)");
  EXPECT_EQ(o.at("renamed").outcome, "introduced") << "the original tree runs on the same torch";
  EXPECT_EQ(o.at("tool").outcome, "environment");
  EXPECT_EQ(o.at("tool").cause, "tool pytest: not found on the target");
}

TEST(VerifyOutcomesUnit, TheVerificationsOwnFailuresAreErrors) {
  auto timed_out = check("stage:original", "error", "timed out after 3 s");
  timed_out.stage = "function";
  const auto o = outcomes({timed_out, check("python-helper", "error", "ended with exit status 1")});
  EXPECT_EQ(o.at("stage:original").outcome, "error");
  EXPECT_EQ(o.at("python-helper").outcome, "error");
  VerifyResult v;
  v.status = "completed";
  v.checks = {o.at("python-helper")};
  EXPECT_EQ(v.verdict(), "incomplete");
  v.checks.front().outcome = "pre-existing";
  EXPECT_EQ(v.verdict(), "passed");
}

TEST(VerifyOutcomesUnit, TopLevelModulesOfATree) {
  EXPECT_EQ(
      verify::topLevelModules({"train.py", "shop/core.py", "src/lib/x.py", "README.md", "docs/conf.py"}),
      (std::set<std::string>{"train", "shop", "src", "lib", "docs"}));
  EXPECT_EQ(verify::normalizedPackage("Py_YAML.ext"), "py-yaml-ext");
}

}  // namespace
}  // namespace migrate
