// src/scan_numeric.hpp — internal: the host API's float and double scans in
// the numeric modes other than fast, on the default policy (defined in
// src/scan_numeric_<type>.cu, so their kernels compile in their own
// translation units).
#pragma once

#include <scankit/detail/maybe.cuh>
#include <scankit/policy.hpp>
#include <scankit/scan.hpp>

namespace scankit::detail {

/// Scans with the tuned policy in numeric mode `mode`; exact and compensated
/// take op::plus only (std::invalid_argument otherwise).
template <class T>
void numeric_mode_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, maybe<T> initial, bool exclusive,
                       numeric_mode mode, op o, const char* name);

}  // namespace scankit::detail
