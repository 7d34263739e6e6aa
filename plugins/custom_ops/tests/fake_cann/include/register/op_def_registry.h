// Fake operator-registration API for the custom_ops emit tests (not CANN's): the types and calls the
// generated host scaffolds use, with CANN's names, so g++ can check them without the toolkit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ge {

enum graphStatus { GRAPH_SUCCESS, GRAPH_FAILED };
enum DataType {
  DT_FLOAT16,
  DT_BF16,
  DT_FLOAT,
  DT_INT8,
  DT_UINT8,
  DT_INT16,
  DT_UINT16,
  DT_INT32,
  DT_UINT32,
  DT_INT64,
  DT_UINT64,
  DT_BOOL
};
enum Format { FORMAT_ND };

}  // namespace ge

namespace gert {

class Shape {
 public:
  std::int64_t GetShapeSize() const;
};

class StorageShape {
 public:
  const Shape& GetStorageShape() const;
};

class RuntimeAttrs {
 public:
  template <typename T>
  const T* GetAttrPointer(std::size_t index) const;
};

class TilingData {
 public:
  void* GetData();
  std::size_t GetCapacity() const;
  void SetDataSize(std::size_t size);
};

class TilingContext {
 public:
  const StorageShape* GetInputShape(std::size_t index) const;
  const StorageShape* GetOutputShape(std::size_t index) const;
  const void* GetPlatformInfo() const;
  const RuntimeAttrs* GetAttrs() const;
  TilingData* GetRawTilingData();
  std::size_t* GetWorkspaceSizes(std::size_t count);
  ge::graphStatus SetBlockDim(std::uint32_t dim);
};

class InferShapeContext {
 public:
  const Shape* GetInputShape(std::size_t index) const;
  Shape* GetOutputShape(std::size_t index);
};

class InferDataTypeContext {
 public:
  ge::DataType GetInputDataType(std::size_t index) const;
  ge::graphStatus SetOutputDataType(std::size_t index, ge::DataType type);
};

}  // namespace gert

namespace ops {

enum Option { REQUIRED, OPTIONAL };

class OpParamDef {
 public:
  OpParamDef& ParamType(Option option);
  OpParamDef& DataType(std::vector<ge::DataType> types);
  OpParamDef& Format(std::vector<ge::Format> formats);
  OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats);
};

class OpAttrDef {
 public:
  OpAttrDef& AttrType(Option option);
  OpAttrDef& Float();
  OpAttrDef& Int();
  OpAttrDef& Bool();
};

class OpAICoreDef {
 public:
  OpAICoreDef& SetTiling(ge::graphStatus (*tiling)(gert::TilingContext*));
  OpAICoreDef& AddConfig(const char* soc);
};

class OpDef {
 public:
  explicit OpDef(const char* type);
  OpParamDef& Input(const char* name);
  OpParamDef& Output(const char* name);
  OpAttrDef& Attr(const char* name);
  OpDef& SetInferShape(ge::graphStatus (*infer)(gert::InferShapeContext*));
  OpDef& SetInferDataType(ge::graphStatus (*infer)(gert::InferDataTypeContext*));
  OpAICoreDef& AICore();
};

}  // namespace ops

#define OP_ADD(type) static ops::type g_op_##type(#type)
