// CUDA in CMake files: a small reader of CMake command invocations (comments, quoted and
// bracket arguments understood) and a classification of the commands that enable or configure
// CUDA.

#include <set>

#include "byte_regex.hpp"
#include "migrate/sdk/text_position.hpp"
#include "native_scan.hpp"

namespace custom_ops {
namespace {

constexpr const char* kLanguage = "OPS-015";
constexpr const char* kSettings = "OPS-016";

struct Command {
  std::string name;               ///< lower case
  std::string args;               ///< argument text without comments
  std::vector<std::uint32_t> at;  ///< the file offset of each byte of args
  std::uint32_t start = 0;
  std::uint32_t name_end = 0;

  void append(std::string_view t, std::size_t from, std::size_t len) {
    args += t.substr(from, len);
    for (std::size_t i = 0; i < len && from + i < t.size(); ++i)
      at.push_back(static_cast<std::uint32_t>(from + i));
  }
  /// The file range of args[index, index + len): findings stand on the line of their token,
  /// not on the line that opens a command spread over several.
  std::pair<std::uint32_t, std::uint32_t> span(std::size_t index, std::size_t len) const {
    if (index >= at.size() || len == 0) return {start, name_end};
    return {at[index], at[std::min(index + len, at.size()) - 1] + 1};
  }
};

struct Token {
  std::string text;
  std::size_t index = 0;  ///< into Command::args
};

/// Length of a bracket opener `[[`, `[=[`, … at `i`, or 0.
std::size_t bracketOpen(std::string_view t, std::size_t i, std::string& close) {
  if (i >= t.size() || t[i] != '[') return 0;
  std::size_t j = i + 1;
  while (j < t.size() && t[j] == '=') ++j;
  if (j >= t.size() || t[j] != '[') return 0;
  close = std::string("]").append(j - i - 1, '=').append("]");
  return j + 1 - i;
}

std::vector<Command> readCommands(std::string_view t) {
  std::vector<Command> out;
  std::size_t i = 0;
  const std::size_t n = t.size();
  auto skipComment = [&](std::size_t& k) {
    // at '#': bracket comment or line comment
    std::string close;
    if (const std::size_t len = bracketOpen(t, k + 1, close)) {
      const std::size_t e = t.find(close, k + 1 + len);
      k = e == std::string_view::npos ? n : e + close.size();
    } else {
      while (k < n && t[k] != '\n') ++k;
    }
  };
  while (i < n) {
    const char c = t[i];
    if (c == '#') {
      skipComment(i);
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t b = i;
      while (i < n && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
      const std::size_t name_end = i;
      std::size_t j = i;
      while (j < n && (t[j] == ' ' || t[j] == '\t')) ++j;
      if (j >= n || t[j] != '(') continue;
      Command cmd;
      cmd.name = lower(t.substr(b, name_end - b));
      cmd.start = static_cast<std::uint32_t>(b);
      cmd.name_end = static_cast<std::uint32_t>(name_end);
      int depth = 0;
      std::size_t k = j;
      for (; k < n; ++k) {
        const char d = t[k];
        if (d == '#') {
          skipComment(k);
          --k;
          continue;
        }
        if (d == '"') {
          const std::size_t s = k;
          for (++k; k < n && t[k] != '"'; ++k)
            if (t[k] == '\\') ++k;
          cmd.append(t, s, k - s + 1);
          continue;
        }
        std::string close;
        if (const std::size_t len = bracketOpen(t, k, close)) {
          const std::size_t e = t.find(close, k + len);
          const std::size_t end = e == std::string_view::npos ? n : e + close.size();
          cmd.append(t, k, end - k);
          k = end - 1;
          continue;
        }
        if (d == '(') ++depth;
        if (d == ')' && --depth == 0) break;
        if (depth > 0 && !(depth == 1 && d == '(')) cmd.append(t, k, 1);
      }
      i = k < n ? k + 1 : n;
      out.push_back(std::move(cmd));
      continue;
    }
    if (c == '"') {  // a stray quoted argument outside a command: skip it
      for (++i; i < n && t[i] != '"'; ++i)
        if (t[i] == '\\') ++i;
      ++i;
      continue;
    }
    ++i;
  }
  return out;
}

std::vector<Token> tokens(const std::string& args) {
  std::vector<Token> out;
  Token cur;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const char c = args[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '"') {
      if (!cur.text.empty()) out.push_back(cur);
      cur.text.clear();
    } else {
      if (cur.text.empty()) cur.index = i;
      cur.text += c;
    }
  }
  if (!cur.text.empty()) out.push_back(cur);
  return out;
}

bool isCudaPackage(const std::string& name) {
  static const char* const kPackages[] = {"cuda",     "cudatoolkit", "cudnn",         "nccl",
                                          "cub",      "thrust",      "nvidiacutlass", "cutlass",
                                          "tensorrt", "cudss",       "cusparselt",    "nvtx3"};
  const std::string l = lower(name);
  for (const char* p : kPackages)
    if (l == p) return true;
  return false;
}

/// The CUDA-specific tokens of a command's arguments. RE2 (bytes, leftmost-first like
/// std::regex): linear time, where std::regex recursed once per character of a long word.
std::vector<Token> cudaSettings(const std::string& args) {
  static const RE2 kPattern(
      R"(\bCMAKE_CUDA_\w+|\bCUDA_ARCHITECTURES\b|\bCUDA_NVCC_FLAGS\w*|\bCUDA_SEPARABLE_COMPILATION\b|)"
      R"(\bCUDA_RESOLVE_DEVICE_SYMBOLS\b|\bCUDA_STANDARD\b|\bCUDA_PROPAGATE_HOST_FLAGS\b|\bTORCH_CUDA_ARCH_LIST\b|)"
      R"(\bCUDA::\w+|\$\{CUDA_\w*LIBRAR\w*\}|\$\{CUDAToolkit_\w+\}|\$\{CUDA_INCLUDE_DIRS?\}|\$\{CUDA_TOOLKIT_ROOT_DIR\}|)"
      R"(\$\{CUDNN_\w+\}|\$\{NCCL_\w+\}|COMPILE_LANGUAGE:CUDA|-gencode\b|--expt-[\w-]+|\barch=compute_\d+\w*|)"
      R"(--use_fast_math|[\w./${}*+-]*\.cuh?\b|\bcudart(_static)?\b|\bcublas(Lt)?\b|\bcudnn\b|\bnccl\b|\bcurand\b|)"
      R"(\bnvrtc\b|\bcusparse\b|\bcufft\b|\bcusolver\b|\bnvToolsExt\b)",
      bytePattern());
  std::vector<Token> out;
  std::set<std::string> seen;
  const re2::StringPiece input(args.data(), args.size());
  re2::StringPiece found;
  for (std::size_t pos = 0;
       pos < args.size() && kPattern.Match(input, pos, args.size(), RE2::UNANCHORED, &found, 1);) {
    const auto start = static_cast<std::size_t>(found.data() - args.data());
    const std::size_t after = start + found.size();
    pos = found.empty() ? after + 1 : after;
    std::string m(found.data(), found.size());
    if (m.empty()) continue;
    // "foo.cu" is a source; ".cu" inside "cuda.cu.bak" and the like are not CUDA settings
    if ((endsWith(m, ".cu") || endsWith(m, ".cuh")) && after < args.size() && args[after] == '.') continue;
    if (seen.insert(m).second) out.push_back({m, start});
  }
  return out;
}

/// `add_subdirectory(third_party/cutlass)`, `add_subdirectory(ops/cuda)`: a subproject whose path
/// names a CUDA library or a CUDA source folder in one of its components.
bool isCudaSubproject(std::string_view path) {
  static const std::set<std::string> kWords = {"cuda",   "cutlass", "nccl",    "cub",
                                               "thrust", "cudnn",   "tensorrt"};
  std::string word;
  for (const char c : std::string(path) + "/") {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      continue;
    }
    if (kWords.count(word) != 0) return true;
    word.clear();
  }
  return false;
}

bool ignoredCommand(const std::string& name) {
  static const char* const kIgnored[] = {"if",
                                         "elseif",
                                         "else",
                                         "endif",
                                         "while",
                                         "endwhile",
                                         "foreach",
                                         "endforeach",
                                         "function",
                                         "endfunction",
                                         "macro",
                                         "endmacro",
                                         "message",
                                         "option",
                                         "return",
                                         "include",
                                         "cmake_minimum_required",
                                         "project",
                                         "enable_language",
                                         "find_package",
                                         "check_language",
                                         "install",
                                         "cmake_dependent_option",
                                         "mark_as_advanced",
                                         "break",
                                         "continue",
                                         "cmake_policy",
                                         "include_guard",
                                         "configure_file",
                                         "add_test",
                                         "set_tests_properties",
                                         "get_filename_component",
                                         "unset"};
  for (const char* i : kIgnored)
    if (name == i) return true;
  return false;
}

}  // namespace

void analyzeCMake(const sdk::WorkspaceView& workspace, const Rules& rules, const Options& options,
                  sdk::FindingSink& sink) {
  for (const sdk::FileEntry& f : workspace.files()) {
    if (f.language != sdk::Language::CMake || inSkippedDir(f.path, options.skip_dirs)) continue;
    const auto text = workspace.read(f.path);
    if (!text) continue;
    const sdk::LineIndex lines(*text);
    for (const Command& c : readCommands(*text)) {
      const std::vector<Token> toks = tokens(c.args);
      std::string what;
      std::pair<std::uint32_t, std::uint32_t> at{c.start, c.name_end};
      if (c.name == "project" || c.name == "enable_language" || c.name == "check_language") {
        for (const auto& t : toks)
          if (t.text == "CUDA") {
            what = c.name + "(… CUDA)";
            at = c.span(t.index, t.text.size());
          }
      } else if (c.name == "find_package") {
        if (!toks.empty() && isCudaPackage(toks.front().text)) {
          what = "find_package(" + toks.front().text + ")";
          at = c.span(toks.front().index, toks.front().text.size());
        }
      } else if (startsWith(c.name, "cuda_") || c.name == "torch_cuda_get_nvcc_gencode_flag") {
        what = c.name + "(…)";  // FindCUDA macros: cuda_add_library, cuda_select_nvcc_arch_flags, …
      }
      if (!what.empty()) {
        auto finding =
            rules.make(kLanguage, f.path, lines.range(at.first, at.second), what, {}, {{"value", what}});
        if (finding) {
          finding->details = {{"command", c.name}, {"arguments", clip(collapseSpace(c.args), 200)}};
          sink.report(std::move(*finding));
        }
        continue;
      }
      if (ignoredCommand(c.name)) continue;
      std::vector<Token> settings = cudaSettings(c.args);
      if (c.name == "add_subdirectory" && !toks.empty() && isCudaSubproject(toks.front().text))
        settings.insert(settings.begin(), toks.front());
      if (settings.empty()) continue;
      std::vector<std::string> names;
      for (const Token& t : settings) names.push_back(t.text);
      std::string shown = c.name + "(" + (toks.empty() ? std::string() : toks.front().text) + " …)";
      if (settings.size() > 1 || (!toks.empty() && settings.front().text != toks.front().text))
        shown += " [" + join(names, ", ") + "]";
      at = c.span(settings.front().index, settings.front().text.size());
      auto finding = rules.make(kSettings, f.path, lines.range(at.first, at.second), c.name, {},
                                {{"value", clip(shown, 160)}});
      if (!finding) continue;
      finding->details = {{"command", c.name},
                          {"cuda_settings", join(names, ", ")},
                          {"arguments", clip(collapseSpace(c.args), 200)}};
      sink.report(std::move(*finding));
    }
  }
}

}  // namespace custom_ops
