// src/scan_numeric_instantiate.cuh — defines numeric_mode_scan (scan_numeric.hpp)
// for one floating-point type: run_to_run for plus, min and max; exact and
// compensated for plus.
#pragma once

#include "scan_instantiate.cuh"
#include "scan_numeric.hpp"

#include <scankit/device/scan.cuh>

#define SCANKIT_DEFINE_NUMERIC_SCAN(T)                                                                              \
  template <>                                                                                                       \
  void scankit::detail::numeric_mode_scan<T>(context & ctx, const T* d_in, T* d_out, std::size_t n, maybe<T> initial, \
                                             bool exclusive, numeric_mode mode, op o, const char* name) {           \
    with_operator<T>(o, name, [&](auto functor) {                                                                   \
      dispatch_numeric_tuned_scan(ctx, d_in, d_out, n, functor, initial, exclusive, mode, name);                    \
    });                                                                                                             \
  }
