#include "emit/patch_writer.hpp"

#include <git2.h>

namespace migrate::emit {

Status PatchWriter::add(const std::string& path, const std::optional<std::string>& before,
                        const std::string& after, bool executable) {
  if (before && *before == after) return Ok{};
  git_diff_options options = GIT_DIFF_OPTIONS_INIT;
  options.context_lines = 3;
  options.flags = GIT_DIFF_SHOW_BINARY;
  git_patch* patch = nullptr;
  const int rc =
      git_patch_from_buffers(&patch, before ? before->data() : nullptr, before ? before->size() : 0,
                             path.c_str(), after.data(), after.size(), path.c_str(), &options);
  if (rc != 0) return makeError("cannot make the patch of " + path + ": " + git::lastError());
  git_buf buf = GIT_BUF_INIT;
  const int printed = git_patch_to_buf(&buf, patch);
  git_patch_free(patch);
  if (printed != 0) return makeError("cannot print the patch of " + path + ": " + git::lastError());
  std::string diff(buf.ptr, buf.size);
  git_buf_dispose(&buf);
  if (executable) {  // buffers carry no mode: libgit2 writes 100644 in the header lines
    const std::size_t header_end = diff.find("\n--- ");
    for (std::size_t at = diff.find("100644"); at != std::string::npos && at < header_end;
         at = diff.find("100644", at + 6))
      diff.replace(at, 6, "100755");
  }
  text_ += diff;
  ++files_;
  return Ok{};
}

}  // namespace migrate::emit
