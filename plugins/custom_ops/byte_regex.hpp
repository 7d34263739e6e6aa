#pragma once
/// The scanners' regular expressions run on RE2: linear time and no recursion, so a hostile
/// source (a word of megabytes) cannot overflow the stack as std::regex did. Patterns read bytes
/// (Latin-1), as std::regex reads a std::string, and keep its leftmost-first alternation.

#include <re2/re2.h>

namespace custom_ops {

inline RE2::Options bytePattern() {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_log_errors(false);
  return o;
}

}  // namespace custom_ops
