#pragma once
/// Typed reading of the JSON files a run writes (findings.json, emit.json, verify.json), with
/// errors that name the file and the JSON path of the value ("findings[3].line: expected an
/// integer, found a string"). Members a reader does not ask for are ignored, so newer files with
/// extra members still read.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "migrate/engine/result.hpp"

namespace migrate::json {

/// Thrown inside readers only; readDocument turns it into an Error naming the file.
class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A value of a parsed document (or a member it lacks) and its path in the document; the typed
/// accessors throw JsonError naming the path and what was expected.
class Field {
 public:
  /// The document's root.
  explicit Field(const nlohmann::json& root) : value_(&root) {}

  /// Member `key` of this object (which may be missing: the accessors then fail saying so).
  Field operator[](const std::string& key) const;
  /// True when this object has member `key` (null counts as present).
  bool has(const std::string& key) const;
  /// True when this value is present and null.
  bool isNull() const;

  /// The value as that type; JsonError when it is missing or of another type.
  std::string string() const;
  bool boolean() const;
  double number() const;
  /// A non-negative integer no larger than `max`.
  std::uint64_t unsignedInt(std::uint64_t max = UINT64_MAX) const;
  /// A non-negative integer that fits the type (line numbers, counts, indices).
  std::uint32_t uint32() const { return static_cast<std::uint32_t>(unsignedInt(UINT32_MAX)); }
  std::size_t size() const { return static_cast<std::size_t>(unsignedInt(SIZE_MAX)); }
  /// One of `choices`.
  std::string choice(const std::vector<std::string>& choices) const;
  /// A string that `convert` (e.g. sdk::severityFromString) accepts; `names` lists the accepted
  /// strings for the message.
  template <typename T, typename F>
  T as(F&& convert, const std::vector<std::string>& names) const {
    if (std::optional<T> v = convert(choice(names))) return *v;
    fail("expected one of " + joined(names));
  }

  /// The elements of this array.
  std::vector<Field> elements() const;
  /// The members of this object, in document order.
  std::vector<std::pair<std::string, Field>> members() const;
  /// An array of strings, or of non-negative integers.
  std::vector<std::string> strings() const;
  std::vector<std::size_t> sizes() const;
  /// Each element of this array read with `read`.
  template <typename F>
  auto list(F&& read) const {
    std::vector<decltype(read(std::declval<const Field&>()))> out;
    for (const Field& e : elements()) out.push_back(read(e));
    return out;
  }

  /// "findings[3].line", or "the document" for the root.
  std::string where() const { return path_.empty() ? "the document" : path_; }
  /// Throws JsonError "<where>: <problem>", for checks beyond the value's type.
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  Field(const nlohmann::json* value, std::string path) : value_(value), path_(std::move(path)) {}
  /// The value, or a JsonError saying `expected` when it is missing or `ok` rejects it.
  const nlohmann::json& require(bool (*ok)(const nlohmann::json&), const char* expected) const;
  static std::string joined(const std::vector<std::string>& names);

  const nlohmann::json* value_;  ///< null: the member is missing
  std::string path_;
};

/// Reads `file` as a JSON object whose `schema_version` is `schema_version` and hands its root to
/// `read`. Every problem becomes an Error naming the file and what to do: a file that cannot be
/// read, malformed JSON (with the parser's byte position), another schema version, a member
/// missing or of the wrong type (with its JSON path).
Status readDocument(const std::filesystem::path& file, int schema_version,
                    const std::function<void(const Field&)>& read);

}  // namespace migrate::json
