#pragma once
/* A tree-sitter language whose parse table has no compressed ("small") states. */

#include <tree_sitter/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A copy of `language` with every parse state in the dense table: the runtime then looks an
 * action up by index instead of searching the state's compressed symbol groups (a cold analysis
 * takes 0.90 of the time with it: bench/README.md). The copy parses to the same trees (the table
 * holds the same values; tests/unit/dense_parse_table_test.cpp compares the trees node by node).
 * Each call allocates a copy that is never freed: call it once and hold the result for the
 * process's life. Returns `language` itself when the copy cannot be made (an ABI this file does
 * not know, no memory) or is not needed (no compressed states). */
const TSLanguage* migrate_dense_parse_table(const TSLanguage* language);

#ifdef __cplusplus
}
#endif
