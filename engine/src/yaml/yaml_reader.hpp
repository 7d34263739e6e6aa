#pragma once
/// Typed reading of YAML documents with positioned errors: every problem names
/// origin:line:column, what was expected and how to fix it.

#include <yaml-cpp/yaml.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace migrate::yaml {

/// Thrown inside loaders only; each loader turns it into an Error at its boundary.
class YamlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Reader {
 public:
  /// `origin` names the document in messages (a path, or "--set key=value").
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  /// Lets some nodes report another origin (e.g. values that came from --set).
  void setOriginFor(std::function<std::string(const YAML::Node&)> f) { origin_for_ = std::move(f); }

  std::string where(const YAML::Node& node) const;
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const;

  void requireMap(const YAML::Node& node, const std::string& what) const;
  /// Fails on keys not in `allowed`, suggesting the closest allowed key.
  void checkKeys(const YAML::Node& map, const std::vector<std::string>& allowed,
                 const std::string& what) const;
  void requireKeys(const YAML::Node& map, const std::vector<std::string>& required,
                   const std::string& what) const;

  std::string string(const YAML::Node& node, const std::string& what) const;
  long long integer(const YAML::Node& node, const std::string& what) const;
  double number(const YAML::Node& node, const std::string& what) const;
  bool boolean(const YAML::Node& node, const std::string& what) const;
  /// A sequence of strings; a single scalar is accepted as a one-element list.
  std::vector<std::string> stringList(const YAML::Node& node, const std::string& what) const;
  /// One of `choices`.
  std::string choice(const YAML::Node& node, const std::vector<std::string>& choices,
                     const std::string& what) const;

  const std::string& origin() const { return origin_; }

 private:
  std::string origin_;
  std::function<std::string(const YAML::Node&)> origin_for_;
};

/// The allowed word closest to `word` (edit distance ≤ 3), or empty.
std::string closest(const std::string& word, const std::vector<std::string>& allowed);

}  // namespace migrate::yaml
