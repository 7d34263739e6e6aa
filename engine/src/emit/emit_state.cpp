#include "emit/emit_state.hpp"

#include <sys/stat.h>
#include <xxhash.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

namespace migrate::emit {
namespace fs = std::filesystem;

namespace {

constexpr int kStateFormat = 1;

std::string hexOf(XXH128_hash_t hash) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, hash);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char b : canonical.digest) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

}  // namespace

std::string contentDigest(std::string_view bytes) {
  return hexOf(XXH3_128bits(bytes.data(), bytes.size()));
}

std::optional<std::string> fileDigest(const fs::path& file) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!in) return std::nullopt;
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state(XXH3_createState(), &XXH3_freeState);
  XXH3_128bits_reset(state.get());
  std::array<char, 1 << 16> block;
  for (std::size_t n; (n = std::fread(block.data(), 1, block.size(), in.get())) > 0;)
    XXH3_128bits_update(state.get(), block.data(), n);
  if (std::ferror(in.get())) return std::nullopt;
  return hexOf(XXH3_128bits_digest(state.get()));
}

std::optional<TreeFile> statOf(const fs::path& file) {
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0) return std::nullopt;
  TreeFile e;
  e.size = static_cast<std::uint64_t>(st.st_size);
  e.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  e.perms = static_cast<std::uint32_t>(st.st_mode & 07777);
  return e;
}

bool untouched(const fs::path& file, const TreeFile& entry) {
  const auto now = statOf(file);
  return now && now->size == entry.size && now->mtime_ns == entry.mtime_ns && now->perms == entry.perms;
}

std::optional<EmitState> readEmitState(const fs::path& dir, std::string& why) {
  std::ifstream in(dir / kEmitStateFile, std::ios::binary);
  if (!in) {
    why = "no " + std::string(kEmitStateFile);
    return std::nullopt;
  }
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  try {
    if (!doc.is_object() || doc.value("format", 0) != kStateFormat) {
      why = std::string(kEmitStateFile) + " is of another format";
      return std::nullopt;
    }
    EmitState state;
    state.engine = doc.at("engine").get<std::string>();
    state.patch_digest = doc.at("patch_digest").get<std::string>();
    for (const auto& row : doc.at("files")) {
      TreeFile f;
      f.source_digest = row.at(1).get<std::string>();
      f.written_digest = row.at(2).get<std::string>();
      f.size = row.at(3).get<std::uint64_t>();
      f.mtime_ns = row.at(4).get<std::int64_t>();
      f.perms = row.at(5).get<std::uint32_t>();
      f.link = row.at(6).get<std::string>();
      f.patch_begin = row.at(7).get<std::uint64_t>();
      f.patch_end = row.at(8).get<std::uint64_t>();
      state.files.emplace(row.at(0).get<std::string>(), std::move(f));
    }
    return state;
  } catch (const std::exception& e) {
    why = std::string(kEmitStateFile) + " is unreadable (" + e.what() + ")";
    return std::nullopt;
  }
}

Status writeEmitState(const fs::path& dir, const EmitState& state) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& [path, f] : state.files)
    files.push_back({path, f.source_digest, f.written_digest, f.size, f.mtime_ns, f.perms, f.link,
                     f.patch_begin, f.patch_end});
  const nlohmann::json doc = {{"format", kStateFormat},
                              {"engine", state.engine},
                              {"patch_digest", state.patch_digest},
                              {"files", files}};
  std::ofstream out(dir / kEmitStateFile, std::ios::binary | std::ios::trunc);
  out << doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out.close();
  if (!out) return makeError("cannot write " + (dir / kEmitStateFile).string());
  return Ok{};
}

}  // namespace migrate::emit
