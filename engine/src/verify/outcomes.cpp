#include "verify/outcomes.hpp"

#include <re2/re2.h>

#include <map>
#include <utility>

namespace migrate::verify {
namespace {}  // namespace

std::string normalizedPackage(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (out.empty() || out.back() != '-') out += '-';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

namespace {

/// Modules whose distribution has another name. Installed packages say it themselves
/// (importlib.metadata), but a missing one cannot, so the common cases are listed.
const std::map<std::string, std::string>& distributionOf() {
  static const std::map<std::string, std::string> names = {{"attr", "attrs"},
                                                           {"bs4", "beautifulsoup4"},
                                                           {"cv2", "opencv-python"},
                                                           {"dateutil", "python-dateutil"},
                                                           {"dotenv", "python-dotenv"},
                                                           {"fitz", "pymupdf"},
                                                           {"git", "gitpython"},
                                                           {"google", "protobuf"},
                                                           {"hydra", "hydra-core"},
                                                           {"jwt", "pyjwt"},
                                                           {"PIL", "pillow"},
                                                           {"pytorch_lightning", "pytorch-lightning"},
                                                           {"serial", "pyserial"},
                                                           {"skimage", "scikit-image"},
                                                           {"sklearn", "scikit-learn"},
                                                           {"yaml", "pyyaml"},
                                                           {"zmq", "pyzmq"},
                                                           {"Crypto", "pycryptodome"},
                                                           {"OpenSSL", "pyopenssl"},
                                                           {"magic", "python-magic"},
                                                           {"docx", "python-docx"}};
  return names;
}

/// The kit's own modules: a failure to import them is the migration's, never the host's.
bool kitModule(const std::string& top) {
  return top == "npu_compat" || top == "npu_ops";
}

/// The NPU stack: the target is not an NPU host when these are missing.
bool npuModule(const std::string& top) {
  return top == "torch_npu" || top == "acl" || top == "te" || top == "tbe" || top == "triton_ascend";
}

bool failing(const std::string& status) {
  return status == "failed" || status == "error";
}

/// Records the verification itself wrote when it could not run a stage (verifier.cpp) or a helper.
bool infrastructure(const CheckResult& c) {
  const bool tree = c.check.size() > 5 && c.check.compare(c.check.size() - 5, 5, "-tree") == 0;
  return tree || c.check.rfind("stage", 0) == 0 || c.stage == "results" || c.check == "python-helper" ||
         c.check == "verify-precision" || c.check == "config";
}

}  // namespace

std::string errorClass(const std::string& text) {
  static const RE2 kClass(R"(\b([A-Z]\w*(?:Error|Exception|Exit|Interrupt|Timeout)|Failed)\b)");
  std::string name;
  return RE2::PartialMatch(text, kClass, &name) ? name : std::string();
}

std::string environmentCause(const std::string& text, const OutcomeContext& context, std::string& module) {
  module.clear();
  static const RE2 kMissing(R"(No module named '?([A-Za-z_][\w.]*)'?)");
  if (std::string name; RE2::PartialMatch(text, kMissing, &name)) {
    const std::string top = name.substr(0, name.find('.'));
    if (kitModule(top) || context.repository_modules.count(top)) return {};
    module = top;
    if (npuModule(top)) return "module " + top + ": the NPU stack is not installed on the target";
    const auto mapped = distributionOf().find(top);
    const std::string package = normalizedPackage(mapped == distributionOf().end() ? top : mapped->second);
    return "module " + top + ": not installed on the target (package " + package +
           (context.declared_packages.count(package) ? ", which the project declares)"
                                                     : ", which the project does not declare)");
  }
  // An older torch than the project needs: a torch attribute that is not there.
  static const RE2 kOldTorch(R"(module '(torch(?:\.\w+)*)' has no attribute '(\w+)')");
  if (std::string where, attribute; RE2::PartialMatch(text, kOldTorch, &where, &attribute))
    return "torch on the target has no " + where + "." + attribute + " (the project needs a newer torch)";
  static const RE2 kTool(R"((?:^|\n|: )([\w.+-]+): (?:command )?not found)");
  if (std::string tool; RE2::PartialMatch(text, kTool, &tool))
    return "tool " + tool + ": not found on the target";
  if (text.find("pytest is not installed on the target") != std::string::npos)
    return "tool pytest: not installed on the target";
  static const RE2 kCudaDevice(
      R"(Torch not compiled with CUDA enabled|Found no NVIDIA driver|No CUDA GPUs are available|CUDA driver initialization failed|libcuda\.so)");
  if (RE2::PartialMatch(text, kCudaDevice))
    return "device: the code asks for CUDA, which the target does not have";
  static const RE2 kNpuDevice(
      R"(torch_npu is installed but cannot be imported|No NPU device|ACL_ERROR_RT_NO_DEVICE)");
  if (RE2::PartialMatch(text, kNpuDevice)) return "device: no usable NPU on the target";
  return {};
}

void assignOutcomes(std::vector<CheckResult>& checks, const OutcomeContext& context) {
  std::map<std::pair<std::string, std::string>, const CheckResult*> reference;
  for (const CheckResult& c : checks)
    if (c.reference) reference.emplace(std::make_pair(c.stage, c.check), &c);
  std::vector<CheckResult> out;
  for (CheckResult& c : checks) {
    if (c.reference) continue;
    const auto ref = reference.find({c.stage, c.check});
    const CheckResult* r = ref == reference.end() ? nullptr : ref->second;
    if (r) {
      c.reference_status = r->status;
      c.reference_detail = r->detail;
    }
    if (c.status == "passed") {
      c.outcome = r && failing(r->status) ? "fixed" : "passed";
      if (c.outcome == "fixed") c.cause = "fails on the original tree: " + r->detail;
    } else if (c.status == "skipped") {
      c.outcome = "skipped";
      c.cause = c.detail;
    } else if (infrastructure(c)) {
      c.outcome = "error";
      c.cause = "the verification could not run it: " + c.detail;
    } else if (std::string module, env = environmentCause(c.detail + "\n" + c.output, context, module);
               !env.empty() && (c.stage == "environment" || !r || failing(r->status) || npuModule(module))) {
      // The adapted tree needs what the host lacks; when the original did not, only the NPU stack
      // is the host's to provide (a new third-party import is the migration's).
      c.outcome = "environment";
      c.cause = env;
    } else if (c.stage == "environment") {
      c.outcome = "environment";
      c.cause = c.detail;
    } else if (r && failing(r->status) &&
               errorClass(c.detail + "\n" + c.output) == errorClass(r->detail + "\n" + r->output)) {
      c.outcome = "pre-existing";
      c.cause = "fails the same way on the original tree";
    } else {
      c.outcome = "introduced";
      c.cause = !r                   ? "the check runs only on the adapted tree (the kit's own)"
                : failing(r->status) ? "fails differently on the original tree: " + r->detail
                                     : "passes on the original tree";
    }
    out.push_back(std::move(c));
  }
  checks = std::move(out);
}

std::set<std::string> topLevelModules(const std::vector<std::string>& paths) {
  std::set<std::string> out;
  for (std::string p : paths) {
    if (p.size() < 3 || p.compare(p.size() - 3, 3, ".py") != 0) continue;
    for (int level = 0; level < 2; ++level) {
      const auto slash = p.find('/');
      const std::string first = slash == std::string::npos ? p.substr(0, p.size() - 3) : p.substr(0, slash);
      out.insert(first);
      if (first != "src" || slash == std::string::npos) break;
      p = p.substr(slash + 1);
    }
  }
  return out;
}

}  // namespace migrate::verify
