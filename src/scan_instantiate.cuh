// src/scan_instantiate.cuh — defines the host API scan functions for one
// element type (each src/scan_<type>.cu includes this once, so the library's
// kernels compile in parallel, one translation unit per type).
#pragma once

#include <scankit/device/operators.cuh>
#include <scankit/device/scan.cuh>
#include <scankit/scan.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace scankit::detail {

// Calls f(functor) for the operator `o`; bitwise operators only for integers.
template <class T, class F>
void with_operator(op o, const char* name, F&& f) {
  switch (o) {
    case op::plus: return f(device::plus{});
    case op::min: return f(device::minimum{});
    case op::max: return f(device::maximum{});
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (o) {
      case op::bit_and: return f(device::bit_and{});
      case op::bit_or: return f(device::bit_or{});
      case op::bit_xor: return f(device::bit_xor{});
      default: break;
    }
  }
  throw std::invalid_argument(std::string("scankit::") + name + ": operator '" + to_string(o) +
                              "' is not defined for this element type");
}

}  // namespace scankit::detail

#define SCANKIT_DEFINE_SCAN(T)                                                                          \
  void scankit::inclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, op o) {            \
    detail::with_operator<T>(o, "inclusive_scan",                                                       \
                             [&](auto functor) { device::inclusive_scan(ctx, d_in, d_out, n, functor); }); \
  }                                                                                                     \
  void scankit::exclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, T init, op o) {    \
    detail::with_operator<T>(o, "exclusive_scan",                                                       \
                             [&](auto functor) { device::exclusive_scan(ctx, d_in, d_out, n, init, functor); }); \
  }
