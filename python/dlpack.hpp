// The DLPack tensor exchange ABI (https://dmlc.github.io/dlpack/latest/, versions 0.6 to 1.x), the structs and
// constants eddy's arrays hand to consumers through __dlpack__: written here from the public specification, so the
// module needs no dlpack package (python/dlpack_check.cpp compares the layout with Debian's dlpack.h where that is
// installed). Only what a producer of strided arrays needs.
//
// A producer returns a PyCapsule named "dltensor" holding a ManagedTensor (the unversioned ABI, what NumPy, CuPy and
// PyTorch take when they pass no max_version), or, when the consumer asks with max_version >= (1, 0), one named
// "dltensor_versioned" holding a ManagedTensorVersioned. A consumer renames the capsule "used_dltensor[_versioned]"
// and calls the deleter when it is done; the capsule's destructor calls it when nobody consumed the capsule.
#pragma once

#include <cstdint>

namespace eddy::python::dlpack {

/// DLDeviceType (a C enum, int-sized in the ABI).
enum DeviceType : std::int32_t { kCPU = 1, kCUDA = 2, kCUDAHost = 3, kROCM = 10 };

/// DLDevice: where the data lives; device_id 0 for host memory.
struct Device {
  std::int32_t device_type;
  std::int32_t device_id;
};

/// DLDataTypeCode.
enum TypeCode : std::uint8_t { kInt = 0, kUInt = 1, kFloat = 2 };

/// DLDataType: code, bits per lane, lanes (1 for scalars).
struct DataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

/// DLTensor: `shape` and `strides` (in elements, not bytes; null strides mean compact row-major) each hold `ndim`
/// values; the first element is at data + byte_offset.
struct Tensor {
  void* data;
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;
  std::uint64_t byte_offset;
};

/// DLManagedTensor (unversioned): the consumer calls deleter(self) when it no longer needs the data.
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

/// DLPackVersion.
struct Version {
  std::uint32_t major;
  std::uint32_t minor;
};

/// The version of the versioned ABI eddy produces.
inline constexpr Version kVersion = {1, 0};

/// DLManagedTensorVersioned (DLPack >= 1.0): `flags` says whether the consumer may write.
struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  std::uint64_t flags;
  Tensor dl_tensor;
};

/// DLPACK_FLAG_BITMASK_READ_ONLY: the consumer must not write the data.
inline constexpr std::uint64_t kFlagReadOnly = 1ull << 0;

/// Capsule names.
inline constexpr const char* kCapsuleName = "dltensor";
inline constexpr const char* kUsedCapsuleName = "used_dltensor";
inline constexpr const char* kVersionedCapsuleName = "dltensor_versioned";
inline constexpr const char* kUsedVersionedCapsuleName = "used_dltensor_versioned";

}  // namespace eddy::python::dlpack
