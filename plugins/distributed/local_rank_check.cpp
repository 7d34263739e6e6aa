// DIST-025: a file that reads LOCAL_RANK and uses it (directly or through the variable it is
// assigned to) as a device index. One finding per file, at the LOCAL_RANK read.

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "distributed_checks.hpp"
#include "plugin_support/byte_regex.hpp"

namespace distributed {
namespace {

using namespace migrate::sdk;

/// One place that reads the local rank, and the names its value is bound to.
struct LocalRankRead {
  const StringFact* fact = nullptr;
  std::vector<std::string> names;
  const char* source = "environment";
};

bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// `name` in `text` as a whole identifier or attribute chain (`self.local_rank`, `args.local_rank`);
/// a name starting with a dot (`.local_rank`) matches that attribute on any receiver.
bool mentions(std::string_view text, const std::string& name) {
  for (std::size_t pos = text.find(name); pos != std::string_view::npos; pos = text.find(name, pos + 1)) {
    const std::size_t end = pos + name.size();
    const bool before = pos == 0 || name.front() == '.' || !isIdentifierChar(text[pos - 1]);
    const bool after = end >= text.size() || !isIdentifierChar(text[end]);
    if (before && after) return true;
  }
  return false;
}

/// An identifier spelled local_rank in any case (`LOCAL_RANK`, `self.local_rank`, `cfg.Local_Rank`).
bool mentionsLocalRank(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return mentions(lower, "local_rank");
}

/// The text of the line holding `offset`, from the line start to `offset` and from `offset` on.
std::pair<std::string_view, std::string_view> lineAround(std::string_view source, std::uint32_t start,
                                                         std::uint32_t end) {
  const std::size_t line_start = source.rfind('\n', start == 0 ? 0 : start - 1);
  const std::size_t from = (line_start == std::string_view::npos || start == 0) ? 0 : line_start + 1;
  std::size_t line_end = source.find('\n', end);
  if (line_end == std::string_view::npos) line_end = source.size();
  return {source.substr(from, start - from), source.substr(end, line_end - end)};
}

/// Assignment targets written before the read on its line: `local_rank = int(os.environ[...])`,
/// `self.local_rank: int = ...`, `rank, local_rank = ...`.
std::vector<std::string> assignedNames(std::string_view before) {
  static const RE2 kTargets(
      R"(^[[:space:]]*([A-Za-z_][\w.]*(?:[[:space:]]*,[[:space:]]*[A-Za-z_][\w.]*)*)[[:space:]]*(?::[^=]*)?=[^=])",
      plugin_support::bytePattern());
  std::vector<std::string> names;
  std::string targets;
  if (!RE2::PartialMatch(before, kTargets, &targets)) return names;
  std::size_t start = 0;
  while (start <= targets.size()) {
    std::size_t comma = targets.find(',', start);
    if (comma == std::string::npos) comma = targets.size();
    std::string name = targets.substr(start, comma - start);
    name.erase(std::remove_if(name.begin(), name.end(), [](char c) { return c == ' ' || c == '\t'; }),
               name.end());
    if (!name.empty()) names.push_back(name);
    start = comma + 1;
  }
  return names;
}

std::vector<LocalRankRead> localRankReads(const Module& module) {
  std::vector<LocalRankRead> reads;
  for (const StringFact& s : module.strings()) {
    if (s.value == "LOCAL_RANK" &&
        (s.context == StringContext::Subscript || s.context == StringContext::PositionalArg)) {
      const auto [before, after] = lineAround(module.source(), s.range.start_byte, s.range.end_byte);
      // `os.environ["LOCAL_RANK"] = str(i)` sets the variable for a child process: not a read.
      static const RE2 kWrite(R"(^[[:space:]]*\][[:space:]]*=[^=])", plugin_support::bytePattern());
      if (s.context == StringContext::Subscript && RE2::PartialMatch(after, kWrite)) continue;
      reads.push_back({&s, assignedNames(before), "environment"});
    } else if ((s.value == "--local_rank" || s.value == "--local-rank") &&
               s.context == StringContext::PositionalArg && s.method == "add_argument") {
      reads.push_back({&s, {"local_rank"}, "argparse"});
    }
  }
  return reads;
}

/// A device selection whose argument carries the local rank.
struct DeviceUse {
  SourceRange range;
  std::string text;
};

bool deviceCallee(const std::string& resolved) {
  static const char* const kCallees[] = {"torch.cuda.set_device",    "torch.npu.set_device",
                                         "torch_npu.npu.set_device", "torch.cuda.device",
                                         "torch.npu.device",         "torch.device"};
  return std::find(std::begin(kCallees), std::end(kCallees), resolved) != std::end(kCallees);
}

bool deviceKeyword(const std::string& keyword) {
  return keyword == "device" || keyword == "device_id" || keyword == "device_ids" ||
         keyword == "output_device" || keyword == "map_location";
}

std::vector<DeviceUse> deviceUses(const Module& module) {
  std::vector<DeviceUse> uses;
  for (const CallFact& call : module.calls()) {
    const bool device_call = deviceCallee(call.callee_resolved);
    const bool placement = !call.receiver_is_module && (call.method == "cuda" || call.method == "npu" ||
                                                        call.method == "to" || call.method == "set_device");
    for (const ArgumentFact& a : call.args) {
      const bool relevant = deviceKeyword(a.keyword) || ((device_call || placement) && a.index >= 0);
      if (relevant) uses.push_back({a.range, std::string(module.text(call.range))});
    }
  }
  // Device strings built from the rank: f"cuda:{local_rank}", "cuda:%d" % local_rank,
  // "cuda:{}".format(local_rank) — the rest of the line holds the rank.
  static const RE2 kDeviceString(R"(^(?:cuda|npu)(?::|$))", plugin_support::bytePattern());
  for (const StringFact& s : module.strings()) {
    if (s.context == StringContext::Message || s.context == StringContext::Docstring) continue;
    if (!RE2::PartialMatch(s.value, kDeviceString)) continue;
    const auto [before, after] = lineAround(module.source(), s.range.start_byte, s.range.end_byte);
    (void)before;
    SourceRange r = s.range;
    r.end_byte = static_cast<std::uint32_t>(s.range.end_byte + after.size());
    uses.push_back({r, std::string(module.text(s.range)) + std::string(after)});
  }
  return uses;
}

std::string shortened(std::string text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    const bool ws = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (ws) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > 100) out = out.substr(0, 97) + "...";
  return out;
}

}  // namespace

void checkLocalRankDevice(const Module& module, const RuleTable& rules, FindingSink& sink) {
  const std::vector<LocalRankRead> reads = localRankReads(module);
  if (reads.empty()) return;
  const std::vector<DeviceUse> uses = deviceUses(module);
  auto direct = [&](const LocalRankRead& read, const DeviceUse& use) {
    return use.range.start_byte <= read.fact->range.start_byte &&
           read.fact->range.end_byte <= use.range.end_byte;
  };
  auto byName = [&](const LocalRankRead& read, const DeviceUse& use) {
    const std::string_view arg_text = module.text(use.range);
    // `config.LOCAL_RANK`, `args.local_rank`: the local rank by name, whatever the receiver.
    if (mentionsLocalRank(arg_text)) return true;
    for (const std::string& name : read.names) {
      if (mentions(arg_text, name)) return true;
      // `self.local_rank = ...` read in one method, `env.local_rank` used in another.
      const auto dot = name.rfind('.');
      if (dot != std::string::npos && mentions(arg_text, name.substr(dot))) return true;
    }
    return false;
  };
  for (const LocalRankRead& read : reads) {
    // The use that contains the read itself is the best evidence; a use by name otherwise.
    const DeviceUse* found = nullptr;
    for (const DeviceUse& use : uses)
      if (direct(read, use)) {
        found = &use;
        break;
      }
    if (found == nullptr)
      for (const DeviceUse& use : uses)
        if (byName(read, use)) {
          found = &use;
          break;
        }
    if (found == nullptr) continue;
    const std::string device_use = shortened(found->text);
    Finding f = findingFrom(*rules.local_rank, std::string(module.path()), read.fact->range,
                            std::string(module.text(read.fact->range)), {}, {{"value", device_use}});
    f.details["local_rank_source"] = read.source;
    std::string names;
    for (const std::string& n : read.names) names += (names.empty() ? "" : ",") + n;
    f.details["local_rank_variable"] = names;
    f.details["device_use"] = device_use;
    f.details["device_use_line"] = std::to_string(found->range.line);
    sink.report(std::move(f));
    return;  // one finding per file
  }
}

}  // namespace distributed
