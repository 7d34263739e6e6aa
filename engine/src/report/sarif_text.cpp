#include "report/sarif_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace migrate::sarif {
namespace {

/// RFC 3986 "unreserved": the characters a URI never needs to encode.
bool isUnreserved(unsigned char c) {
  return isAsciiAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

void appendPercentEncoded(std::string& out, unsigned char c) {
  out += fmt::format("%{:02X}", c);
}

/// `uri` with the bytes no URI may hold (controls, space, quotes, non-ASCII, ...) encoded and
/// its syntax characters kept.
std::string encodeUriText(std::string_view uri) {
  static constexpr std::string_view kKept = ":/?#[]@!$&'()*+,;=%";
  std::string out;
  for (const char ch : uri) {
    const auto c = static_cast<unsigned char>(ch);
    if (isUnreserved(c) || kKept.find(ch) != std::string_view::npos)
      out += ch;
    else
      appendPercentEncoded(out, c);
  }
  return out;
}

}  // namespace

std::string sha256Hex(std::string_view data) {
  static constexpr std::array<std::uint32_t, 64> k = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto rotr = [](std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  // The message, a 1 bit, zeros up to 56 mod 64 bytes, and the length in bits (big-endian).
  std::string padded(data);
  padded += static_cast<char>(0x80);
  while (padded.size() % 64 != 56) padded += '\0';
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  for (int i = 7; i >= 0; --i) padded += static_cast<char>((bits >> (8 * i)) & 0xff);
  for (std::size_t block = 0; block < padded.size(); block += 64) {
    std::array<std::uint32_t, 64> w{};
    for (int i = 0; i < 16; ++i)
      for (int b = 0; b < 4; ++b) w[i] = (w[i] << 8) | static_cast<unsigned char>(padded[block + 4 * i + b]);
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    auto [a, b, c, d, e, f, g, hh] = h;
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t t1 =
          hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    const std::array<std::uint32_t, 8> add = {a, b, c, d, e, f, g, hh};
    for (int i = 0; i < 8; ++i) h[i] += add[i];
  }
  std::string hex;
  for (std::uint32_t word : h) hex += fmt::format("{:08x}", word);
  return hex;
}

bool isAsciiAlnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string percentEncodePath(std::string_view path) {
  std::string out;
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (isUnreserved(c) || c == '/')
      out += ch;
    else
      appendPercentEncoded(out, c);
  }
  return out;
}

std::string repositoryUri(const std::string& location) {
  const std::size_t scheme_end = location.find("://");
  if (scheme_end != std::string::npos && scheme_end > 0) {
    std::string scheme = location.substr(0, scheme_end);
    if (!std::all_of(scheme.begin(), scheme.end(), [](char c) {
          return isAsciiAlnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
        }))
      return "";
    std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                   [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
    if (scheme == "file") return "";
    std::string rest = location.substr(scheme_end + 3);
    const std::size_t authority_end = std::min(rest.find_first_of("/?#"), rest.size());
    const std::size_t at = rest.rfind('@', authority_end);
    // https://user:token@host/... carries a secret; ssh://git@host/... only a user name.
    if (at != std::string::npos && at < authority_end &&
        (scheme.rfind("http", 0) == 0 || rest.substr(0, at).find(':') != std::string::npos))
      rest.erase(0, at + 1);
    return encodeUriText(scheme + "://" + rest);
  }
  // scp-like syntax: [user@]host:path/to/repo.git
  const std::size_t colon = location.find(':');
  const std::size_t slash = location.find('/');
  if (colon != std::string::npos && colon > 1 && (slash == std::string::npos || colon < slash)) {
    std::string path = location.substr(colon + 1);
    if (path.empty() || path[0] != '/') path.insert(path.begin(), '/');
    return encodeUriText("ssh://" + location.substr(0, colon) + path);
  }
  return "";
}

std::string messageText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    out += c;
    if (c == '{' || c == '}') out += c;
  }
  return out;
}

std::string readableTemplate(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      const std::size_t close = text.find('}', i);
      const std::string name = close == std::string::npos ? "" : text.substr(i + 1, close - i - 1);
      if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
            return isAsciiAlnum(static_cast<unsigned char>(c)) || c == '_';
          })) {
        if (name != "note") out += "<" + name + ">";
        i = close;
        continue;
      }
    }
    out += text[i];
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string pascalCase(std::string_view title) {
  std::vector<std::string> words(1);
  int depth = 0;
  for (const char ch : title) {
    if (ch == '(' || ch == ')') depth = std::max(0, depth + (ch == '(' ? 1 : -1));
    if (depth == 0 && isAsciiAlnum(static_cast<unsigned char>(ch)))
      words.back() += ch;
    else if (!words.back().empty())
      words.emplace_back();
  }
  const auto upper = [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; };
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  std::string out;
  for (std::string word : words) {
    if (word.empty()) continue;
    const bool capitals = word.size() > 2 &&
                          std::none_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; });
    if (capitals) std::transform(word.begin() + 1, word.end(), word.begin() + 1, lower);
    word[0] = upper(word[0]);
    out += word;
  }
  if (!out.empty() && out[0] >= '0' && out[0] <= '9') out.insert(0, "Rule");
  return out;
}

std::string withPeriod(std::string text) {
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (!text.empty() && text.back() != '.' && text.back() != '!' && text.back() != '?') text += '.';
  return text;
}

bool isSemanticVersion(std::string_view v) {
  int dots = 0;
  std::size_t i = 0;
  for (; i < v.size() && v[i] != '-' && v[i] != '+'; ++i) {
    if (v[i] == '.') {
      if (i == 0 || v[i - 1] == '.') return false;
      ++dots;
    } else if (v[i] < '0' || v[i] > '9') {
      return false;
    }
  }
  return dots == 2 && i > 0 && v[i - 1] != '.';
}

bool isUtcTimestamp(std::string_view t) {
  static constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:ddZ";
  if (t.size() != kShape.size()) return false;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (kShape[i] == 'd' ? (t[i] < '0' || t[i] > '9') : t[i] != kShape[i]) return false;
  return true;
}

}  // namespace migrate::sarif
