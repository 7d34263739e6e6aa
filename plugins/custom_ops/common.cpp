// Shared helpers of the custom_ops plugin.

#include "common.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

namespace custom_ops {

void Rules::load(const sdk::PluginContext& context) {
  rules_.clear();
  for (int i = 1; i <= 99; ++i) {
    char id[16];
    std::snprintf(id, sizeof id, "OPS-%03d", i);
    if (const sdk::RuleInfo* r = context.rule(id)) rules_.emplace(id, r);
  }
}

const sdk::RuleInfo* Rules::get(std::string_view id) const {
  auto it = rules_.find(id);
  return it == rules_.end() ? nullptr : it->second;
}

std::optional<sdk::Finding> Rules::make(std::string_view id, const std::string& file,
                                        const sdk::SourceRange& range, std::string api, std::string resolved,
                                        std::map<std::string, std::string> vars) const {
  const sdk::RuleInfo* rule = get(id);
  if (!rule) return std::nullopt;
  return sdk::findingFrom(*rule, file, range, std::move(api), std::move(resolved), std::move(vars));
}

namespace {

std::vector<std::string_view> directories(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t b = 0;
  for (std::size_t i = 0; i < path.size(); ++i)
    if (path[i] == '/') {
      out.push_back(path.substr(b, i - b));
      b = i + 1;
    }
  return out;  // the file name itself is not a directory
}

}  // namespace

bool inSkippedDir(std::string_view path, const std::vector<std::string>& dirs) {
  for (std::string_view d : directories(path))
    for (const auto& s : dirs)
      if (d == s) return true;
  return false;
}

bool inOtherVendorBackend(std::string_view path) {
  static const char* const kVendors[] = {
      "nvidia",   "amd",  "rocm",    "hip",   "cambricon", "mlu",   "kunlunxin", "xpu", "metax",
      "mthreads", "musa", "hygon",   "dcu",   "iluvatar",  "corex", "aipu",      "arm", "tsingmicro",
      "enflame",  "gcu",  "sunrise", "intel", "habana",    "hpu",   "mps",       "cpu"};
  const std::vector<std::string_view> dirs = directories(path);
  for (std::size_t i = 0; i + 1 < dirs.size(); ++i) {
    if (dirs[i] != "backend" && dirs[i] != "backends" && dirs[i] != "vendor_backends") continue;
    std::string name = lower(dirs[i + 1]);
    while (!name.empty() && name.front() == '_') name.erase(0, 1);
    for (const char* v : kVendors)
      if (name == v) return true;
  }
  return false;
}

bool inOtherAcceleratorDir(std::string_view path) {
  for (std::string_view d : directories(path)) {
    const std::string l = lower(d);
    for (const char* w : {"xpu", "mlu", "mps", "hpu", "musa", "sycl"})
      if (l == w) return true;
  }
  return inNpuDir(path);
}

bool npuSpecificFile(std::string_view path) {
  std::string_view name = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  name = name.substr(0, name.rfind('.'));
  return inNpuDir(std::string(name) + "/x");
}

bool inNpuDir(std::string_view path) {
  for (std::string_view d : directories(path)) {
    const std::string l = lower(d);
    for (const char* w : {"ascend", "npu"}) {
      const std::size_t at = l.find(w);
      if (at == std::string::npos) continue;
      // a whole word of the directory name: `_ascend`, `npu_ops`, `ascend` — not `inputs`.
      const std::size_t end = at + std::char_traits<char>::length(w);
      const bool left = at == 0 || !std::isalpha(static_cast<unsigned char>(l[at - 1]));
      const bool right = end == l.size() || !std::isalpha(static_cast<unsigned char>(l[end]));
      if (left && right) return true;
    }
  }
  return false;
}

std::string collapseSpace(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool dualBuildCpuKernel(std::string_view name) {
  const std::string l = lower(name);
  for (std::size_t at = l.find("cpu"); at != std::string::npos; at = l.find("cpu", at + 1))
    if ((at == 0 || l[at - 1] == '_') && (at + 3 == l.size() || l[at + 3] == '_')) return true;
  return false;
}

bool constantName(std::string_view name) {
  return name.size() >= 2 && name[0] >= 'A' && name[0] <= 'Z' &&
         std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; });
}

bool dataTypeName(std::string_view name) {
  if (name.empty() || name[0] < 'A' || name[0] > 'Z') return false;
  return endsWith(name, "Config") || endsWith(name, "Options") || endsWith(name, "Params") ||
         endsWith(name, "Settings");
}

std::string formatDays(double days) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", days);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string effortLabel(double days) {
  if (days <= 1) return "low";
  if (days <= 3) return "medium";
  return "high";
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string clip(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "…";
}

bool kernelLibrary(const std::string& module) {
  static const std::set<std::string> kLibraries = {
      "flash_attn",   "xformers", "apex",       "mamba_ssm",    "causal_conv1d",
      "liger_kernel", "fla",      "flashinfer", "sgl_kernel",   "transformer_engine",
      "deepspeed",    "vllm",     "stk",        "grouped_gemm", "fast_hadamard_transform"};
  return kLibraries.count(module.substr(0, module.find('.'))) > 0;
}

bool kernelishModule(const std::string& module) {
  // torch's own modules (`torch.cuda.amp`, `torch.backends.cuda`) are the framework, not kernels.
  if (module == "torch" || startsWith(module, "torch.")) return false;
  std::size_t b = 0;
  for (std::size_t i = 0; i <= module.size(); ++i)
    if (i == module.size() || module[i] == '.') {
      const std::string seg = module.substr(b, i - b);
      if (seg == "kernels" || seg == "kernel" || seg == "triton" || seg == "csrc" || seg == "_C" ||
          seg == "cuda" || endsWith(seg, "_kernels") || endsWith(seg, "_triton") ||
          startsWith(seg, "triton_") || endsWith(seg, "_cuda"))
        return true;
      b = i + 1;
    }
  return false;
}

}  // namespace custom_ops
