#include "yaml/yaml_reader.hpp"

#include <algorithm>

namespace migrate::yaml {
namespace {

std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

}  // namespace

std::string closest(const std::string& word, const std::vector<std::string>& allowed) {
  std::string best;
  std::size_t best_d = 4;
  for (const auto& a : allowed) {
    std::size_t d = editDistance(word, a);
    if (d < best_d) {
      best_d = d;
      best = a;
    }
  }
  return best;
}

std::string Reader::where(const YAML::Node& node) const {
  if (origin_for_) {
    std::string o = origin_for_(node);
    if (!o.empty()) return o;
  }
  const YAML::Mark m = node.Mark();
  if (m.is_null()) return origin_;
  return origin_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

void Reader::fail(const YAML::Node& node, const std::string& message) const {
  throw YamlError(where(node) + ": " + message);
}

void Reader::requireMap(const YAML::Node& node, const std::string& what) const {
  if (!node.IsMap()) fail(node, what + " must be a mapping of keys to values");
}

void Reader::checkKeys(const YAML::Node& map, const std::vector<std::string>& allowed,
                       const std::string& what) const {
  requireMap(map, what);
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string hint = closest(key, allowed);
    throw YamlError(where(it->first) + ": unknown key '" + key + "' in " + what +
                    (hint.empty() ? "" : "; did you mean '" + hint + "'?") + " (allowed: " + join(allowed) +
                    ")");
  }
}

void Reader::requireKeys(const YAML::Node& map, const std::vector<std::string>& required,
                         const std::string& what) const {
  for (const auto& key : required)
    if (!map[key]) fail(map, what + " is missing the required key '" + key + "'");
}

std::string Reader::string(const YAML::Node& node, const std::string& what) const {
  if (!node.IsScalar()) fail(node, what + " must be a string");
  return node.Scalar();
}

long long Reader::integer(const YAML::Node& node, const std::string& what) const {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    std::size_t used = 0;
    try {
      long long v = std::stoll(s, &used);
      if (used == s.size()) return v;
    } catch (const std::exception&) {
    }
  }
  fail(node, what + " must be an integer, e.g. 4");
}

double Reader::number(const YAML::Node& node, const std::string& what) const {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    std::size_t used = 0;
    try {
      double v = std::stod(s, &used);
      if (used == s.size()) return v;
    } catch (const std::exception&) {
    }
  }
  fail(node, what + " must be a number, e.g. 0.5");
}

bool Reader::boolean(const YAML::Node& node, const std::string& what) const {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    if (s == "true" || s == "True" || s == "yes") return true;
    if (s == "false" || s == "False" || s == "no") return false;
  }
  fail(node, what + " must be true or false");
}

std::vector<std::string> Reader::stringList(const YAML::Node& node, const std::string& what) const {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
    return out;
  }
  if (!node.IsSequence()) fail(node, what + " must be a list of strings, e.g. [a, b]");
  for (const auto& item : node) out.push_back(string(item, "each entry of " + what));
  return out;
}

std::string Reader::choice(const YAML::Node& node, const std::vector<std::string>& choices,
                           const std::string& what) const {
  std::string s = string(node, what);
  if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
  std::string hint = closest(s, choices);
  fail(node, what + " is '" + s + "' but must be one of: " + join(choices) +
                 (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
}

}  // namespace migrate::yaml
