// compopt's C++ errors as Python exceptions: InvalidArgument (a ValueError: the caller passed a
// bad value, the message names it and what was expected) and CommError (a RuntimeError: a peer
// failed or a message could not be delivered). Both keep the C++ message.
#include <pybind11/pybind11.h>

#include "core/util/error.h"
#include "python/src/bindings.h"

namespace compopt::python {

void bind_errors(pybind11::module_& m) {
  static pybind11::exception<InvalidArgument> invalid(m, "InvalidArgument", PyExc_ValueError);
  static pybind11::exception<CommError> comm_error(m, "CommError", PyExc_RuntimeError);
  // pybind11's ExceptionTranslator takes the exception_ptr by value.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  pybind11::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InvalidArgument& e) {
      invalid(e.what());
    } catch (const CommError& e) {
      comm_error(e.what());
    }
  });
}

}  // namespace compopt::python
