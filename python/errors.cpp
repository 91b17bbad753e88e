// The Python exception classes made from solver/errors.hpp's list (python/errors.hpp).
#include "python/errors.hpp"

#include <map>
#include <new>
#include <string>

#include "solver/errors.hpp"

namespace py = pybind11;

namespace eddy::python {

namespace {

/// The classes by C++ type name, kept for the translator (the module holds the references too).
std::map<std::string, PyObject*>& classes() {
  static std::map<std::string, PyObject*> by_name;
  return by_name;
}

PyObject* make_class(py::module_& module, const std::string& name, const char* doc, PyObject* base, int exit_code) {
  const std::string qualified = "eddy." + name;
  py::dict attributes;
  attributes["exit_code"] = exit_code;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, base, attributes.ptr());
  if (cls == nullptr) throw py::error_already_set();
  module.add_object(name.c_str(), py::handle(cls));  // the module keeps a reference for its lifetime
  return cls;
}

}  // namespace

void register_errors(py::module_& module) {
  PyObject* base = make_class(module, "Error",
                              "Base class of eddy's errors; exit_code is the code `eddy run` exits with for the same "
                              "error.",
                              PyExc_Exception, kExitFailure);
  classes()["std::runtime_error"] = base;
  // Parents before children: the list is ordered most derived first, so go through it until every class exists.
  bool added = true;
  while (added) {
    added = false;
    for (const ErrorType& type : kErrorTypes) {
      if (classes().count(type.name) != 0 || classes().count(type.parent) == 0) continue;
      classes()[type.name] = make_class(module, type.name, type.doc, classes()[type.parent], type.exit_code);
      added = true;
    }
  }
  for (const ErrorType& type : kErrorTypes) {
    if (classes().count(type.name) == 0) throw std::logic_error(std::string("error type without parent: ") + type.name);
  }

  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const ClosedError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(classes()["OutOfMemoryError"], "out of host memory; use a smaller domain or more ranks");
    } catch (const std::exception& e) {
      const ErrorType* type = error_type_of(e);
      if (type == nullptr) throw;  // pybind11's own translation (RuntimeError, ValueError, ...)
      PyErr_SetString(classes()[type->name], e.what());
    }
  });
}

}  // namespace eddy::python
