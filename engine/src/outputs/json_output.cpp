#include "outputs/json_output.hpp"

#include <algorithm>
#include <fstream>
#include <vector>

namespace migrate::outputs {

void writeIndented(std::ostream& out, const nlohmann::ordered_json& value, const std::string& indent) {
  const std::string text = value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  // Whole lines at a time: findings.json has tens of thousands of them.
  std::size_t from = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    out.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from));
    out << indent;
    from = nl + 1;
  }
  out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

void writeMembers(std::ostream& out, const nlohmann::ordered_json& object, const std::string& indent) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    out << "\n" << indent << nlohmann::ordered_json(it.key()).dump() << ": ";
    writeIndented(out, it.value(), indent);
    out << ",";
  }
}

void appendJsonString(std::string& out, std::string_view text) {
  // Nearly every string of a findings.json (rule ids, paths, messages) is printable ASCII: those
  // need no UTF-8 check, and only quotes and backslashes are escaped (as the library escapes them).
  const bool printable_ascii = std::all_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x80;
  });
  if (!printable_ascii) {
    out += nlohmann::ordered_json(std::string(text))
               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return;
  }
  out += '"';
  std::size_t from = 0;  // the start of what is not appended yet
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '"' || text[i] == '\\') {
      out.append(text.data() + from, i - from);
      out += '\\';
      from = i;
    }
  out.append(text.data() + from, text.size() - from);
  out += '"';
}

Status writeFileAtomically(const std::filesystem::path& file,
                           const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path tmp = file.string() + ".tmp";
  {
    // A buffer of 1 MiB instead of the stream's 8 KiB: findings.json of a large run is tens of MB,
    // and each buffer's worth is one system call.
    std::vector<char> buffer(std::size_t{1} << 20);
    std::ofstream out;
    out.rdbuf()->pubsetbuf(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    out.open(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return makeError("cannot write " + tmp.string() + ": check that the directory exists and is writable");
    write(out);
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return makeError("writing " + tmp.string() + " failed (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) return makeError("cannot move " + tmp.string() + " to " + file.string() + ": " + ec.message());
  return Ok{};
}

}  // namespace migrate::outputs
