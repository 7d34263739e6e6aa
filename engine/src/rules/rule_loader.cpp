#include "rules/rule_loader.hpp"

#include <algorithm>
#include <set>

#include "yaml/yaml_reader.hpp"

namespace migrate::rules {
namespace {

using yaml::Reader;

const std::vector<std::string> kRuleKeys{
    "id",         "title",      "severity",    "message", "match", "npu_alternative",
    "confidence", "difficulty", "effort_days", "fix",     "tests", "no_npu_counterpart"};
const std::vector<std::string> kLevels{"low", "medium", "high"};

sdk::Level level(const Reader& r, const YAML::Node& n, const std::string& what) {
  const std::string s = r.choice(n, kLevels, what);
  return s == "low" ? sdk::Level::Low : s == "high" ? sdk::Level::High : sdk::Level::Medium;
}

Pattern pattern(const Reader& r, const YAML::Node& n, const std::string& what) {
  auto p = Pattern::compile(r.string(n, what));
  if (!p) r.fail(n, what + " " + p.error().message);
  return std::move(p.value());
}

sdk::ValueKind valueKind(const Reader& r, const YAML::Node& n) {
  const std::string s = r.choice(n, {"string", "int", "float", "bool", "none", "name", "other"}, "args.kind");
  if (s == "string") return sdk::ValueKind::String;
  if (s == "int") return sdk::ValueKind::Int;
  if (s == "float") return sdk::ValueKind::Float;
  if (s == "bool") return sdk::ValueKind::Bool;
  if (s == "none") return sdk::ValueKind::None;
  if (s == "name") return sdk::ValueKind::Name;
  return sdk::ValueKind::Other;
}

/// `args`: a constraint on one argument of the matched call.
ArgConstraint readArgs(const Reader& r, const YAML::Node& a) {
  r.checkKeys(a, {"index", "keyword", "kind", "regex", "absent", "or_absent"}, "args");
  ArgConstraint c;
  if (a["index"]) c.index = static_cast<int>(r.integer(a["index"], "args.index"));
  if (a["keyword"]) c.keyword = r.string(a["keyword"], "args.keyword");
  if (a["kind"]) c.kind = valueKind(r, a["kind"]);
  if (a["regex"]) c.value = pattern(r, a["regex"], "args.regex");
  if (a["absent"]) c.absent = r.boolean(a["absent"], "args.absent");
  if (a["or_absent"]) c.or_absent = r.boolean(a["or_absent"], "args.or_absent");
  if (c.absent && (c.kind || c.value))
    r.fail(a, "args.absent takes no kind or regex: it matches calls without the argument");
  if (c.or_absent && (c.absent || !(c.kind || c.value)))
    r.fail(a, "args.or_absent needs a kind or regex (the library default it stands for) and no absent");
  // A parameter that may be passed by position or by name: both, for absent and or_absent only.
  const bool both = c.index >= 0 && !c.keyword.empty();
  if ((c.index < 0 && c.keyword.empty()) || (both && !c.absent && !c.or_absent))
    r.fail(a, "args names exactly one of index or keyword (both only with absent or or_absent: true)");
  return c;
}

void readApi(const Reader& r, const YAML::Node& m, Rule& rule) {
  r.checkKeys(m,
              {"api", "api_except", "calls_only", "role", "result_use", "result_attributes", "own_repository",
               "args"},
              "an api match");
  if (const YAML::Node a = m["args"]) rule.args = readArgs(r, a);  // only calls can match
  const YAML::Node list = m["api"];
  if (!list.IsSequence() || list.size() == 0)
    r.fail(list, "match.api must be a non-empty list of qualified names");
  for (const auto& item : list) {
    ApiEntry e;
    if (item.IsScalar()) {
      e.name = item.Scalar();
    } else {
      r.checkKeys(item, {"name", "npu", "note"}, "an api entry");
      r.requireKeys(item, {"name"}, "an api entry");
      e.name = r.string(item["name"], "name");
      if (item["npu"]) e.npu = r.string(item["npu"], "npu");
      if (item["note"]) e.note = r.string(item["note"], "note");
    }
    if (e.name.size() > 2 && e.name.compare(e.name.size() - 2, 2, ".*") == 0) {
      e.prefix = true;
      e.name.resize(e.name.size() - 2);
    }
    if (e.name.empty() || e.name.find('*') != std::string::npos)
      r.fail(item, "an api name is a qualified name, optionally ending in .* (e.g. torch.cuda.*)");
    rule.apis.push_back(std::move(e));
  }
  if (const YAML::Node except = m["api_except"]) {
    if (!except.IsSequence()) r.fail(except, "match.api_except must be a list of qualified names");
    for (const auto& item : except) {
      const std::string name = r.string(item, "api_except");
      if (name.empty() || name.find('*') != std::string::npos)
        r.fail(item, "an api_except name is a qualified name; it leaves out everything below it too");
      rule.api_except.push_back(name);
    }
  }
  if (m["calls_only"]) rule.calls_only = r.boolean(m["calls_only"], "calls_only");
  if (m["own_repository"]) rule.own_repository = r.boolean(m["own_repository"], "own_repository");
  if (m["role"]) {
    const std::string role = r.choice(m["role"], {"any", "decorator", "base_class"}, "role");
    rule.role = role == "decorator"    ? Rule::Role::Decorator
                : role == "base_class" ? Rule::Role::BaseClass
                                       : Rule::Role::Any;
  }
  if (m["result_use"]) {
    for (const auto& u : m["result_use"]) {
      const std::string s =
          r.choice(u, {"tuple_unpack", "subscript", "compare", "attribute", "iterate"}, "result_use");
      rule.result_use.push_back(s == "tuple_unpack" ? sdk::ResultUse::TupleUnpack
                                : s == "subscript"  ? sdk::ResultUse::Subscript
                                : s == "compare"    ? sdk::ResultUse::Compare
                                : s == "iterate"    ? sdk::ResultUse::Iterate
                                                    : sdk::ResultUse::Attribute);
    }
  }
  if (m["result_attributes"])
    rule.result_attributes = r.stringList(m["result_attributes"], "result_attributes");
}

StringPosition readPosition(const Reader& r, const YAML::Node& n) {
  r.checkKeys(n,
              {"keyword", "callee", "arg_of", "except", "method_arg_of", "compare", "assign_to",
               "subscript_of", "returned", "regex", "index"},
              "a string position");
  StringPosition p;
  if (n["regex"]) p.value = pattern(r, n["regex"], "regex");
  int kinds = 0;
  if (n["keyword"]) {
    p.kind = StringPosition::Kind::Keyword;
    p.names = r.stringList(n["keyword"], "keyword");
    if (n["callee"]) p.callees = r.stringList(n["callee"], "callee");
    ++kinds;
  }
  if (n["arg_of"]) {
    p.kind = StringPosition::Kind::ArgOf;
    p.names = r.stringList(n["arg_of"], "arg_of");
    ++kinds;
  }
  if (n["method_arg_of"]) {
    p.kind = StringPosition::Kind::MethodArgOf;
    p.names = r.stringList(n["method_arg_of"], "method_arg_of");
    ++kinds;
  }
  if (n["compare"]) {
    // `compare: kept`: only a comparison whose result is kept, asserted or returned, not one
    // that only picks a branch (`if dev == "cuda":`).
    const YAML::Node c = n["compare"];
    if (c.IsScalar() && c.Scalar() == "kept")
      p.kept_only = true;
    else if (!r.boolean(c, "compare"))
      r.fail(c, "compare: false means nothing; remove it");
    p.kind = StringPosition::Kind::Compare;
    ++kinds;
  }
  if (n["assign_to"]) {
    p.kind = StringPosition::Kind::AssignTo;
    p.target = pattern(r, n["assign_to"], "assign_to");
    ++kinds;
  }
  if (n["subscript_of"]) {
    p.kind = StringPosition::Kind::SubscriptOf;
    p.names = r.stringList(n["subscript_of"], "subscript_of");
    ++kinds;
  }
  if (n["returned"]) {
    if (!r.boolean(n["returned"], "returned"))
      r.fail(n["returned"], "returned: false means nothing; remove it");
    p.kind = StringPosition::Kind::Returned;
    ++kinds;
  }
  if (kinds != 1)
    r.fail(n,
           "a string position names exactly one of keyword, arg_of, method_arg_of, compare, "
           "assign_to, subscript_of");
  if (n["callee"] && p.kind != StringPosition::Kind::Keyword)
    r.fail(n["callee"], "callee restricts only a keyword position");
  if (n["index"]) {
    if (p.kind != StringPosition::Kind::ArgOf && p.kind != StringPosition::Kind::MethodArgOf)
      r.fail(n["index"], "index selects a positional argument of arg_of or method_arg_of only");
    p.index = static_cast<int>(r.integer(n["index"], "index"));
  }
  if (n["except"]) {
    if (p.kind != StringPosition::Kind::ArgOf ||
        std::find(p.names.begin(), p.names.end(), "*") == p.names.end())
      r.fail(n["except"], "except leaves calls out of arg_of: ['*'] only");
    p.except = r.stringList(n["except"], "except");
  }
  return p;
}

void readMatch(const Reader& r, const YAML::Node& m, Rule& rule) {
  r.requireMap(m, "match");
  static const std::vector<std::string> kinds{"api",     "import", "method", "attribute",
                                              "keyword", "string", "custom"};
  int found = 0;
  for (const auto& k : kinds) found += m[k] ? 1 : 0;
  if (found != 1)
    r.fail(m, "match must have exactly one of: api, import, method, attribute, keyword, string, custom");
  if (m["api"]) {
    rule.kind = Rule::Kind::Api;
    readApi(r, m, rule);
  } else if (m["import"]) {
    r.checkKeys(m, {"import", "own_repository", "submodule_import"}, "an import match");
    rule.kind = Rule::Kind::Import;
    rule.names = r.stringList(m["import"], "import");
    if (m["own_repository"]) rule.own_repository = r.boolean(m["own_repository"], "own_repository");
    if (m["submodule_import"]) rule.submodule_import = r.boolean(m["submodule_import"], "submodule_import");
  } else if (m["method"]) {
    r.checkKeys(m, {"method", "args"}, "a method match");
    rule.kind = Rule::Kind::Method;
    rule.names = r.stringList(m["method"], "method");
    if (const YAML::Node a = m["args"]) rule.args = readArgs(r, a);
  } else if (m["attribute"]) {
    r.checkKeys(m, {"attribute"}, "an attribute match");
    rule.kind = Rule::Kind::Attribute;
    rule.names = r.stringList(m["attribute"], "attribute");
  } else if (m["keyword"]) {
    r.checkKeys(m, {"keyword"}, "a keyword match");
    rule.kind = Rule::Kind::Keyword;
    const YAML::Node k = m["keyword"];
    r.checkKeys(k, {"name", "value", "callee", "dict_keys"}, "match.keyword");
    r.requireKeys(k, {"name"}, "match.keyword");
    rule.names = r.stringList(k["name"], "keyword.name");
    if (k["value"]) rule.keyword_value = pattern(r, k["value"], "keyword.value");
    if (k["callee"]) rule.keyword_callees = r.stringList(k["callee"], "keyword.callee");
    if (k["dict_keys"]) rule.dict_keys = r.boolean(k["dict_keys"], "keyword.dict_keys");
  } else if (m["custom"]) {
    r.checkKeys(m, {"custom"}, "a custom match");
    rule.kind = Rule::Kind::Custom;
    rule.custom = r.string(m["custom"], "custom");
  } else {
    r.checkKeys(m, {"string"}, "a string match");
    rule.kind = Rule::Kind::String;
    const YAML::Node s = m["string"];
    r.checkKeys(s, {"regex", "fstring", "where", "not_beside"}, "match.string");
    r.requireKeys(s, {"regex"}, "match.string");
    rule.string_regex = pattern(r, s["regex"], "string.regex");
    if (s["fstring"]) rule.fstring = r.boolean(s["fstring"], "string.fstring");
    if (s["not_beside"]) rule.not_beside = pattern(r, s["not_beside"], "string.not_beside");
    if (const YAML::Node w = s["where"]) {
      if (!w.IsSequence()) r.fail(w, "string.where must be a list of positions");
      for (const auto& p : w) rule.where.push_back(readPosition(r, p));
    }
  }
}

void readFix(const Reader& r, const YAML::Node& f, Rule& rule) {
  r.checkKeys(f, {"replace_api", "rename"}, "fix");
  if (f["replace_api"] && f["rename"]) r.fail(f, "fix has either replace_api or rename");
  if (f["replace_api"]) {
    if (rule.kind != Rule::Kind::Api) r.fail(f, "replace_api applies only to api matches");
    if (r.boolean(f["replace_api"], "replace_api")) rule.fix = Rule::Fix::ReplaceApi;
  } else if (const YAML::Node rn = f["rename"]) {
    r.checkKeys(rn, {"from", "to"}, "fix.rename");
    r.requireKeys(rn, {"from", "to"}, "fix.rename");
    rule.fix = Rule::Fix::Rename;
    rule.fix_from = r.string(rn["from"], "rename.from");
    rule.fix_to = r.string(rn["to"], "rename.to");
    if (rule.fix_from.empty()) r.fail(rn["from"], "rename.from must not be empty");
  }
}

std::vector<Snippet> readSnippets(const Reader& r, const YAML::Node& list, const std::string& what) {
  std::vector<Snippet> out;
  if (!list.IsSequence()) r.fail(list, "tests." + what + " must be a list of code snippets");
  for (const auto& item : list) {
    Snippet s;
    s.yaml_line = item.Mark().line + 1;
    if (item.IsScalar()) {
      s.code = item.Scalar();
    } else {
      r.checkKeys(item, {"code", "count", "lines", "file", "files"}, "a test snippet");
      r.requireKeys(item, {"code"}, "a test snippet");
      s.code = r.string(item["code"], "code");
      if (item["file"]) s.file = r.string(item["file"], "file");
      if (const YAML::Node files = item["files"]) {
        r.requireMap(files, "files");
        for (auto it = files.begin(); it != files.end(); ++it)
          s.others[it->first.Scalar()] = r.string(it->second, "files." + it->first.Scalar());
      }
      if (item["count"]) s.count = static_cast<int>(r.integer(item["count"], "count"));
      if (item["lines"])
        for (const auto& l : item["lines"]) s.lines.push_back(static_cast<int>(r.integer(l, "lines")));
    }
    out.push_back(std::move(s));
  }
  return out;
}

Rule readRule(const Reader& r, const YAML::Node& n, const std::string& domain) {
  r.checkKeys(n, kRuleKeys, "a rule");
  r.requireKeys(n, {"id", "message", "match", "confidence", "difficulty", "effort_days"}, "a rule");
  Rule rule;
  rule.id = r.string(n["id"], "id");
  rule.domain = domain;
  rule.source = r.where(n);
  if (n["title"]) rule.title = r.string(n["title"], "title");
  rule.message = r.string(n["message"], "message");
  if (n["npu_alternative"]) rule.npu_alternative = r.string(n["npu_alternative"], "npu_alternative");
  if (n["severity"]) {
    const std::string s = r.choice(n["severity"], {"info", "warning", "error"}, "severity");
    rule.severity = s == "info"    ? sdk::Severity::Info
                    : s == "error" ? sdk::Severity::Error
                                   : sdk::Severity::Warning;
  }
  rule.confidence = level(r, n["confidence"], "confidence");
  rule.difficulty = level(r, n["difficulty"], "difficulty");
  rule.effort_days = r.number(n["effort_days"], "effort_days");
  if (rule.effort_days < 0) r.fail(n["effort_days"], "effort_days must not be negative");
  if (n["no_npu_counterpart"])
    rule.no_npu_counterpart = r.boolean(n["no_npu_counterpart"], "no_npu_counterpart");
  readMatch(r, n["match"], rule);
  if (n["fix"]) readFix(r, n["fix"], rule);
  if (const YAML::Node t = n["tests"]) {
    r.checkKeys(t, {"valid", "invalid"}, "tests");
    if (t["invalid"]) rule.invalid = readSnippets(r, t["invalid"], "invalid");
    if (t["valid"]) rule.valid = readSnippets(r, t["valid"], "valid");
  }
  return rule;
}

}  // namespace

Result<std::vector<Rule>> loadRules(std::string_view text, const std::string& origin,
                                    const std::string& domain) {
  return loadRules(text, origin, [&domain](const std::string& declared) -> std::string {
    if (declared == domain) return {};
    return "the file declares domain '" + declared + "' but belongs to a plugin of domain '" + domain + "'";
  });
}

Result<std::vector<Rule>> loadRules(std::string_view text, const std::string& origin,
                                    const DomainCheck& check) {
  Reader r(origin);
  try {
    const YAML::Node doc = YAML::Load(std::string(text));
    r.checkKeys(doc, {"format", "domain", "rules"}, "a rule file");
    r.requireKeys(doc, {"format", "domain", "rules"}, "a rule file");
    if (r.integer(doc["format"], "format") != 1)
      r.fail(doc["format"],
             "unsupported rule format " + doc["format"].Scalar() + "; this engine reads format 1");
    const std::string domain = r.string(doc["domain"], "domain");
    if (const std::string refused = check(domain); !refused.empty()) r.fail(doc["domain"], refused);
    if (!doc["rules"].IsSequence()) r.fail(doc["rules"], "rules must be a list");
    std::vector<Rule> rules;
    std::set<std::string> ids;
    for (const auto& n : doc["rules"]) {
      Rule rule = readRule(r, n, domain);
      if (!ids.insert(rule.id).second) r.fail(n["id"], "duplicate rule id " + rule.id);
      rules.push_back(std::move(rule));
    }
    return rules;
  } catch (const yaml::YamlError& e) {
    return makeError(e.what());
  } catch (const YAML::Exception& e) {
    return makeError(origin + ":" + std::to_string(e.mark.line + 1) + ":" +
                     std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
}

}  // namespace migrate::rules
