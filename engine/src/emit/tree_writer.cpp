#include "emit/tree_writer.hpp"

#include <fstream>
#include <vector>

namespace migrate::emit {
namespace fs = std::filesystem;

namespace {

/// Creates the directories above `target`; a file standing where one of them must go (the
/// repository replaced a file by a directory) is removed first.
Status prepareParent(const fs::path& target) {
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (!ec) return Ok{};
  for (fs::path dir = target.parent_path(); !dir.empty() && dir != dir.parent_path(); dir = dir.parent_path())
    if (fs::is_symlink(dir, ec) || (fs::exists(dir, ec) && !fs::is_directory(dir, ec))) {
      fs::remove(dir, ec);
      break;
    }
  fs::create_directories(target.parent_path(), ec);
  if (ec) return makeError("cannot create " + target.parent_path().string() + ": " + ec.message());
  return Ok{};
}

/// Makes room for a new `target`: whatever is there goes (never written through: it may be a
/// hard link shared with an earlier output directory).
Status clear(const fs::path& target) {
  if (auto st = prepareParent(target); !st) return st;
  std::error_code ec;
  fs::remove_all(target, ec);
  if (ec) return makeError("cannot replace " + target.string() + ": " + ec.message());
  return Ok{};
}

}  // namespace

PreviousEmit previousEmit(const fs::path& dir, const std::string& engine) {
  PreviousEmit previous;
  previous.dir = dir;
  std::string why;
  previous.state = readEmitState(dir, why);
  if (!previous.state || previous.state->engine != engine) return previous;
  std::ifstream in(dir / "npu_migration.patch", std::ios::binary);
  std::string patch((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.good() || in.eof())
    if (contentDigest(patch) == previous.state->patch_digest) previous.patch = std::move(patch);
  return previous;
}

TreeWriter::TreeWriter(fs::path adapted, const PreviousEmit& previous, std::string engine)
    : adapted_(std::move(adapted)), previous_(previous), previous_adapted_(previous.dir / "adapted") {
  std::error_code ec;
  in_place_ =
      previous.state && fs::weakly_canonical(adapted_, ec) == fs::weakly_canonical(previous_adapted_, ec);
  state_.engine = std::move(engine);
}

const TreeFile* TreeWriter::previousOf(const std::string& path) const {
  if (!previous_.state) return nullptr;
  const auto found = previous_.state->files.find(path);
  return found == previous_.state->files.end() ? nullptr : &found->second;
}

bool TreeWriter::reuse(const std::string& path, const std::string& digest, fs::perms perms,
                       const std::string& source_digest) {
  const TreeFile* before = previousOf(path);
  if (!before || !before->link.empty() || before->written_digest != digest ||
      before->perms != static_cast<std::uint32_t>(perms & fs::perms::mask))
    return false;
  const fs::path from = previous_adapted_ / path;
  if (!untouched(from, *before)) return false;
  TreeFile entry = *before;
  entry.source_digest = source_digest;
  entry.patch_begin = entry.patch_end = 0;
  if (in_place_) {
    state_.files.insert_or_assign(path, std::move(entry));
  } else {
    const fs::path target = adapted_ / path;
    if (!clear(target)) return false;
    std::error_code ec;
    fs::create_hard_link(from, target, ec);
    if (ec) {  // another file system, or links not allowed: a copy
      ec.clear();
      fs::copy_file(from, target, ec);
      if (ec) return false;
    }
    if (!record(path, std::move(entry))) return false;  // the new link's (or copy's) stat
  }
  ++reused_;
  return true;
}

Status TreeWriter::record(const std::string& path, TreeFile entry) {
  const auto now = statOf(adapted_ / path);
  if (!now) return makeError("cannot read back " + (adapted_ / path).string());
  entry.size = now->size;
  entry.mtime_ns = now->mtime_ns;
  entry.perms = now->perms;
  state_.files.insert_or_assign(path, std::move(entry));
  return Ok{};
}

Status TreeWriter::copy(const std::string& path, const fs::path& source, const std::string& digest,
                        fs::perms perms) {
  if (reuse(path, digest, perms, digest)) return Ok{};
  const fs::path target = adapted_ / path;
  if (auto st = clear(target); !st) return st;
  std::error_code ec;
  fs::copy_file(source, target, ec);
  if (ec) return makeError("cannot copy " + path + " into " + adapted_.string() + ": " + ec.message());
  TreeFile entry;
  entry.source_digest = digest;
  entry.written_digest = digest;
  return record(path, std::move(entry));
}

Status TreeWriter::write(const std::string& path, const std::string& text, const std::string& source_digest,
                         std::optional<fs::perms> perms) {
  const std::string digest = contentDigest(text);
  if (perms && reuse(path, digest, *perms, source_digest)) return Ok{};
  const fs::path target = adapted_ / path;
  if (auto st = clear(target); !st) return st;
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return makeError("cannot write " + target.string());
  std::error_code ec;
  if (perms) fs::permissions(target, *perms, ec);
  TreeFile entry;
  entry.source_digest = source_digest;
  entry.written_digest = digest;
  return record(path, std::move(entry));
}

Status TreeWriter::link(const std::string& path, const std::string& target) {
  const fs::path at = adapted_ / path;
  std::error_code ec;
  const TreeFile* before = previousOf(path);
  if (in_place_ && before && before->link == target && fs::is_symlink(at, ec) &&
      fs::read_symlink(at, ec).string() == target) {
    state_.files.insert_or_assign(path, *before);
    ++reused_;
    return Ok{};
  }
  if (auto st = clear(at); !st) return st;
  fs::create_symlink(target, at, ec);
  if (ec) return makeError("cannot create the symbolic link " + at.string() + ": " + ec.message());
  TreeFile entry;
  entry.link = target;
  return record(path, std::move(entry));
}

Status TreeWriter::addPatch(PatchWriter& patch, const std::string& path,
                            const std::optional<std::string>& before, const std::string& after,
                            bool executable) {
  TreeFile& entry = state_.files.at(path);
  const std::string before_digest = before ? contentDigest(*before) : std::string();
  const TreeFile* earlier = previousOf(path);
  const std::size_t begin = patch.text().size();
  const bool reusable =
      earlier && !previous_.patch.empty() && earlier->patch_begin < earlier->patch_end &&
      earlier->patch_end <= previous_.patch.size() && earlier->source_digest == before_digest &&
      earlier->written_digest == entry.written_digest && ((earlier->perms & 0100) != 0) == executable;
  if (reusable) {
    patch.append(std::string_view(previous_.patch)
                     .substr(earlier->patch_begin, earlier->patch_end - earlier->patch_begin));
  } else if (auto st = patch.add(path, before, after, executable); !st) {
    return st;
  }
  entry.source_digest = before_digest;
  entry.patch_begin = begin;
  entry.patch_end = patch.text().size();
  return Ok{};
}

Status TreeWriter::removeOthers() {
  std::error_code ec;
  std::vector<fs::path> dirs;
  std::vector<fs::path> others;
  for (auto it = fs::recursive_directory_iterator(adapted_, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const bool link = it->is_symlink(ec);
    if (!link && it->is_directory(ec)) {
      dirs.push_back(it->path());
      continue;
    }
    if (!state_.files.count(it->path().lexically_relative(adapted_).generic_string()))
      others.push_back(it->path());
  }
  if (ec) return makeError("cannot list " + adapted_.string() + ": " + ec.message());
  for (const fs::path& p : others) {
    fs::remove(p, ec);
    if (ec) return makeError("cannot remove " + p.string() + ": " + ec.message());
  }
  for (auto d = dirs.rbegin(); d != dirs.rend(); ++d)
    if (fs::is_empty(*d, ec)) fs::remove(*d, ec);
  return Ok{};
}

EmitState TreeWriter::state(const std::string& patch_text) const {
  EmitState state = state_;
  state.patch_digest = contentDigest(patch_text);
  return state;
}

}  // namespace migrate::emit
