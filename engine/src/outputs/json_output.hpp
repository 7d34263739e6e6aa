#pragma once
/// Writing the run's JSON outputs (findings.json, findings.sarif) and other result files: pretty
/// JSON nested at any depth of a hand-streamed document, and files that a reader never sees half
/// written.

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "migrate/engine/result.hpp"

namespace migrate::outputs {

/// `value` as pretty JSON whose lines after the first are indented by `indent` more spaces;
/// invalid UTF-8 (a finding's `api` text from a Latin-1 source) is replaced, never fatal.
void writeIndented(std::ostream& out, const nlohmann::ordered_json& value, const std::string& indent);

/// Writes each member of `object` as a line `<indent>"key": value,` (each line after a newline):
/// the head of an object whose remaining members are streamed after it.
void writeMembers(std::ostream& out, const nlohmann::ordered_json& object, const std::string& indent);

/// Appends `text` as a JSON string exactly as nlohmann's dump (no ASCII escaping, invalid UTF-8
/// replaced) writes it: printable ASCII is copied as is, anything else goes through the library.
void appendJsonString(std::string& out, std::string_view text);

/// Writes `file` through `file` + ".tmp" and a rename; the temporary file is removed when
/// writing fails (disk full), and an earlier `file` is then left as it was.
Status writeFileAtomically(const std::filesystem::path& file,
                           const std::function<void(std::ostream&)>& write);

}  // namespace migrate::outputs
