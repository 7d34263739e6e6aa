#pragma once
/// The current time in UTC as the outputs and the fleet's store write it.

#include <ctime>
#include <string>

namespace migrate {

/// Now, in UTC, formatted by strftime's `format` (default ISO 8601, "2026-11-26T02:00:00Z").
inline std::string utcNow(const char* format = "%Y-%m-%dT%H:%M:%SZ") {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  return std::string(buf, std::strftime(buf, sizeof buf, format, &tm));
}

}  // namespace migrate
