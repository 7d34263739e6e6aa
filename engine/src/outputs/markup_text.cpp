#include "outputs/markup_text.hpp"

#include <nlohmann/json.hpp>

namespace migrate::outputs {

std::string escapeMarkup(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string xmlText(const std::string& text) {
  std::string valid = nlohmann::json::parse(
                          nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
                          .get<std::string>();
  for (char& c : valid)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') c = '?';
  return escapeMarkup(valid);
}

}  // namespace migrate::outputs
