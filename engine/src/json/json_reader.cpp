#include "json/json_reader.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

namespace migrate::json {
namespace {

const char* kRewrite =
    "the file was not written by this version of migrate-pipeline or was changed since: run the pipeline "
    "again to write it anew";

/// What a value is, for "expected ..., found ..." messages.
std::string describe(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "the integer " + v.dump();
    case nlohmann::json::value_t::number_float:
      return "the number " + v.dump();
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::object:
      return "an object";
    default:
      return "a value of another kind";
  }
}

bool isString(const nlohmann::json& v) {
  return v.is_string();
}
bool isBoolean(const nlohmann::json& v) {
  return v.is_boolean();
}
bool isNumber(const nlohmann::json& v) {
  return v.is_number();
}
bool isInteger(const nlohmann::json& v) {
  return v.is_number_integer();
}
bool isArray(const nlohmann::json& v) {
  return v.is_array();
}
bool isObject(const nlohmann::json& v) {
  return v.is_object();
}

}  // namespace

void Field::fail(const std::string& problem) const {
  throw JsonError(where() + ": " + problem);
}

const nlohmann::json& Field::require(bool (*ok)(const nlohmann::json&), const char* expected) const {
  if (!value_) fail(std::string("missing (expected ") + expected + ")");
  if (!ok(*value_)) fail(std::string("expected ") + expected + ", found " + describe(*value_));
  return *value_;
}

Field Field::operator[](const std::string& key) const {
  const nlohmann::json& v = require(isObject, "an object");
  const auto it = v.find(key);
  return Field(it == v.end() ? nullptr : &*it, path_.empty() ? key : path_ + "." + key);
}

bool Field::isNull() const {
  return value_ && value_->is_null();
}

bool Field::has(const std::string& key) const {
  return require(isObject, "an object").contains(key);
}

std::string Field::string() const {
  return require(isString, "a string").get<std::string>();
}

bool Field::boolean() const {
  return require(isBoolean, "a boolean").get<bool>();
}

double Field::number() const {
  return require(isNumber, "a number").get<double>();
}

std::uint64_t Field::unsignedInt(std::uint64_t max) const {
  const nlohmann::json& v = require(isInteger, "an integer");
  if (!v.is_number_unsigned()) fail("expected a non-negative integer, found " + v.dump());
  const auto n = v.get<std::uint64_t>();
  if (n > max) fail("expected an integer no larger than " + std::to_string(max) + ", found " + v.dump());
  return n;
}

std::string Field::choice(const std::vector<std::string>& choices) const {
  const std::string s = string();
  for (const std::string& c : choices)
    if (s == c) return s;
  fail("expected one of " + joined(choices) + ", found \"" + s + "\"");
}

std::string Field::joined(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("\"" + names[i] + "\"");
  return out;
}

std::vector<Field> Field::elements() const {
  const nlohmann::json& v = require(isArray, "an array");
  std::vector<Field> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(Field(&v[i], path_ + "[" + std::to_string(i) + "]"));
  return out;
}

std::vector<std::pair<std::string, Field>> Field::members() const {
  const nlohmann::json& v = require(isObject, "an object");
  std::vector<std::pair<std::string, Field>> out;
  for (auto it = v.begin(); it != v.end(); ++it)
    out.emplace_back(it.key(), Field(&it.value(), (path_.empty() ? "" : path_ + ".") + it.key()));
  return out;
}

std::vector<std::string> Field::strings() const {
  return list([](const Field& f) { return f.string(); });
}

std::vector<std::size_t> Field::sizes() const {
  return list([](const Field& f) { return f.size(); });
}

Status readDocument(const std::filesystem::path& file, int schema_version,
                    const std::function<void(const Field&)>& read) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return makeError(file.string() + ": cannot be read; give the output directory of a run");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);  // from the stream: the text is never held whole next to the DOM
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    const std::size_t prefix = what.find("] ");
    if (what.rfind("[json.exception", 0) == 0 && prefix != std::string::npos) what.erase(0, prefix + 2);
    // The parser quotes all it read of the bad token, which can be a whole long string.
    const std::size_t quoted = what.find("; last read: '");
    if (quoted != std::string::npos && what.size() - quoted > 80) {
      std::size_t cut = quoted + 74;
      while ((static_cast<unsigned char>(what[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
      what = what.substr(0, cut) + "...'";
    }
    return makeError(
        file.string() + ": not valid JSON at byte " + std::to_string(e.byte) + " (" + what +
        "); the file is truncated or was changed by hand: run the pipeline again to write it anew");
  } catch (const nlohmann::json::exception& e) {
    // Not a syntax error but a value the parser cannot hold: a number of a thousand digits is
    // out_of_range.406, which escaped the handler above and terminated the program.
    return makeError(file.string() + ": not valid JSON (" + e.what() +
                     "); the file was changed by hand: run the pipeline again to write it anew");
  }
  if (in.bad()) return makeError(file.string() + ": reading it failed");
  try {
    const Field root(doc);
    const std::uint64_t version = root["schema_version"].unsignedInt();
    if (version != static_cast<std::uint64_t>(schema_version))
      return makeError(
          file.string() + ": schema_version " + std::to_string(version) +
          ", but this version of migrate-pipeline reads version " + std::to_string(schema_version) +
          " only: run the pipeline again with it, or use the migrate-pipeline that wrote the file");
    read(root);
  } catch (const JsonError& e) {
    return makeError(file.string() + ": " + e.what() + "; " + kRewrite);
  } catch (const nlohmann::json::exception& e) {
    return makeError(file.string() + ": " + e.what() + "; " + kRewrite);
  }
  return Ok{};
}

}  // namespace migrate::json
