#include "report/fingerprints.hpp"

#include <cstdint>
#include <unordered_map>

#include "report/sarif_text.hpp"

namespace migrate::sarif {

std::vector<std::string> findingFingerprints(const std::vector<sdk::Finding>& findings) {
  std::vector<std::string> out;
  out.reserve(findings.size());
  // How often each (rule, file, api, resolved api) came before, keyed by a 64-bit digest so the
  // map stays small when every finding is distinct.
  std::unordered_map<std::uint64_t, std::uint32_t> seen;
  for (const sdk::Finding& f : findings) {
    std::string place = f.rule_id;
    for (const std::string* part : {&f.file, &f.api, &f.resolved_api}) place.append(1, '\0').append(*part);
    const std::uint32_t occurrence = seen[std::stoull(sha256Hex(place).substr(0, 16), nullptr, 16)]++;
    out.push_back(sha256Hex(place + '\0' + std::to_string(occurrence)).substr(0, 32));
  }
  return out;
}

}  // namespace migrate::sarif
