// Fake tiling-data macros for the custom_ops emit tests (not CANN's): a plain struct with set_<field>
// setters, enough for g++ to check the generated host and kernel scaffolds.
#pragma once

#include <cstddef>
#include <cstdint>

#define BEGIN_TILING_DATA_DEF(name) struct name {
#define TILING_DATA_FIELD_DEF(type, field) \
  type field{};                            \
  void set_##field(type value) {           \
    field = value;                         \
  }
#define END_TILING_DATA_DEF                                   \
  void SaveToBuffer(void* data, std::size_t capacity) const { \
    (void)data;                                               \
    (void)capacity;                                           \
  }                                                           \
  std::size_t GetDataSize() const {                           \
    return sizeof(*this);                                     \
  }                                                           \
  }
#define REGISTER_TILING_DATA_CLASS(op, type) static_assert(sizeof(type) > 0, #op);
