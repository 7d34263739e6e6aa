#pragma once
/// A rule pack whose fix is wrong, for the verification's tests: ACME-001 renames
/// torch.nn.functional.relu to npu_relu, a function torch does not have (on the CPU path or
/// anywhere), so a test calling relu fails on the adapted tree only: an `introduced` failure that
/// attribution names.

#include <filesystem>

#include "support/test_support.hpp"

namespace migrate::test {

inline void writeWrongPack(const fs::path& dir) {
  writeFile(dir / "pack.yaml",
            "format: 1\nname: acme\nversion: 1.0.0\nprefix: ACME\nmigrate_pipeline: \">=0.4, <1\"\n");
  writeFile(dir / "rules" / "device.yaml", R"(format: 1
domain: device
rules:
  - id: ACME-001
    title: relu has a faster NPU kernel
    message: "{api}: use {npu}"
    match:
      api:
        - name: torch.nn.functional.relu
          npu: torch.nn.functional.npu_relu
    npu_alternative: "{npu}"
    confidence: high
    difficulty: low
    effort_days: 0.1
    fix: {replace_api: true}
    tests:
      invalid:
        - code: |
            import torch
            torch.nn.functional.relu(torch.ones(1))
          lines: [2]
      valid:
        - |
          import torch
          torch.relu(torch.ones(1))
)");
  writeFile(dir / "README.md", "# acme\n\n### ACME-001 — relu has a faster NPU kernel\n\nUse npu_relu.\n");
}

}  // namespace migrate::test
