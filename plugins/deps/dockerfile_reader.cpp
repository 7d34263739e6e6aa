// Dockerfiles: FROM (with ARG defaults substituted), ENV and ARG settings, and the pip/conda
// installs, source clones and NVIDIA apt repository steps of RUN instructions (heredoc bodies
// included).

#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "manifest.hpp"
#include "plugin_support/byte_regex.hpp"
#include "requirement.hpp"

namespace deps {
namespace {

bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

struct Token {
  std::string value;
  std::size_t begin = 0;
  std::size_t end = 0;
};

/// Whitespace-separated tokens with quotes removed (ENV / ARG / FROM arguments).
std::vector<Token> tokens(std::string_view s, std::size_t from) {
  std::vector<Token> out;
  std::size_t i = from;
  while (i < s.size()) {
    while (i < s.size() && isBlank(s[i])) ++i;
    if (i >= s.size()) break;
    Token t;
    t.begin = i;
    while (i < s.size() && !isBlank(s[i])) {
      if (s[i] == '"' || s[i] == '\'') {
        const char q = s[i++];
        while (i < s.size() && s[i] != q) {
          if (s[i] == '\\' && q == '"' && i + 1 < s.size()) ++i;
          t.value += s[i++];
        }
        if (i < s.size()) ++i;
      } else {
        t.value += s[i++];
      }
    }
    t.end = i;
    out.push_back(std::move(t));
  }
  return out;
}

/// The variables an image reference reads (`$NAME`, `${NAME}`, `${NAME:-…}`), in order.
std::vector<std::string> variablesIn(const std::string& image) {
  std::vector<std::string> names;
  for (std::size_t at = image.find('$'); at != std::string::npos; at = image.find('$', at + 1)) {
    std::size_t b = at + 1 + (at + 1 < image.size() && image[at + 1] == '{' ? 1 : 0);
    std::size_t e = b;
    while (e < image.size() && (std::isalnum(static_cast<unsigned char>(image[e])) || image[e] == '_')) ++e;
    names.push_back(image.substr(b, e - b));
  }
  return names;
}

/// Where the CUDA part of an image reference is written when it comes from a variable: the
/// latest value written for a variable the reference uses (`pytorch/pytorch:${TAG}`) that carries
/// a CUDA tag (`ARG TAG=2.3.0-cuda12.1-cudnn8-runtime`); none when no such value exists.
std::optional<migrate::sdk::SourceRange> taggedWhere(
    const std::string& image,
    const std::map<std::string, std::vector<std::pair<migrate::sdk::SourceRange, std::string>>>& written) {
  std::optional<migrate::sdk::SourceRange> where;
  for (const std::string& name : variablesIn(image)) {
    const auto values = written.find(name);
    if (values == written.end()) continue;
    for (const auto& [range, raw] : values->second)
      if (!cudaTag(raw).empty()) where = range;
  }
  return where;
}

/// `FROM pytorch/pytorch:1.9.0-cuda11.1-cudnn8-devel`: the image ships that torch, a pin judged
/// like any other (DEP-003 when no torch_npu release matches it). It stands where the version is
/// written: the value of the ARG the tag reads it from (`ARG PYTORCH="1.9.0"`, then
/// `pytorch/pytorch:${PYTORCH}-…`), else the image reference.
void imageTorchPin(
    const std::string& path, const std::string& image, const std::string& resolved,
    const migrate::sdk::SourceRange& at,
    const std::map<std::string, std::vector<std::pair<migrate::sdk::SourceRange, std::string>>>& written,
    Manifests& out) {
  std::string ref = resolved;
  if (ref.rfind("docker.io/", 0) == 0) ref = ref.substr(10);
  static const std::string kRepository = "pytorch/pytorch:";
  if (ref.rfind(kRepository, 0) != 0) return;
  const std::string tag = ref.substr(kRepository.size());
  std::size_t end = 0;
  while (end < tag.size() && (std::isdigit(static_cast<unsigned char>(tag[end])) || tag[end] == '.')) ++end;
  const std::string version = tag.substr(0, end);
  if (version.find('.') == std::string::npos) return;  // `latest`, `nightly`
  auto req = parseRequirement("torch==" + version);
  if (!req) return;
  DependencyUse d;
  d.file = path;
  d.range = at;
  d.written = image;
  for (const std::string& name : variablesIn(image)) {
    const auto values = written.find(name);
    if (values == written.end() || values->second.empty()) continue;
    const auto& [range, raw] = values->second.back();
    if (raw.rfind(version, 0) == 0) {
      d.range = range;
      d.written = raw;
      break;
    }
  }
  d.req = *req;
  d.source = "dockerfile";
  d.section = "FROM pytorch/pytorch";
  out.dependencies.push_back(std::move(d));
}

/// NAME when `image` is only a variable reference (`$NAME`, `${NAME}`, `${NAME:-…}`), else "".
std::string variableOnly(std::string_view image) {
  if (image.size() < 2 || image[0] != '$') return {};
  if (image[1] != '{') {
    for (std::size_t i = 1; i < image.size(); ++i)
      if (!std::isalnum(static_cast<unsigned char>(image[i])) && image[i] != '_') return {};
    return std::string(image.substr(1));
  }
  if (image.back() != '}') return {};
  std::size_t i = 2;
  while (i < image.size() && (std::isalnum(static_cast<unsigned char>(image[i])) || image[i] == '_')) ++i;
  return i > 2 && (image[i] == '}' || image[i] == ':' || image[i] == '-')
             ? std::string(image.substr(2, i - 2))
             : "";
}

/// True when the command around `at` (from the last `;`, `&`, `|` or `(` before it, not before
/// `from`) is an `echo` or `printf`: text printed, not a step.
bool echoed(std::string_view s, std::size_t from, std::size_t at) {
  std::size_t b = at;
  while (b > from && s.find_first_of(";&|(", b - 1) != b - 1) --b;
  while (b < at && isBlank(s[b])) ++b;
  const std::string_view command = s.substr(b, at - b);
  return command.rfind("echo", 0) == 0 || command.rfind("printf", 0) == 0;
}

/// The settings of a RUN step: `export NAME=value` and `NAME=value command` in command position
/// (also inside `bash -c "…"`, and after `then`/`do`/`else`), a setting for the rest of the step; and the
/// CUDA paths the step names (`ldconfig /usr/local/cuda/…/stubs`, Triton's NVIDIA backend), one per line of
/// the file where no setting was found.
void readRunSettings(const std::string& path, const LogicalLine& ll, std::size_t r,
                     const migrate::sdk::LineIndex& index, Manifests& out) {
  const std::string& s = ll.text;
  if (r >= s.size()) return;
  static const RE2 kCommandStart(R"re((?:^|[;&|(]|\bthen\b|\bdo\b|\belse\b|-c[ \t]+["'])[ \t]*)re",
                                 plugin_support::bytePattern());
  static const RE2 kSetting(R"re((export[ \t]+)?([A-Za-z_]\w*)=("[^"]*"|'[^']*'|[^\s;&|)"']*)[ \t]*)re",
                            plugin_support::bytePattern());
  const std::string_view run(s.data() + r, s.size() - r);
  const re2::StringPiece input(run.data(), run.size());
  std::set<std::uint32_t> lines_with_settings;
  plugin_support::forEachMatch(kCommandStart, run, [&](const auto& start) {
    auto pos = static_cast<std::size_t>(start[0].data() - run.data()) + start[0].size();
    re2::StringPiece m[4];
    bool exported = false;
    while (pos < run.size() && kSetting.Match(input, pos, run.size(), RE2::ANCHOR_START, m, 4)) {
      exported = exported || !m[1].empty();
      const auto begin = static_cast<std::size_t>(m[2].data() - s.data());
      const auto end = static_cast<std::size_t>(m[3].data() - s.data()) + m[3].size();
      std::string value = plugin_support::str(m[3]);
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\''))
        value = value.substr(1, value.size() - 2);
      const migrate::sdk::SourceRange where = ll.range(index, begin, end);
      lines_with_settings.insert(where.line);
      out.environment.push_back(
          {path, where, exported ? "RUN export" : "RUN", plugin_support::str(m[2]), value});
      pos = static_cast<std::size_t>(m[0].data() - run.data()) + m[0].size();
    }
  });
  std::set<std::uint32_t> reported;
  plugin_support::forEachMatch(cudaPathPattern(), run, [&](const auto& m) {
    const auto begin = static_cast<std::size_t>(m[0].data() - s.data());
    const migrate::sdk::SourceRange where = ll.range(index, begin, begin + m[0].size());
    if (lines_with_settings.count(where.line) || echoed(s, r, begin) || !reported.insert(where.line).second)
      return;
    const std::string named = plugin_support::str(m[0]);
    out.environment.push_back({path, where, "RUN", named, named});
  });
}

/// The script of an exec-form RUN that hands it to a shell (`RUN ["/bin/bash", "-c", "pip install …"]`):
/// the byte range of the third string's content in `s`, from the `[` at `open`; nothing for any
/// other exec form. JSON escapes inside the script are left as written.
std::optional<std::pair<std::size_t, std::size_t>> execFormScript(const std::string& s, std::size_t open) {
  std::vector<std::pair<std::size_t, std::size_t>> items;
  std::size_t i = open + 1;
  while (items.size() < 3) {
    while (i < s.size() && (isBlank(s[i]) || s[i] == ',')) ++i;
    if (i >= s.size() || s[i] != '"') return std::nullopt;
    const std::size_t begin = ++i;
    while (i < s.size() && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
    if (i >= s.size()) return std::nullopt;
    items.emplace_back(begin, i++);
  }
  auto item = [&](std::size_t k) {
    return std::string_view(s).substr(items[k].first, items[k].second - items[k].first);
  };
  const std::string_view shell =
      item(0).substr(item(0).rfind('/') == std::string_view::npos ? 0 : item(0).rfind('/') + 1);
  const bool is_shell = shell == "bash" || shell == "sh" || shell == "zsh" || shell == "dash";
  const std::string_view flag = item(1);
  if (!is_shell || flag.size() < 2 || flag[0] != '-' || flag.back() != 'c') return std::nullopt;
  return items[2];
}

/// An index a RUN step names only through a variable (`--index-url "$TORCH_INDEX"` with
/// `ARG TORCH_INDEX=https://download.pytorch.org/whl/cu130`) is reported where the variable is set,
/// the place to change; several uses of one setting are one finding there.
void indexesWhereSet(
    std::string_view text, std::size_t first,
    const std::map<std::string, std::vector<std::pair<migrate::sdk::SourceRange, std::string>>>& written,
    Manifests& out) {
  std::set<std::uint32_t> kept;  // where the indexes reported start
  std::vector<IndexUse> indexes(out.indexes.begin(),
                                out.indexes.begin() + static_cast<std::ptrdiff_t>(first));
  for (std::size_t i = first; i < out.indexes.size(); ++i) {
    IndexUse x = out.indexes[i];
    std::string_view use;
    if (x.range.start_byte <= x.range.end_byte && x.range.end_byte <= text.size())
      use = text.substr(x.range.start_byte, x.range.end_byte - x.range.start_byte);
    if (use.size() >= 2 && (use.front() == '"' || use.front() == '\'') && use.back() == use.front())
      use = use.substr(1, use.size() - 2);
    const std::string var = variableOnly(use);
    const auto values = var.empty() ? written.end() : written.find(var);
    if (values != written.end()) {
      const migrate::sdk::SourceRange* set = nullptr;  // the last setting before the use
      for (const auto& [range, raw] : values->second)
        if (range.start_byte < x.range.start_byte) set = &range;
      if (set) x.range = *set;
    }
    if (kept.insert(x.range.start_byte).second) indexes.push_back(std::move(x));
  }
  out.indexes = std::move(indexes);
}

}  // namespace

bool looksLikeDockerfile(std::string_view text) {
  for (const LogicalLine& ll : logicalLines(text.substr(0, 64 * 1024), true)) {
    std::string_view s = ll.text;
    while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
    if (s.empty() || s.front() == '#') continue;
    // In capitals, as Dockerfiles write them: prose starting "From the base image …" is none.
    const std::string_view word = s.substr(0, s.find_first_of(" \t"));
    if (word == "ARG") continue;
    return word == "FROM" && s.size() > 5;
  }
  return false;
}

void readDockerfile(const std::string& path, std::string_view text, Manifests& out) {
  const migrate::sdk::LineIndex index(text);
  std::map<std::string, std::string> args;
  // Where each ARG / ENV is written, with its value as written: an image named through one
  // (`ARG BASE=nvidia/cuda:…` then `FROM ${BASE}`) is reported where the image is written.
  std::map<std::string, std::vector<std::pair<migrate::sdk::SourceRange, std::string>>> written;
  std::set<std::string> stages;
  std::string heredoc;  // the delimiter of the `RUN <<EOF` body being read, or ""
  const std::size_t first_index = out.indexes.size();
  for (const LogicalLine& ll : logicalLines(text, true)) {
    const std::string& s = ll.text;
    std::size_t b = 0;
    while (b < s.size() && isBlank(s[b])) ++b;
    if (!heredoc.empty()) {  // a line of a RUN heredoc: shell, up to the delimiter's line
      std::size_t t = s.size();
      while (t > b && isBlank(s[t - 1])) --t;
      if (s.compare(b, t - b, heredoc) == 0) {
        heredoc.clear();
      } else if (b < s.size() && s[b] != '#') {
        readInstallCommands(path, ll, b, index, "dockerfile", args, out);
        readNvidiaAptSteps(path, ll, b, index, out);
        readRunSettings(path, ll, b, index, out);
      }
      continue;
    }
    if (b >= s.size() || s[b] == '#') continue;
    std::size_t e = b;
    while (e < s.size() && !isBlank(s[e])) ++e;
    std::string instruction = s.substr(b, e - b);
    for (char& c : instruction) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (instruction == "FROM") {
      const auto toks = tokens(s, e);
      std::size_t k = 0;
      while (k < toks.size() && toks[k].value.rfind("--", 0) == 0) ++k;
      if (k >= toks.size()) continue;
      const Token& image = toks[k];
      if (k + 2 < toks.size() &&
          (toks[k + 1].value == "AS" || toks[k + 1].value == "as" || toks[k + 1].value == "As"))
        stages.insert(toks[k + 2].value);
      const std::string resolved = substituteVariables(image.value, args);
      std::string lowered = resolved;
      for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lowered == "scratch" || stages.count(resolved)) continue;
      // The stage name is recorded after the check: `FROM base AS base` names an image.
      migrate::sdk::SourceRange where = ll.range(index, image.begin, image.end);
      if (const auto var = variableOnly(image.value); !var.empty() && written.count(var)) {
        const std::string repository = resolved.substr(0, resolved.find(':'));
        const auto& candidates = written.at(var);
        where = candidates.back().first;
        for (const auto& [range, raw] : candidates)
          if (!repository.empty() && raw.find(repository) != std::string::npos) {
            where = range;
            break;
          }
      } else if (const auto tag = taggedWhere(image.value, written)) {
        where = *tag;  // `FROM pytorch/pytorch:${TAG}` with `ARG TAG=2.3.0-cuda12.1-…`
      }
      out.images.push_back({path, where, image.value, resolved});
      imageTorchPin(path, image.value, resolved, ll.range(index, image.begin, image.end), written, out);
    } else if (instruction == "ARG" || instruction == "ENV") {
      const auto toks = tokens(s, e);
      std::vector<std::pair<Token, std::string>> settings;  // token, name
      if (instruction == "ENV" && !toks.empty() && toks[0].value.find('=') == std::string::npos) {
        // legacy `ENV NAME value with spaces`
        Token whole = toks[0];
        whole.end = toks.back().end;
        std::string value;
        for (std::size_t k = 1; k < toks.size(); ++k) value += (k > 1 ? " " : "") + toks[k].value;
        whole.value = toks[0].value + "=" + value;
        settings.push_back({whole, toks[0].value});
      } else {
        for (const Token& t : toks) settings.push_back({t, t.value.substr(0, t.value.find('='))});
      }
      for (const auto& [tok, name] : settings) {
        const auto eq = tok.value.find('=');
        const std::string value = eq == std::string::npos ? "" : tok.value.substr(eq + 1);
        // ARG defaults and ENV values, for FROM and RUN (a build argument can still override them).
        // `ARG NAME` without a default inside a stage brings the global ARG's value into it.
        if (!value.empty() || (instruction == "ARG" && !args.count(name)))
          args[name] = substituteVariables(value, args);
        // `ARG WHEEL=flash_attn-2.8.3+cu12torch2.8-….whl`, installed later as $WHEEL: the wheel
        // is a dependency where it is named.
        if (isWheelName(value))
          namedWheel(path, ll.range(index, tok.begin + eq + 1, tok.end), value, args[name], "dockerfile",
                     instruction, out);
        if (!value.empty()) written[name].emplace_back(ll.range(index, tok.begin, tok.end), value);
        out.environment.push_back({path, ll.range(index, tok.begin, tok.end), instruction, name, value});
        if (isIndexVariable(name) && !value.empty())
          out.indexes.push_back({path, ll.range(index, tok.begin, tok.end), substituteVariables(value, args),
                                 name, "dockerfile"});
      }
    } else if (instruction == "RUN") {
      std::size_t r = e;
      while (r < s.size() && isBlank(s[r])) ++r;
      if (r < s.size() && s[r] == '[') {  // exec form: read only a script handed to a shell
        if (const auto script = execFormScript(s, r)) {
          LogicalLine inner = ll;
          inner.text.resize(script->second);
          inner.offsets.resize(script->second + 1);
          readInstallCommands(path, inner, script->first, index, "dockerfile", args, out);
          readNvidiaAptSteps(path, inner, script->first, index, out);
          readInlinePythonImports(path, inner, script->first, index, out);
        }
        continue;
      }
      // RUN --mount=… flags
      while (r + 1 < s.size() && s[r] == '-' && s[r + 1] == '-') {
        while (r < s.size() && !isBlank(s[r])) ++r;
        while (r < s.size() && isBlank(s[r])) ++r;
      }
      // `RUN <<EOF` (`<<-EOF`, `<<"EOF"`): the script is the lines up to the one holding EOF.
      if (s.compare(r, 2, "<<") == 0) {
        std::size_t d = r + 2;
        if (d < s.size() && s[d] == '-') ++d;
        if (d < s.size() && (s[d] == '"' || s[d] == '\'')) ++d;
        std::size_t de = d;
        while (de < s.size() && (std::isalnum(static_cast<unsigned char>(s[de])) || s[de] == '_')) ++de;
        heredoc = s.substr(d, de - d);
        continue;
      }
      readInstallCommands(path, ll, r, index, "dockerfile", args, out);
      readNvidiaAptSteps(path, ll, r, index, out);
      readInlinePythonImports(path, ll, r, index, out);
      readRunSettings(path, ll, r, index, out);
    }
  }
  cudaExtras("dockerfile", written, out);
  indexesWhereSet(text, first_index, written, out);
}

void cudaExtras(
    const std::string& source,
    const std::map<std::string, std::vector<std::pair<migrate::sdk::SourceRange, std::string>>>& written,
    Manifests& out) {
  // The whole name is a CUDA build tag (`cu129`, `cuda12`), as PyTorch's wheel indexes name them.
  auto cudaBuild = [](std::string name) {
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return !name.empty() && cudaTag(name) == name;
  };
  for (const ExtraUse& x : out.extras) {
    const std::string var = variableOnly(x.written);
    const auto values = var.empty() ? written.end() : written.find(var);
    if (values != written.end()) {
      for (const auto& [range, raw] : values->second)
        if (cudaBuild(raw)) out.indexes.push_back({x.file, range, raw, "--extra", source});
    } else if (cudaBuild(x.resolved)) {
      out.indexes.push_back({x.file, x.range, x.resolved, "--extra", source});
    }
  }
  out.extras.clear();
}

}  // namespace deps
