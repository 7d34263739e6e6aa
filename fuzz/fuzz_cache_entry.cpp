// The analysis cache's values, as a run reads them back from analysis.db (which other runs, other
// versions or a damaged disk may have written): the engine's per-file and repository-pass entries,
// and custom_ops' per-file memo of its extension glue pass. Each must refuse what it cannot read;
// a memo that decodes must encode back to one that decodes to the same.

#include <cstdlib>

#include "analysis_cache/entries.hpp"
#include "fuzz_support.hpp"
#include "glue_summary.hpp"

namespace {

bool sameBlocks(const std::vector<custom_ops::glue::Block>& a,
                const std::vector<custom_ops::glue::Block>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].line != b[i].line || a[i].name_begin != b[i].name_begin ||
        a[i].body_end != b[i].body_end || a[i].uses.calls != b[i].uses.calls ||
        a[i].uses.attributes != b[i].uses.attributes || a[i].uses.launch != b[i].uses.launch)
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(migrate::fuzz::text(data, size));
  std::string why;
  (void)migrate::cache::decode(bytes, "pkg/module.py", why);
  (void)migrate::cache::decodeRepository(bytes, why);

  using namespace custom_ops::glue;
  Scan scan;
  PyFile file;
  bool summarised = false;
  if (!decodeMemo(bytes, scan, file, summarised)) return 0;
  Scan again_scan;
  PyFile again;
  bool again_summarised = false;
  if (!decodeMemo(encodeMemo(scan, summarised ? &file : nullptr), again_scan, again, again_summarised) ||
      again_scan.declared != scan.declared || again_scan.may_import != scan.may_import ||
      again_summarised != summarised || again.autograd_import != file.autograd_import ||
      again.imports.size() != file.imports.size() || !sameBlocks(again.functions, file.functions) ||
      !sameBlocks(again.classes, file.classes))
    std::abort();
  for (std::size_t i = 0; i < file.imports.size(); ++i) {
    const Import &a = file.imports[i], &b = again.imports[i];
    if (a.line != b.line || a.module != b.module || a.name != b.name || a.bound != b.bound ||
        a.star != b.star)
      std::abort();
  }
  return 0;
}
