// The storage precision's name and sizes, written once ([numerics] storage: float, fp16, double).
#pragma once

#include <cstddef>

#include "io/case_config.hpp"

namespace eddy {

/// "float", "fp16" or "double": the value of [numerics] storage that selects `p`.
constexpr const char* precision_name(Precision p) {
  return p == Precision::float64 ? "double" : p == Precision::float16 ? "fp16" : "float";
}

/// Bytes of one stored population value f_i: 4 (float), 2 (fp16) or 8 (double).
constexpr std::size_t storage_bytes(Precision p) {
  return p == Precision::float16 ? 2 : p == Precision::float64 ? 8 : 4;
}

/// Bytes of one value of the arithmetic and of the macroscopic fields (rho, u, derived fields, T): 8 in double,
/// else 4 (fp16 storage computes in float).
constexpr std::size_t arithmetic_bytes(Precision p) { return p == Precision::float64 ? 8 : 4; }

/// The advice of the out-of-memory messages for a case not yet in fp16: ", fp16 storage ([numerics] storage =
/// \"fp16\")" (half the population bytes), or "" when it already is.
constexpr const char* fp16_storage_hint(Precision p) {
  return p == Precision::float16 ? "" : ", fp16 storage ([numerics] storage = \"fp16\")";
}

}  // namespace eddy
