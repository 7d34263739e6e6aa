// Fake Ascend C kernel header for the custom_ops emit tests (not CANN's): declares, with CANN's
// names, just what the generated kernel scaffolds use, so g++ can check them on a machine without
// the toolkit. GET_TILING_DATA needs FAKE_TILING_TYPE (the tiling struct) defined by the test.
#pragma once

#include <cstdint>

#define __aicore__
#define __global__
#define __gm__
using GM_ADDR = std::uint8_t*;

namespace AscendC {

enum class QuePosition { VECIN, VECOUT };

template <typename T>
class LocalTensor {};

template <typename T>
class GlobalTensor {
 public:
  void SetGlobalBuffer(T* buffer, std::uint64_t size);
  GlobalTensor<T> operator[](std::uint64_t offset) const;
};

template <QuePosition Position, std::int32_t Depth>
class TQue {
 public:
  template <typename T>
  LocalTensor<T> AllocTensor();
  template <typename T>
  LocalTensor<T> DeQue();
  template <typename T>
  void EnQue(const LocalTensor<T>& tensor);
  template <typename T>
  void FreeTensor(const LocalTensor<T>& tensor);
};

class TPipe {
 public:
  template <typename Queue>
  void InitBuffer(Queue& queue, std::int32_t count, std::uint32_t bytes);
};

template <typename T>
void DataCopy(const LocalTensor<T>& to, const GlobalTensor<T>& from, std::uint32_t count);
template <typename T>
void DataCopy(const GlobalTensor<T>& to, const LocalTensor<T>& from, std::uint32_t count);

std::int64_t GetBlockNum();
std::int64_t GetBlockIdx();

}  // namespace AscendC

#define GET_TILING_DATA(name, pointer) \
  FAKE_TILING_TYPE name{};             \
  (void)(pointer)
