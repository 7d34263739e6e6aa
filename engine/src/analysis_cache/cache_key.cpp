#include "analysis_cache/cache_key.hpp"

#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include "migrate/sdk/version.hpp"
#include "rules/rule_pack.hpp"

namespace migrate::cache {
namespace fs = std::filesystem;

namespace {

std::string hex(const unsigned char* data, std::size_t size) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < size; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 15];
  }
  return out;
}

/// The NT_GNU_BUILD_ID note of a loaded object, as hex; empty when it has none.
std::string buildIdOf(const dl_phdr_info& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* p = reinterpret_cast<const unsigned char*>(info.dlpi_addr + ph.p_vaddr);
    const unsigned char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, p, sizeof note);
      const unsigned char* name = p + sizeof note;
      const unsigned char* desc = name + ((note.n_namesz + 3) & ~3u);
      if (desc + note.n_descsz > end) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0)
        return hex(desc, note.n_descsz);
      p = desc + ((note.n_descsz + 3) & ~3u);
    }
  }
  return {};
}

struct Scan {
  std::set<fs::path> plugin_dirs;
  std::set<fs::path> active;
  std::map<std::string, std::string> builds;
};

fs::path resolvedPath(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p : c;
}

int visit(dl_phdr_info* info, std::size_t, void* data) {
  auto& scan = *static_cast<Scan*>(data);
  const std::string raw = info->dlpi_name ? info->dlpi_name : "";
  if (!raw.empty() && raw.find('/') == std::string::npos) return 0;  // the vDSO: the kernel's, not ours
  const fs::path path = raw.empty() ? fs::path("/proc/self/exe") : fs::path(raw);
  const fs::path name = resolvedPath(path);
  if (scan.plugin_dirs.count(name.parent_path()) && !scan.active.count(name)) return 0;
  std::string id = buildIdOf(*info);
  if (id.empty()) {
    struct stat st {};
    id = ::stat(name.c_str(), &st) == 0
             ? "size " + std::to_string(st.st_size) + " mtime " + std::to_string(st.st_mtim.tv_sec) + "." +
                   std::to_string(st.st_mtim.tv_nsec)
             : "unknown";
  } else {
    id = "build-id " + id;
  }
  scan.builds[raw.empty() ? std::string("(executable)") : name.string()] = id;
  return 0;
}

}  // namespace

std::string loadedBuilds(const std::vector<ActivePlugin>& plugins) {
  Scan scan;
  for (const ActivePlugin& p : plugins) {
    if (!p.loaded->library) continue;  // a rule pack: runContext names its content
    const fs::path file = resolvedPath(p.loaded->file);
    scan.active.insert(file);
    scan.plugin_dirs.insert(file.parent_path());
  }
  dl_iterate_phdr(visit, &scan);
  std::string out;
  for (const auto& [name, id] : scan.builds) out += name + " " + id + "\n";
  return out;
}

std::string runContext(const PipelineSpec& spec, const std::vector<ActivePlugin>& plugins,
                       const std::unordered_set<std::string>& project_roots) {
  // Only what the analysis reads: the plugins and their options, the inventory's settings.
  std::string settings = "include";
  for (const auto& g : spec.include) settings += " " + g;
  settings += "\nexclude";
  for (const auto& g : spec.exclude) settings += " " + g;
  settings += "\nmax_file_bytes " + std::to_string(spec.max_file_bytes) + "\n";
  for (const PluginSelection& p : spec.plugins) {
    if (!p.enabled) continue;
    settings += "plugin " + p.name + "\n";
    for (const auto& [key, value] : p.options) {
      settings += "  " + key + (value.is_list ? " [" : " = " + value.scalar);
      for (const auto& item : value.items) settings += item + ",";
      settings += value.is_list ? "]\n" : "\n";
    }
  }
  for (const ActivePlugin& p : plugins)
    if (p.loaded->pack)
      settings += "rule pack " + p.loaded->info.name + " " + p.loaded->info.version + " " +
                  p.loaded->pack->digest + "\n";
  std::vector<std::string> roots(project_roots.begin(), project_roots.end());
  std::sort(roots.begin(), roots.end());
  std::string text = std::string("migrate-pipeline ") + sdk::kSdkVersion + " cache entry " +
                     std::to_string(kEntryFormat) + "\n" + loadedBuilds(plugins) + "analysis\n" + settings +
                     "project roots";
  for (const auto& r : roots) text += " " + r;
  return text;
}

namespace {

/// XXH3-128 over length-prefixed parts (so that no two part lists hash the same bytes).
Key hashParts(std::initializer_list<std::string_view> parts) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  for (std::string_view part : parts) {
    const std::uint64_t size = part.size();
    XXH3_128bits_update(state, &size, sizeof size);
    XXH3_128bits_update(state, part.data(), part.size());
  }
  XXH128_canonical_t canonical_hash;
  XXH128_canonicalFromHash(&canonical_hash, XXH3_128bits_digest(state));
  XXH3_freeState(state);
  Key key;
  std::memcpy(key.data(), canonical_hash.digest, key.size());
  return key;
}

}  // namespace

Key fileKey(std::string_view context, std::string_view path, const Key& content_hash) {
  return hashParts(
      {"file", context, path,
       std::string_view(reinterpret_cast<const char*>(content_hash.data()), content_hash.size())});
}

Key fileKey(std::string_view context, std::string_view path, std::string_view content) {
  return fileKey(context, path, contentHash(content));
}

Key contentHash(std::string_view content) {
  return hashParts({content});
}

Key inventoryDigest(const std::vector<sdk::FileEntry>& files) {
  std::string inventory;
  for (const sdk::FileEntry& f : files)
    inventory += f.path + '\0' + std::to_string(static_cast<int>(f.language)) + '\n';
  return hashParts({inventory});
}

namespace {
std::string_view bytes(const Key& key) {
  return {reinterpret_cast<const char*>(key.data()), key.size()};
}
}  // namespace

Key repositoryKey(std::string_view context, std::string_view pass, const Key& inventory) {
  return hashParts({"repository", context, pass, bytes(inventory)});
}

Key memoKey(std::string_view context, std::string_view pass, std::string_view kind, std::string_view path,
            const Key& content_hash) {
  return hashParts({"memo", context, pass, kind, path, bytes(content_hash)});
}

}  // namespace migrate::cache
