// FieldArray's protocols (python/field_array.hpp); the DLPack structs are python/dlpack.hpp.
#include "python/field_array.hpp"

#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/backend.hpp"
#include "python/dlpack.hpp"
#include "python/errors.hpp"
#include "solver/simulation.hpp"

namespace py = pybind11;

namespace eddy::python {

namespace {

std::string backend_name() { return backend::name(); }

/// What a consumer holds while it uses an exported array: the DLPack struct, its shape and strides, and shares of
/// the memory's owners.
struct Export {
  std::vector<std::int64_t> shape, strides;
  std::shared_ptr<Session> session;
  std::shared_ptr<void> keep;
  dlpack::ManagedTensor legacy{};
  dlpack::ManagedTensorVersioned versioned{};
};

void delete_legacy(dlpack::ManagedTensor* self) { delete static_cast<Export*>(self->manager_ctx); }
void delete_versioned(dlpack::ManagedTensorVersioned* self) { delete static_cast<Export*>(self->manager_ctx); }

/// A capsule nobody consumed still owns its tensor.
extern "C" void release_unconsumed(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, dlpack::kCapsuleName)) {
    auto* tensor = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, dlpack::kCapsuleName));
    if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);
  } else if (PyCapsule_IsValid(capsule, dlpack::kVersionedCapsuleName)) {
    auto* tensor =
        static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, dlpack::kVersionedCapsuleName));
    if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);
  }
}

dlpack::Device device_of() {
  const std::string name = backend_name();
  if (name == "cuda") return {dlpack::kCUDA, backend::current_device()};
  if (name == "hip") return {dlpack::kROCM, backend::current_device()};
  return {dlpack::kCPU, 0};
}

/// The consumer's stream of __dlpack__(stream=...) as a runtime handle; `none`: no ordering asked for (-1).
void* consumer_stream(const py::object& stream, bool& none) {
  none = false;
  const std::string name = backend_name();
  if (name == "cpu") {
    if (!stream.is_none()) throw py::buffer_error("__dlpack__: the cpu backend takes stream=None only");
    none = true;
    return nullptr;
  }
  if (stream.is_none()) return nullptr;  // the default stream (CUDA's legacy one)
  const long long value = stream.cast<long long>();
  if (value == -1) {
    none = true;
    return nullptr;
  }
  if (name == "cuda") {
    if (value == 0) {
      throw py::buffer_error("__dlpack__: stream 0 is ambiguous for CUDA; use 1 (legacy default) or 2 (per-thread)");
    }
    return reinterpret_cast<void*>(static_cast<std::intptr_t>(value));  // 1, 2: cudaStreamLegacy, PerThread
  }
  if (value == 1 || value == 2) throw py::buffer_error("__dlpack__: streams 1 and 2 are not defined for ROCm");
  return reinterpret_cast<void*>(static_cast<std::intptr_t>(value));  // 0: the default stream
}

}  // namespace

FieldArray::FieldArray(std::string name, DeviceArray array, std::shared_ptr<Session> session,
                       std::shared_ptr<void> keep)
    : name_(std::move(name)), array_(std::move(array)), session_(std::move(session)), keep_(std::move(keep)) {}

void FieldArray::check() const {
  if (session_->closed()) {
    throw ClosedError(name_ + ": the simulation is closed (Simulation.close()): its arrays are no longer valid");
  }
}

py::tuple FieldArray::shape() const {
  py::tuple t(array_.shape.size());
  for (std::size_t k = 0; k < array_.shape.size(); ++k) t[k] = array_.shape[k];
  return t;
}

py::tuple FieldArray::strides() const {
  py::tuple t(array_.strides.size());
  for (std::size_t k = 0; k < array_.strides.size(); ++k) t[k] = array_.strides[k] * array_.bytes;
  return t;
}

std::string FieldArray::typestr() const {
  if (array_.kind == 'u') return "|u" + std::to_string(array_.bytes);
  return "<f" + std::to_string(array_.bytes);
}

std::uintptr_t FieldArray::data_ptr() const {
  check();
  return reinterpret_cast<std::uintptr_t>(array_.data);
}

std::string FieldArray::device() const {
  const std::string name = backend_name();
  return name == "cpu" ? name : name + ":" + std::to_string(backend::current_device());
}

py::dict FieldArray::array_interface() const {
  if (backend::is_gpu()) {
    throw py::attribute_error("__array_interface__: " + name_ + " is in GPU memory (" + device() +
                              "): use __cuda_array_interface__ or __dlpack__ (CuPy, numba, PyTorch), or to_numpy()");
  }
  check();
  py::dict d;
  d["shape"] = shape();
  d["typestr"] = typestr();
  d["data"] = py::make_tuple(data_ptr(), !array_.writable);
  d["strides"] = strides();
  d["version"] = 3;
  return d;
}

py::dict FieldArray::cuda_array_interface() const {
  if (backend_name() != "cuda") {
    throw py::attribute_error("__cuda_array_interface__: this is the " + backend_name() +
                              " build of eddy; use __dlpack__" +
                              std::string(backend::is_gpu() ? "" : " or __array_interface__ (NumPy)"));
  }
  check();
  py::dict d;
  d["shape"] = shape();
  d["typestr"] = typestr();
  d["data"] = py::make_tuple(data_ptr(), !array_.writable);
  d["strides"] = strides();
  d["version"] = 3;
  // Consumers synchronise with the stream the simulation queues its work on before they use the data.
  d["stream"] = reinterpret_cast<std::uintptr_t>(session_->run().simulation().stream_handle());
  return d;
}

py::tuple FieldArray::dlpack_device() const {
  const dlpack::Device d = device_of();
  return py::make_tuple(int(d.device_type), int(d.device_id));
}

py::capsule FieldArray::dlpack(const py::object& stream, const py::object& max_version, const py::object& dl_device,
                               const py::object& copy) const {
  check();
  const dlpack::Device where = device_of();
  if (!dl_device.is_none()) {
    const auto asked = dl_device.cast<std::pair<int, int>>();
    if (asked.first != where.device_type || asked.second != where.device_id) {
      throw py::buffer_error("__dlpack__: " + name_ + " lives on " + device() + "; eddy does not copy it elsewhere");
    }
  }
  if (!copy.is_none() && copy.cast<bool>()) {
    throw py::buffer_error("__dlpack__: eddy hands out its own memory only (copy=True is not supported)");
  }
  bool no_ordering = false;
  void* waiting = consumer_stream(stream, no_ordering);
  if (!no_ordering) session_->run().simulation().order_with_stream(waiting, false, true);

  bool versioned = false;
  if (!max_version.is_none()) versioned = max_version.cast<std::pair<int, int>>().first >= int(dlpack::kVersion.major);

  auto owned = std::make_unique<Export>();
  Export& e = *owned;
  e.shape = array_.shape;
  e.strides = array_.strides;
  e.session = session_;
  e.keep = keep_;
  dlpack::Tensor t{};
  t.data = array_.data;
  t.device = where;
  t.ndim = std::int32_t(e.shape.size());
  t.dtype = dlpack::DataType{array_.kind == 'u' ? dlpack::kUInt : dlpack::kFloat, std::uint8_t(8 * array_.bytes), 1};
  t.shape = e.shape.data();
  t.strides = e.strides.data();
  t.byte_offset = 0;
  PyObject* capsule = nullptr;
  if (versioned) {
    e.versioned.version = dlpack::kVersion;
    e.versioned.manager_ctx = &e;
    e.versioned.deleter = delete_versioned;
    e.versioned.flags = array_.writable ? 0 : dlpack::kFlagReadOnly;
    e.versioned.dl_tensor = t;
    capsule = PyCapsule_New(&e.versioned, dlpack::kVersionedCapsuleName, release_unconsumed);
  } else {
    e.legacy.dl_tensor = t;
    e.legacy.manager_ctx = &e;
    e.legacy.deleter = delete_legacy;
    capsule = PyCapsule_New(&e.legacy, dlpack::kCapsuleName, release_unconsumed);
  }
  if (capsule == nullptr) throw py::error_already_set();
  owned.release();  // the capsule, then its consumer, owns it
  return py::reinterpret_steal<py::capsule>(capsule);
}

std::int64_t FieldArray::span_bytes() const {
  std::int64_t last = 0;
  for (std::size_t k = 0; k < array_.shape.size(); ++k) {
    if (array_.shape[k] == 0) return 0;
    last += (array_.shape[k] - 1) * array_.strides[k];
  }
  return (last + 1) * array_.bytes;
}

py::array FieldArray::to_numpy() const {
  check();
  std::vector<unsigned char> host(std::size_t(std::max<std::int64_t>(span_bytes(), 1)));
  backend::synchronize();
  if (span_bytes() > 0) backend::copy_to_host(host.data(), array_.data, std::size_t(span_bytes()));
  std::vector<py::ssize_t> shape(array_.shape.begin(), array_.shape.end()), strides;
  for (std::int64_t s : array_.strides) strides.push_back(py::ssize_t(s * array_.bytes));
  // py::array copies from the pointer when given no base; ascontiguousarray then drops the block's gaps.
  const py::array strided(py::dtype(typestr()), shape, strides, host.data());
  return py::module_::import("numpy").attr("ascontiguousarray")(strided).cast<py::array>();
}

std::string FieldArray::repr() const {
  std::string dims;
  for (std::size_t k = 0; k < array_.shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(array_.shape[k]);
  return "<eddy.FieldArray " + name_ + " " + typestr() + " (" + dims + ") on " + device() +
         (array_.writable ? "" : ", read-only") + (session_->closed() ? ", closed" : "") + ">";
}

}  // namespace eddy::python
