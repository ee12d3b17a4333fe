// tests/support/thrust_oracle.cuh — the Thrust oracle: the same scan as the
// host API, computed by thrust::inclusive_scan / exclusive_scan on the same
// device data and stream. (Thrust runs CUB underneath, so the host reference
// in reference.hpp is the independent oracle; this one is the one the project
// is measured against.)
#pragma once

#include "support/cuda_check.hpp"

#include <scankit/scan.hpp>

#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/scan.h>

#include <cstddef>
#include <type_traits>

namespace sktest {

/// d_out = scan of d_in[0, n) with operator o, by Thrust on `stream`
/// (thrust::cuda::par.on(stream): returns after the stream is synchronized).
/// Exclusive scans use `init`; inclusive ones ignore it.
template <class T>
void thrust_scan(cudaStream_t stream, const T* d_in, T* d_out, std::size_t n, scankit::op o, bool exclusive, T init) {
  if (n == 0) return;
  const auto first = thrust::device_pointer_cast(d_in);
  const auto result = thrust::device_pointer_cast(d_out);
  auto run = [&](auto functor) {
    if (exclusive)
      thrust::exclusive_scan(thrust::cuda::par.on(stream), first, first + n, result, init, functor);
    else
      thrust::inclusive_scan(thrust::cuda::par.on(stream), first, first + n, result, functor);
  };
  switch (o) {
    case scankit::op::plus: return run(thrust::plus<T>{});
    case scankit::op::min: return run(thrust::minimum<T>{});
    case scankit::op::max: return run(thrust::maximum<T>{});
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (o) {
      case scankit::op::bit_and: return run(thrust::bit_and<T>{});
      case scankit::op::bit_or: return run(thrust::bit_or<T>{});
      case scankit::op::bit_xor: return run(thrust::bit_xor<T>{});
      default: break;
    }
  }
  FAIL("thrust_scan: operator " << scankit::to_string(o) << " is not defined for this type");
}

}  // namespace sktest
