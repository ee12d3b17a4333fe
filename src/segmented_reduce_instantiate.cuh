// src/segmented_reduce_instantiate.cuh — defines the host API segmented
// reductions for one value type (each src/segmented_reduce_<type>.cu
// includes this once). Signed offsets run as their unsigned twins.
#pragma once

#include "ragged_types.hpp"
#include "scan_instantiate.cuh"  // with_operator

#include <scankit/device/segmented_reduce.cuh>
#include <scankit/segmented_reduce.hpp>

#include <limits>

namespace scankit::detail {

/// The identity of the host operator `o` for T (+inf / -inf for min / max of
/// floating point).
template <class T>
T identity_of(op o) {
  using limits = std::numeric_limits<T>;
  switch (o) {
    case op::min: return limits::has_infinity ? limits::infinity() : limits::max();
    case op::max: return limits::has_infinity ? -limits::infinity() : limits::lowest();
    default: return T(0);
  }
}

template <class T, class Offset>
void host_segmented_reduce(context& ctx, const T* d_values, std::size_t num_values, const Offset* d_offsets,
                           std::size_t num_segments, T* d_out, op o, T init) {
  if (o != op::plus && o != op::min && o != op::max)
    throw std::invalid_argument(std::string("scankit::segmented_reduce: operator '") + to_string(o) +
                                "' is not supported (plus, min, max)");
  with_operator<T>(o, "segmented_reduce", [&](auto functor) {
    device::segmented_reduce(ctx, d_values, num_values, as_unsigned(d_offsets), num_segments, d_out, functor, init);
  });
}

}  // namespace scankit::detail

#define SCANKIT_DEFINE_SEGMENTED_REDUCE_OFFSET(T, Offset)                                                         \
  void scankit::segmented_reduce(context& ctx, const T* d_values, std::size_t num_values,                      \
                                 const Offset* d_offsets, std::size_t num_segments, T* d_out, op o, T init) {   \
    detail::host_segmented_reduce(ctx, d_values, num_values, d_offsets, num_segments, d_out, o, init);          \
  }                                                                                                              \
  void scankit::segmented_reduce(context& ctx, const T* d_values, std::size_t num_values,                      \
                                 const Offset* d_offsets, std::size_t num_segments, T* d_out, op o) {           \
    detail::host_segmented_reduce(ctx, d_values, num_values, d_offsets, num_segments, d_out, o,                 \
                                  detail::identity_of<T>(o));                                                   \
  }

#define SCANKIT_DEFINE_SEGMENTED_REDUCE(T)                  \
  SCANKIT_DEFINE_SEGMENTED_REDUCE_OFFSET(T, std::int32_t)   \
  SCANKIT_DEFINE_SEGMENTED_REDUCE_OFFSET(T, std::uint32_t)  \
  SCANKIT_DEFINE_SEGMENTED_REDUCE_OFFSET(T, std::int64_t)   \
  SCANKIT_DEFINE_SEGMENTED_REDUCE_OFFSET(T, std::uint64_t)
