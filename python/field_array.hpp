// FieldArray: a zero-copy view of one of a simulation's device arrays (solver/device_arrays.hpp DeviceArray), with
// the array protocols of this build's backend, so NumPy, CuPy, numba, PyTorch and JAX take it without a copy:
//   cpu:  __array_interface__ (version 3) and __dlpack__ with kDLCPU;
//   cuda: __cuda_array_interface__ (version 3, with the simulation's stream) and __dlpack__ with kDLCUDA;
//   hip:  __dlpack__ with kDLROCM.
// A protocol the build does not have raises AttributeError, so consumers that test for it (hasattr) pass on.
// Every view shares ownership of its Session (python/session.hpp): what it points at stays allocated while any view,
// or any array a consumer made from one, lives; after Simulation.close() the view raises ValueError instead of
// handing out its memory.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>

#include "python/session.hpp"
#include "solver/device_arrays.hpp"

namespace eddy::python {

class FieldArray {
 public:
  /// `keep`: memory the view points into besides the Session's (a read-out buffer), owned with it.
  FieldArray(std::string name, DeviceArray array, std::shared_ptr<Session> session, std::shared_ptr<void> keep = {});

  const std::string& name() const { return name_; }
  pybind11::tuple shape() const;
  /// Strides in bytes (NumPy's convention; DLPack's are in elements).
  pybind11::tuple strides() const;
  /// NumPy's type string: "<f2", "<f4", "<f8" or "|u1".
  std::string typestr() const;
  std::uintptr_t data_ptr() const;
  bool writable() const { return array_.writable; }
  /// "cpu", "cuda:<id>" or "hip:<id>".
  std::string device() const;

  pybind11::dict array_interface() const;
  pybind11::dict cuda_array_interface() const;
  /// The DLPack capsule (python/dlpack.hpp). `stream` (GPU builds): the consumer's stream, which is made to wait for
  /// the simulation's work (None: the default stream; -1: no ordering); cpu: None only. A versioned capsule when
  /// `max_version` >= (1, 0). `dl_device` other than __dlpack_device__() and `copy` = True raise BufferError.
  pybind11::capsule dlpack(const pybind11::object& stream, const pybind11::object& max_version,
                           const pybind11::object& dl_device, const pybind11::object& copy) const;
  pybind11::tuple dlpack_device() const;
  /// A NumPy copy on the host (any backend), after the device work queued so far.
  pybind11::array to_numpy() const;
  std::string repr() const;

 private:
  /// Raises ValueError (ClosedError) once the simulation is closed.
  void check() const;
  std::int64_t span_bytes() const;

  std::string name_;
  DeviceArray array_;
  std::shared_ptr<Session> session_;
  std::shared_ptr<void> keep_;
};

}  // namespace eddy::python
