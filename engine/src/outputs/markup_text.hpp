#pragma once
/// Text inside HTML, SVG and XML the tool writes (the fleet dashboard, its charts, the JUnit
/// report).

#include <string>

namespace migrate::outputs {

/// `text` with &, <, >, " and ' escaped, for element text and attribute values.
std::string escapeMarkup(const std::string& text);

/// `text` as XML 1.0 characters, escaped: invalid UTF-8 becomes U+FFFD (through the JSON library's
/// replacing dump, which already validates UTF-8), and the control characters XML forbids become '?'.
std::string xmlText(const std::string& text);

}  // namespace migrate::outputs
