#pragma once
/* A tree-sitter language whose parse table has no compressed ("small") states. */

#include <tree_sitter/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A copy of `language` with every parse state in the dense table: the runtime then looks an
 * action up by index instead of searching the state's compressed symbol groups (about a tenth of a
 * Python parse's time went to that search). The copy parses to the same trees (the table holds the
 * same values; tests/parse compares the trees). It is allocated once and never freed; hold it for
 * the process's life. Returns `language` itself when the copy cannot be made (an ABI this file does
 * not know, no memory) or is not needed (no compressed states). */
const TSLanguage* migrate_dense_parse_table(const TSLanguage* language);

#ifdef __cplusplus
}
#endif
