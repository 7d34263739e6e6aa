// DIST-001 positions the rule data cannot express (a keyword named like *backend*, a
// typing.Literal entry, `return "nccl"`), and DIST-026 for every other "nccl" string. The
// positions of DIST-001's `where` list in rules/backend.yaml are mirrored here so that one string
// gets exactly one of the two rules.

#include <algorithm>
#include <string>

#include "distributed_checks.hpp"
#include "plugin_support/byte_regex.hpp"
#include "plugin_support/definitions.hpp"

namespace distributed {
namespace {

using namespace migrate::sdk;

template <std::size_t N>
bool oneOf(const std::string& value, const char* const (&list)[N]) {
  return std::find(std::begin(list), std::end(list), value) != std::end(list);
}

/// The positions listed under DIST-001's `where` in rules/backend.yaml (keep both in step).
bool dataRulePosition(const StringFact& s) {
  static const char* const kKeywords[] = {
      "backend",      "dist_backend",  "distributed_backend", "process_group_backend",
      "ddp_backend",  "pg_backend",    "comm_backend",        "communication_backend",
      "backend_name", "torch_backend", "dist_backend_name"};
  static const char* const kDefaultCallees[] = {"add_argument", "field", "dataclasses.field"};
  static const char* const kArgOf[] = {"torch.distributed.init_process_group",
                                       "torch.distributed.distributed_c10d.init_process_group",
                                       "torch.distributed.Backend",
                                       "torch.distributed.is_backend_available",
                                       "deepspeed.init_distributed",
                                       "os.environ.get",
                                       "os.getenv",
                                       "getattr"};
  static const char* const kMethods[] = {"get", "setdefault"};
  static const RE2 kAssignTo("(?i)backend|^(?:cuda|gpu)$", plugin_support::bytePattern());
  switch (s.context) {
    case StringContext::KeywordArg:
      if (oneOf(s.name, kKeywords)) return true;
      return (s.name == "default" || s.name == "choices") &&
             (oneOf(s.callee, kDefaultCallees) || (s.method_on_value && oneOf(s.method, kDefaultCallees)));
    case StringContext::PositionalArg:
      return oneOf(s.callee, kArgOf) || (s.method_on_value && oneOf(s.method, kMethods));
    case StringContext::Assignment:
      return RE2::PartialMatch(s.name, kAssignTo);
    default:
      return false;
  }
}

/// Whether a string assigned to a name reaches a DIST-001 position through that name: the engine
/// follows `PG = "nccl"` to `init_process_group(PG)` and reports DIST-001 at the literal
/// (docs/writing-rules.md), so DIST-026 leaves it alone.
bool reachesDataRulePosition(const Module& module, const StringFact& s) {
  if (s.context != StringContext::Assignment) return false;
  for (const CallFact& call : module.calls())
    for (const ArgumentFact& a : call.args) {
      if (a.kind != ValueKind::Name || a.text != s.name) continue;
      StringFact placed = s;
      placed.callee = call.callee_resolved.empty() ? call.callee_written : call.callee_resolved;
      placed.method = call.method;
      placed.method_on_value = !call.method.empty() && !call.receiver_is_module;
      placed.context = a.keyword.empty() ? StringContext::PositionalArg : StringContext::KeywordArg;
      placed.name = a.keyword;
      placed.arg_index = a.index;
      if (dataRulePosition(placed)) return true;
    }
  return false;
}

/// Backend positions beyond the data rule: `tp_comm_bootstrap_backend="nccl"` (any keyword
/// named like a backend), a comparison with lower-case "nccl" (the rule's regex is case-blind),
/// `Literal["nccl", "gloo"]` (a subscript, or a generic type on the same line in an annotation),
/// `return "nccl"`.
bool extendedBackendPosition(const Module& module, const StringFact& s) {
  static const RE2 kBackendName("(?i)backend", plugin_support::bytePattern());
  // In annotations tree-sitter reads `Literal["nccl", "gloo"]` as a generic type, not a subscript.
  static const RE2 kLiteral(R"(\bLiteral\[[^\]]*$)", plugin_support::bytePattern());
  switch (s.context) {
    case StringContext::KeywordArg:
      return RE2::PartialMatch(s.name, kBackendName);
    case StringContext::Compare:
      // get_backend() returns lower case: `backend == "nccl"`; `"NCCL" in name` tests other text.
      return s.value == "nccl";
    case StringContext::Subscript:
      return s.callee == "typing.Literal" || s.callee == "typing_extensions.Literal" || s.callee == "Literal";
    case StringContext::Return:  // the returned value, or a branch of it
      return true;
    case StringContext::Other: {
      const std::string_view source = module.source();
      const std::size_t nl =
          s.range.start_byte == 0 ? std::string_view::npos : source.rfind('\n', s.range.start_byte - 1);
      const std::size_t from = nl == std::string_view::npos ? 0 : nl + 1;
      return RE2::PartialMatch(source.substr(from, s.range.start_byte - from), kLiteral);
    }
    default:
      return false;
  }
}

/// A returned "nccl" whose function also returns "hccl" (`if npu: return "hccl" elif cuda: return
/// "nccl"`): a per-device choice that already serves the NPU, like a backend table beside hccl.
bool returnedBesideHccl(const Module& module, const StringFact& s) {
  if (s.context != StringContext::Return) return false;
  const DefinitionFact* fn =
      plugin_support::innermostDefinition(module, s.range, DefinitionFact::Kind::Function);
  if (!fn) return false;
  return std::any_of(module.strings().begin(), module.strings().end(), [&](const StringFact& o) {
    return o.context == StringContext::Return && fn->range.start_byte <= o.range.start_byte &&
           o.range.end_byte <= fn->range.end_byte && o.value == "hccl";
  });
}

/// The edit renaming the first "nccl" inside the literal's content to "hccl" (as the rule's
/// `rename` fix does); none for "NCCL".
void renameEdit(const Module& module, const StringFact& s, Finding& f) {
  const std::string_view text = module.text(s.range);
  std::size_t skip = 0;
  while (skip < text.size() && text[skip] != '"' && text[skip] != '\'') ++skip;
  const char quote = skip < text.size() ? text[skip] : '"';
  while (skip < text.size() && text[skip] == quote) ++skip;
  const std::size_t pos = text.find("nccl", skip);
  if (pos == std::string_view::npos) return;
  const auto at = static_cast<std::uint32_t>(s.range.start_byte + pos);
  f.edits.push_back({at, at + 4, "hccl"});
}

}  // namespace

void checkBackendStrings(const Module& module, const RuleTable& rules, FindingSink& sink) {
  static const RE2 kNccl("(?i)nccl", plugin_support::bytePattern());  // the whole value
  for (const StringFact& s : module.strings()) {
    if (s.context == StringContext::Docstring || s.context == StringContext::Message) continue;
    if (!RE2::FullMatch(s.value, kNccl) || dataRulePosition(s) || reachesDataRulePosition(module, s) ||
        returnedBesideHccl(module, s))
      continue;
    const std::string written(module.text(s.range));
    if (extendedBackendPosition(module, s)) {
      Finding f = findingFrom(*rules.nccl_backend, std::string(module.path()), s.range, written, {},
                              {{"value", s.value}});
      renameEdit(module, s, f);
      sink.report(std::move(f));
    } else {
      Finding f = findingFrom(*rules.nccl_other, std::string(module.path()), s.range, written, {},
                              {{"value", s.value}});
      f.details["context"] = s.context == StringContext::KeywordArg      ? "keyword:" + s.name
                             : s.context == StringContext::PositionalArg ? "argument-of:" + s.callee
                             : s.context == StringContext::Assignment    ? "assigned-to:" + s.name
                             : s.context == StringContext::Subscript     ? "subscript-of:" + s.callee
                             : s.context == StringContext::Compare       ? std::string("compare")
                                                                         : std::string("other");
      sink.report(std::move(f));
    }
  }
}

}  // namespace distributed
