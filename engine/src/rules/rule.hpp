#pragma once
/// A rule as the engine holds it after loading `rules/*.yaml` (format 1; docs/writing-rules.md).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "migrate/sdk/finding.hpp"
#include "migrate/sdk/module.hpp"
#include "rules/pattern.hpp"

namespace migrate::rules {

struct ApiEntry {
  std::string name;  ///< without the trailing ".*" of a prefix entry
  bool prefix = false;
  std::string npu;
  std::string note;
};

struct ArgConstraint {
  int index = -1;       ///< positional index, or -1
  std::string keyword;  ///< keyword, or ""; both set only with `absent` (a parameter passed either way)
  std::optional<sdk::ValueKind> kind;
  std::optional<Pattern> value;
  bool absent = false;  ///< matches a call without this argument (and without `*`/`**` splats)
  /// With kind/regex: also a call without the argument (and without splats), whose library
  /// default is the matched value (`cuda=True` or `cuda` left out when its default is True).
  bool or_absent = false;
};

struct StringPosition {
  enum class Kind { Keyword, ArgOf, MethodArgOf, Compare, AssignTo, SubscriptOf, Returned };
  Kind kind = Kind::Compare;
  std::vector<std::string> names;    ///< keywords, callees, methods or subscripted chains
  std::vector<std::string> callees;  ///< Keyword: optional restriction of the call
  std::vector<std::string> except;   ///< ArgOf "*": calls left out (`os.path.join`)
  std::optional<Pattern> target;     ///< AssignTo
  bool kept_only = false;            ///< Compare: not a comparison that only picks a branch
  std::optional<Pattern> value;      ///< narrows the rule's regex at this position
  std::optional<int> index;          ///< ArgOf / MethodArgOf: only this positional argument
};

struct Snippet {
  std::string file = "snippet.py";            ///< the file the code is written to
  std::map<std::string, std::string> others;  ///< more files of the snippet's repository
  std::string code;
  std::optional<int> count;
  std::vector<int> lines;
  int yaml_line = 0;
};

struct Rule {
  /// Custom: matched by the plugin's own code, which reports findings with this rule's data.
  enum class Kind { Api, Import, Method, Attribute, Keyword, String, Custom };
  enum class Role { Any, Decorator, BaseClass };
  enum class Fix { None, ReplaceApi, Rename };

  std::string id;
  std::string title;
  std::string domain;
  std::string message;
  std::string npu_alternative;
  sdk::Severity severity = sdk::Severity::Warning;
  sdk::Level confidence = sdk::Level::Medium;
  sdk::Level difficulty = sdk::Level::Medium;
  double effort_days = 0.0;
  /// The API this rule matches has no NPU counterpart: the code must be rewritten or removed,
  /// not renamed (rule key `no_npu_counterpart`). Its findings are the rows of
  /// unsupported_apis.csv.
  bool no_npu_counterpart = false;

  Kind kind = Kind::Api;
  // api
  std::vector<ApiEntry> apis;
  /// Names the api match leaves out, each with everything below it (`api_except:`).
  std::vector<std::string> api_except;
  bool calls_only = false;
  Role role = Role::Any;
  /// api / import: also match inside the repository that is itself the named library (its
  /// examples and wrappers use the API as its users do).
  bool own_repository = false;
  /// import: false = a plain `import a.b` (which binds only `a`, whose uses other rules see) does
  /// not match; `import a.b as x` and `from a.b import y` still do.
  bool submodule_import = true;
  std::vector<sdk::ResultUse> result_use;
  std::vector<std::string> result_attributes;
  // import / method / attribute / keyword: the names looked up
  std::vector<std::string> names;
  std::optional<ArgConstraint> args;     // method, api (then only calls match)
  std::optional<Pattern> keyword_value;  // keyword
  std::vector<std::string> keyword_callees;
  bool dict_keys = false;  // keyword: also a dict key or subscript key set to a value
  // string
  std::optional<Pattern> string_regex;
  std::optional<bool> fstring;
  std::vector<StringPosition> where;
  /// A platform label, not a device use: skip a match when another entry of the enclosing
  /// list/dict/tuple display, or another branch of the enclosing if/elif chain, holds a string
  /// literal matching this (e.g. "cuda" beside "npu").
  std::optional<Pattern> not_beside;

  Fix fix = Fix::None;
  std::string fix_from;
  std::string fix_to;

  std::vector<Snippet> invalid;  ///< must produce findings of this rule
  std::vector<Snippet> valid;    ///< must produce none

  std::string source;  ///< "plugin:rules/x.yaml:12" for messages
  std::string custom;  ///< Custom: what the plugin's code matches (documentation)

  /// The data a plugin needs to report a finding of this rule itself.
  sdk::RuleInfo info() const {
    return {id, title, domain, message, npu_alternative, severity, confidence, difficulty, effort_days};
  }
};

}  // namespace migrate::rules
