// Compiled only where Debian's dlpack.h (package libdlpack-dev, DLPack 0.6) is installed: the structs of
// python/dlpack.hpp, written from the specification, have the layout of the reference header's. Nothing to run:
// the build fails when they differ.
#include <dlpack/dlpack.h>

#include <cstddef>

#include "python/dlpack.hpp"

namespace eddy::python::dlpack {

static_assert(sizeof(Device) == sizeof(DLDevice) && offsetof(Device, device_id) == offsetof(DLDevice, device_id));
static_assert(int(kCPU) == int(kDLCPU) && int(kCUDA) == int(kDLCUDA) && int(kROCM) == int(kDLROCM) &&
              int(kCUDAHost) == int(kDLCUDAHost));
static_assert(int(kInt) == int(kDLInt) && int(kUInt) == int(kDLUInt) && int(kFloat) == int(kDLFloat));
static_assert(sizeof(DataType) == sizeof(DLDataType) && offsetof(DataType, bits) == offsetof(DLDataType, bits) &&
              offsetof(DataType, lanes) == offsetof(DLDataType, lanes));
static_assert(sizeof(Tensor) == sizeof(DLTensor) && offsetof(Tensor, device) == offsetof(DLTensor, device) &&
              offsetof(Tensor, ndim) == offsetof(DLTensor, ndim) &&
              offsetof(Tensor, dtype) == offsetof(DLTensor, dtype) &&
              offsetof(Tensor, shape) == offsetof(DLTensor, shape) &&
              offsetof(Tensor, strides) == offsetof(DLTensor, strides) &&
              offsetof(Tensor, byte_offset) == offsetof(DLTensor, byte_offset));
static_assert(sizeof(ManagedTensor) == sizeof(DLManagedTensor) &&
              offsetof(ManagedTensor, manager_ctx) == offsetof(DLManagedTensor, manager_ctx) &&
              offsetof(ManagedTensor, deleter) == offsetof(DLManagedTensor, deleter));

}  // namespace eddy::python::dlpack
