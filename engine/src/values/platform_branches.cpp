// Conditions that select a platform (platform_branches.hpp).

#include "values/platform_branches.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <string>
#include <vector>

namespace migrate::values {
namespace {

bool space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\';
}

/// Without surrounding blanks, and without parentheses around the whole text.
std::string_view trim(std::string_view s) {
  for (;;) {
    while (!s.empty() && space(s.front())) s.remove_prefix(1);
    while (!s.empty() && space(s.back())) s.remove_suffix(1);
    if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
    int depth = 0;  // the first '(' must close at the last character
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
      if (depth == 0) return s;
    }
    s = s.substr(1, s.size() - 2);
  }
}

bool identChar(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/// The operands of the condition's top-level chain of `op` ("and" or "or"; outside brackets and
/// strings); empty when it has the other operator at the top level too.
std::vector<std::string_view> chainTerms(std::string_view c, std::string_view op) {
  const std::string_view other = op == "and" ? "or" : "and";
  std::vector<std::string_view> terms;
  std::size_t from = 0;
  int depth = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const char ch = c[i];
    if (ch == '"' || ch == '\'') {  // skip the literal
      const std::size_t close = c.find(ch, i + 1);
      if (close == std::string_view::npos) break;
      i = close;
      continue;
    }
    if (ch == '(' || ch == '[' || ch == '{') ++depth;
    if (ch == ')' || ch == ']' || ch == '}') --depth;
    if (depth != 0 || (i > 0 && identChar(c[i - 1]))) continue;
    auto word = [&](std::string_view w) {
      return c.substr(i, w.size()) == w && (i + w.size() == c.size() || !identChar(c[i + w.size()]));
    };
    if (word(other)) return {};
    if (word(op)) {
      terms.push_back(trim(c.substr(from, i - from)));
      from = i + op.size();
    }
  }
  terms.push_back(trim(c.substr(from)));
  return terms;
}

/// Whether `t` tests `platform` positively: matches it and is no negation (`not …`, `… is None`).
bool testsPositively(std::string_view t, const RE2& platform) {
  static const RE2 kNegated(R"(^not\b|\bis\s+None\b|==\s*None\b)");
  return !RE2::PartialMatch(t, kNegated) && RE2::PartialMatch(t, platform);
}

/// Another platform tested positively: a ROCm/HIP build or device, XLA/TPU, Apple's MPS, Intel's
/// XPU, Gaudi's HPU (`torch.version.hip`, `is_xla_installed()`, `torch.backends.mps.is_available()`,
/// `device.type == "xpu"`, a flag named for ROCm or AMD: `HAS_FLASH_ATTN_V2_ROCM`, `opt.amd`).
bool testsOtherPlatform(std::string_view t) {
  static const RE2 kOther(
      R"(\btorch\.version\.hip\b|\bis_?(hip|rocm)\w*\s*\(|\b(IS|USE|ON)_(HIP|ROCM)\b|\b(is_)?(hip|rocm)(_build)?$|)"
      R"(^(\w+\.)*(\w+_)?(?i:rocm|hip|amd)(_\w+)?$|)"
      R"(\b(getenv|environ\.get|environ)\s*[(\[]\s*["'](\w+_)?(?i:rocm|hip)(_\w+)?["']|)"
      R"(\bis_(torch_)?(xla|tpu|mps|xpu|hpu)\w*\s*\(|\btorch\.(backends\.)?(mps|xpu|hpu)\.is_available\s*\(|)"
      R"((==|\bin\b)\s*\(?\s*["'](rocm|hip|xla|tpu|mps|xpu|hpu)["']|["'](rocm|hip|xla|tpu|mps|xpu|hpu)["']\s*==)",
      RE2::Quiet);
  return testsPositively(t, kOther);
}

/// The NPU, tested positively (`is_npu_available()`, `torch.npu.is_available()`, `x == "npu"`,
/// `dev.startswith("npu")`, a flag named for the test: `is_npu_available`, `use_torch_npu`,
/// `self.on_npu`, `USE_NPU`).
bool testsNpu(std::string_view t) {
  static const RE2 kNpu(
      R"(^(\w+\.)*(is_)?(torch_)?npu\w*(\.is_available)?\s*\(.*\)$|==\s*["']npu["']|["']npu["']\s*(==|in\b)|)"
      R"(^[\w.]+\.startswith\s*\(\s*["']npu|^(\w+\.)*(?i:is|use|using|on|has|with)_(?i:torch_)?(?i:npu)\w*$)");
  return RE2::PartialMatch(t, kNpu);
}

/// The NPU excluded (`not is_npu_available()`, `device.type != "npu"`, `not use_torch_npu`).
bool excludesNpu(std::string_view t) {
  static const RE2 kNotNpu(
      R"(^not\s+\(?\s*(\w+\.)*(is_)?(torch_)?npu\w*(\.is_available)?\s*\(|!=\s*["']npu["']|)"
      R"(^not\s+(\w+\.)*(?i:is|use|using|on|has|with)_(?i:torch_)?(?i:npu)\w*$)");
  return RE2::PartialMatch(t, kNotNpu);
}

}  // namespace

PlatformTest classifyCondition(std::string_view condition) {
  condition = trim(condition);  // a condition wrapped in parentheses as a whole too
  const auto terms = chainTerms(condition, "and");
  if (terms.empty()) {
    // `(torch.cuda.is_available() and torch.version.hip is not None) or os.getenv("FORCE_ROCM")`:
    // an `or` of tests that each select another platform selects it too.
    const auto alternatives = chainTerms(condition, "or");
    const bool off = !alternatives.empty() &&
                     std::all_of(alternatives.begin(), alternatives.end(),
                                 [](auto t) { return classifyCondition(t) == PlatformTest::OffNpu; });
    return off ? PlatformTest::OffNpu : PlatformTest::Neither;
  }
  bool npu = false;
  std::vector<std::string_view> tests;  // the terms that are no `or` of their own
  for (std::string_view t : terms) {
    // `torch.cuda.is_available() and (torch.version.cuda or torch.version.hip)`: an `or` in the
    // chain selects another platform only when each of its alternatives does.
    if (chainTerms(trim(t), "or").size() > 1) {
      if (classifyCondition(t) == PlatformTest::OffNpu) return PlatformTest::OffNpu;
      continue;
    }
    if (testsOtherPlatform(t) || excludesNpu(t)) return PlatformTest::OffNpu;
    npu = npu || testsNpu(t);
    tests.push_back(t);
  }
  if (npu) return PlatformTest::NpuOnly;
  // A helper named for the CUDA test (`is_torch_cuda_available()`, `is_cuda_available()`): the
  // kit renames torch.cuda.is_available, not these, so on an NPU they stay False and the branch
  // is never taken.
  static const RE2 kCudaHelper(R"(^(\w+\.)*is_\w*cuda\w*_available\s*\(\s*\)$)");
  if (terms.size() == 1 && RE2::FullMatch(terms.front(), kCudaHelper)) return PlatformTest::OffNpu;
  // A CUDA test (`torch.cuda.is_available()`, `dev.startswith("cuda")`, `x.is_cuda`, a flag named
  // for it: `HAS_CUDA`, `use_cuda`), alone or `and`-ed with others: off the NPU only in a chain
  // that has an NPU branch too (onIf decides).
  static const RE2 kCuda(R"(^(\w+\.)*is_available\s*\(\s*\)$|\.startswith\s*\(\s*["']cuda|==\s*["']cuda["']|)"
                         R"(["']cuda["']\s*(==|in\b)|\.is_cuda$|)"
                         R"(^(\w+\.)*(?i:is|use|using|on|has|with)_(?i:torch_)?(?i:cuda)\w*$)");
  const bool cuda = !tests.empty() && std::all_of(tests.begin(), tests.end(), [](std::string_view t) {
    return (t.find("cuda") != std::string_view::npos || t.find("CUDA") != std::string_view::npos) &&
           testsPositively(t, kCuda);
  });
  return cuda ? PlatformTest::Cuda : PlatformTest::Neither;
}

bool namesOtherPlatform(std::string_view function_name) {
  static const RE2 kOther(R"((?i)(^|_)(amd|rocm|hip|xpu|mps|xla|tpu|hpu)(_|$))");
  return RE2::PartialMatch(function_name, kOther);
}

}  // namespace migrate::values
