#pragma once
/// Errors as values inside the engine: Result<T> holds a T or an Error.

#include <string>
#include <utility>
#include <variant>

namespace migrate {

struct Error {
  std::string message;  ///< what went wrong, where, and what to do
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}
  Result(Error error) : data_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<T>(data_); }
  const T& value() const { return std::get<T>(data_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const Error& error() const { return std::get<Error>(data_); }

 private:
  std::variant<T, Error> data_;
};

/// Result of an operation with no value.
struct Ok {};
using Status = Result<Ok>;

inline Error makeError(std::string message) {
  return Error{std::move(message)};
}

}  // namespace migrate
