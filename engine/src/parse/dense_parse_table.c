/* Reads the runtime's own definition of TSLanguage (its src/parser.h, not the public API): the
 * parse table's fields are not public. It is built against the runtime the engine links, the one
 * fetched by cmake/MigrateGrammars.cmake, whose layout is checked by its ABI version below. */
#include "dense_parse_table.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

/* The layouts this file knows: ABI 14 ends where ABI 15's fields (`name` onwards) begin. */
enum { kOldestAbi = 14, kNewestAbi = 15 };

static void expandSmallState(const TSLanguage* language, uint32_t state, uint16_t* row, unsigned char* seen) {
  const uint32_t symbols = language->symbol_count;
  const uint16_t* data =
      &language->small_parse_table[language->small_parse_table_map[state - language->large_state_count]];
  memset(seen, 0, symbols);
  const uint16_t groups = *data++;
  for (uint16_t g = 0; g < groups; ++g) {
    const uint16_t value = *data++;
    const uint16_t count = *data++;
    for (uint16_t k = 0; k < count; ++k) {
      const uint16_t symbol = *data++;
      /* The runtime's search returns a symbol's first value: the first one is kept. */
      if (symbol < symbols && !seen[symbol]) {
        seen[symbol] = 1;
        row[symbol] = value;
      }
    }
  }
}

const TSLanguage* migrate_dense_parse_table(const TSLanguage* language) {
  if (!language || language->abi_version < kOldestAbi || language->abi_version > kNewestAbi ||
      language->large_state_count >= language->state_count)
    return language;
  const size_t symbols = language->symbol_count;
  uint16_t* table = calloc((size_t)language->state_count * symbols, sizeof *table);
  TSLanguage* copy = calloc(1, sizeof *copy);
  unsigned char* seen = malloc(symbols ? symbols : 1);
  if (!table || !copy || !seen) {
    free(table);
    free(copy);
    free(seen);
    return language;
  }
  /* An ABI 14 language is a shorter struct: copy what it has, the ABI 15 fields stay zero (the
   * runtime reads them only from ABI 15 languages). */
  memcpy(copy, language, language->abi_version >= 15 ? sizeof *copy : offsetof(TSLanguage, name));
  memcpy(table, language->parse_table, (size_t)language->large_state_count * symbols * sizeof *table);
  for (uint32_t state = language->large_state_count; state < language->state_count; ++state)
    expandSmallState(language, state, table + (size_t)state * symbols, seen);
  free(seen);
  copy->parse_table = table;
  copy->large_state_count = copy->state_count;
  return copy;
}
