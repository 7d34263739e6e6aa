#pragma once
/// A rule pack for the fleet's tests of findings "by tool": ACME-001 reports `acme.gpu.launch`,
/// a call with no automatic fix. `rule_keys` adds keys to the rule (indented by four spaces, one
/// per line: `    severity: error\n`).

#include <string>

#include "support/test_support.hpp"

namespace migrate::test {

inline void writeLaunchPack(const fs::path& dir, const std::string& rule_keys = "") {
  writeFile(dir / "pack.yaml",
            "format: 1\nname: acme\nversion: 1.0.0\nprefix: ACME\nmigrate_pipeline: \">=0.4, <1\"\n");
  writeFile(dir / "rules/device.yaml", R"(format: 1
domain: device
rules:
  - id: ACME-001
    title: acme.gpu.launch runs on CUDA only
    message: "{api} launches on CUDA only"
)" + rule_keys + R"(    match:
      api: [{name: acme.gpu.launch}]
    confidence: high
    difficulty: low
    tests:
      invalid:
        - code: |
            import acme.gpu
            acme.gpu.launch(1)
          lines: [2]
      valid:
        - |
          import acme.npu
          acme.npu.launch(1)
)");
  writeFile(dir / "README.md",
            "# acme\n\n### ACME-001 — acme.gpu.launch runs on CUDA only\n\nUse the NPU.\n");
}

/// Commits everything in `repo` (creating the repository on branch main the first time).
inline void commitAll(const fs::path& repo, const std::string& message) {
  const std::string git = "git -C " + quote(repo.string()) + " -c user.name=t -c user.email=t@example.org ";
  if (!fs::exists(repo / ".git")) {
    ASSERT_EQ(run(git + "init -q -b main").exit_code, 0);
  }
  ASSERT_EQ(run(git + "add -A && " + git + "commit -q -m " + quote(message)).exit_code, 0);
}

}  // namespace migrate::test
