// CUDA in Makefiles (OPS-040): targets built from .cu sources, nvcc as the compiler of a
// variable (`NVCC = nvcc`), the first assignment of a variable listing .cu sources, nvcc-only
// flags (architecture builders such as -gencode / --generate-code / -arch=sm_XX) and CUDA library
// link flags (-lcudart, -lcublas, -lcudnn, -lnvidia-ml, torch's -ltorch_cuda, …), and the first
// assignment of each nvcc flag variable (`NVCC_FLAGS = …`, `NVCCFLAGS += …`). One finding per
// line; comments, `$(info …)`, `$(error …)`, `$(warning …)` and echo lines are prose. A line
// inside an `ifeq ($(OS),Windows_NT)` block belongs to a Windows build, which an Ascend host
// (Linux) never reads.

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "byte_regex.hpp"
#include "migrate/sdk/text_position.hpp"
#include "native_scan.hpp"
#include "plugin_support/shell_text.hpp"

namespace custom_ops {
namespace {

constexpr const char* kMakefileCuda = "OPS-040";

/// What makes `code` (a line without its comment) a CUDA build line, or "". `flag_lists` holds the
/// nvcc flag and .cu source variables assigned on earlier lines: the first assignment stands for
/// the list.
std::string cudaBuildLine(const std::string& code, std::set<std::string>& flag_lists) {
  // `train: train.cu common.h` (a rule, not a recipe line: recipes start with a tab).
  static const RE2 kCudaTarget(R"(^([^\s:=#][^:=]*):(?:[^=]|$)[^;]*?(\S+\.cu)(?:\s|$))", bytePattern());
  static const RE2 kArch(R"((?:^|[\s=])(-gencode|--generate-code|-arch=sm_\w+|--gpu-architecture)\b)",
                         bytePattern());
  static const RE2 kLibrary(
      R"((?:^|\s)-l(cudart|cudart_static|cuda|cudadevrt|cublas|cublasLt|cudnn|cufft|curand|cusparse|cusolver|nvidia-ml|nvrtc|nvToolsExt|torch_cuda|c10_cuda)(?:\s|$))",
      bytePattern());
  static const RE2 kFlagList(
      R"(^\s*(?:export\s+|override\s+)?(\w*NVCC\w*(?:FLAGS|OPTS|OPTIONS|ARGS)\w*)\s*[:?+!]?=)",
      bytePattern());
  // `NVCC = nvcc`, `CC := /usr/local/cuda/bin/nvcc`: the compiler of the build is nvcc.
  static const RE2 kCompiler(R"(^\s*(?:export\s+|override\s+)?(\w+)\s*[:?+!]?=\s*(?:\S*/)?nvcc(?:\s|$))",
                             bytePattern());
  // `SRCS = kernel.cu`, `TARGETS = $(patsubst %.cu,%.fatbin,$(wildcard *.cu))`: a variable that
  // lists the .cu sources (its first assignment stands for the list).
  static const RE2 kSources(R"(^\s*(?:export\s+|override\s+)?(\w+)\s*[:?+!]?=.*?\S\.cu(?:[\s),]|$))",
                            bytePattern());
  std::string a, b;
  if (!code.empty() && code[0] != '\t' && RE2::PartialMatch(code, kCudaTarget, &a, &b))
    return "target " + collapseSpace(a) + " built from " + b;
  if (RE2::PartialMatch(code, kCompiler, &a)) return "nvcc as the compiler " + a;
  if (RE2::PartialMatch(code, kArch, &a)) return "nvcc " + a;
  if (RE2::PartialMatch(code, kLibrary, &a)) return "-l" + a;
  if (RE2::PartialMatch(code, kFlagList, &a) && flag_lists.insert(a).second) return "nvcc flag list " + a;
  if (RE2::PartialMatch(code, kSources, &a) && flag_lists.insert(a).second) return ".cu sources in " + a;
  return {};
}

void scanMakefile(const std::string& path, const std::string& text, const Rules& rules,
                  sdk::FindingSink& sink) {
  static const RE2 kProse(R"(^\s*(?:@?echo\b|\$\((?:info|error|warning)\b))", bytePattern());
  static const RE2 kConditional(R"(^\s*(ifeq|ifneq|ifdef|ifndef|else|endif)\b(.*))", bytePattern());
  const sdk::LineIndex index(text);
  // The open conditionals: whether the branch being read is Windows-only, and whether the test
  // was `ifneq (…Windows_NT)` (then its else is).
  struct Level {
    bool windows = false;
    bool negated = false;
  };
  std::vector<Level> levels;
  std::set<std::string> flag_lists;
  std::size_t offset = 0;
  while (offset <= text.size()) {
    std::size_t end = text.find('\n', offset);
    if (end == std::string::npos) end = text.size();
    std::string code = text.substr(offset, end - offset);
    if (const std::size_t hash = code.find('#'); hash != std::string::npos) code.resize(hash);
    std::string keyword, rest;
    const bool windows_test = code.find("Windows_NT") != std::string::npos;
    if (RE2::PartialMatch(code, kConditional, &keyword, &rest)) {
      if (keyword == "endif") {
        if (!levels.empty()) levels.pop_back();
      } else if (keyword == "else") {
        if (!levels.empty()) {
          Level& l = levels.back();
          if (rest.find("ifeq") != std::string::npos || rest.find("ifneq") != std::string::npos)
            l = {windows_test && rest.find("ifeq") != std::string::npos,
                 windows_test && rest.find("ifneq") != std::string::npos};
          else
            l.windows = l.negated;
        }
      } else {
        levels.push_back({windows_test && keyword == "ifeq", windows_test && keyword == "ifneq"});
      }
    } else if (std::none_of(levels.begin(), levels.end(), [](const Level& l) { return l.windows; }) &&
               !RE2::PartialMatch(code, kProse)) {
      if (std::string what = cudaBuildLine(code, flag_lists); !what.empty()) {
        const std::size_t indent = code.find_first_not_of(" \t");
        const auto start = static_cast<std::uint32_t>(offset + indent);
        const auto stop = static_cast<std::uint32_t>(offset + code.find_last_not_of(" \t\r") + 1);
        if (auto f = rules.make(kMakefileCuda, path, index.range(start, stop), what, {}, {{"value", what}})) {
          f->details = {{"line", clip(collapseSpace(code), 200)}};
          sink.report(std::move(*f));
        }
      }
    }
    if (end == text.size()) break;
    offset = end + 1;
  }
}

}  // namespace

void analyzeMakefiles(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                      sdk::FindingSink& sink) {
  for (const sdk::FileEntry& f : workspace.files()) {
    if (!plugin_support::isMakefile(f.path) || inSkippedDir(f.path, options.skip_dirs)) continue;
    const auto text = workspace.read(f.path);
    if (!text ||
        (text->find(".cu") == std::string::npos && text->find("-l") == std::string::npos &&
         text->find("gencode") == std::string::npos && text->find("generate-code") == std::string::npos &&
         text->find("NVCC") == std::string::npos))
      continue;
    scanMakefile(f.path, *text, rules, sink);
  }
}

}  // namespace custom_ops
