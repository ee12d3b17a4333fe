// scankit/scan.hpp — prefix scan, host API. Plain C++: callable from a .cpp
// compiled by any C++17 compiler; link scankit::scankit (libscankit.a + cudart).
//
//   scankit::context ctx{stream};
//   scankit::inclusive_scan(ctx, d_in, d_out, n);                    // running sum
//   scankit::exclusive_scan(ctx, d_in, d_out, n, 0);                 // offsets
//   scankit::inclusive_scan(ctx, d_in, d_out, n, scankit::op::max);  // running max
//
// All functions are asynchronous on ctx.stream(). d_in and d_out are device
// pointers; d_out == d_in (in place) is allowed, any other overlap is not. Any
// alignment works (16-byte aligned pointers take the vectorized path).
#pragma once

#include <scankit/context.hpp>
#include <scankit/error.hpp>
#include <scankit/policy.hpp>

#include <cstddef>
#include <cstdint>

namespace scankit {

/// The built-in associative operators of the host API. Bitwise operators are
/// for integer types only; passing one for float/double throws
/// std::invalid_argument.
enum class op { plus, min, max, bit_and, bit_or, bit_xor };

/// Human-readable name of an operator ("plus", "min", ...).
const char* to_string(op o) noexcept;

#define SCANKIT_DECLARE_SCAN(T)                                                                   \
  /** out[i] = in[0] ⊕ ... ⊕ in[i]. Throws std::invalid_argument (null pointer with n > 0,     \
      partially overlapping ranges, bitwise op on floating point — also when n == 0) before  \
      any launch, and scankit::cuda_error if CUDA fails. Otherwise n == 0 does nothing. */                             \
  void inclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, op o = op::plus);  \
  /** out[0] = init, out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1]. Errors as inclusive_scan. */       \
  void exclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, T init,            \
                      op o = op::plus);                                                       \
  /** inclusive_scan with an explicit scan policy (scankit/policy.hpp). The textbook           \
      policies are built for op::plus here (other operators: std::invalid_argument; the       \
      template API takes any). */                                                             \
  void inclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n,                   \
                      const scan_policy& policy, op o = op::plus);                            \
  /** exclusive_scan with an explicit scan policy, as above. */                               \
  void exclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, T init,           \
                      const scan_policy& policy, op o = op::plus);

SCANKIT_DECLARE_SCAN(std::int32_t)
SCANKIT_DECLARE_SCAN(std::uint32_t)
SCANKIT_DECLARE_SCAN(std::int64_t)
SCANKIT_DECLARE_SCAN(std::uint64_t)
SCANKIT_DECLARE_SCAN(float)
SCANKIT_DECLARE_SCAN(double)
#undef SCANKIT_DECLARE_SCAN

/// Bytes of caller-provided workspace (see context's workspace constructor)
/// that a scan of n elements of `element_size` bytes (4 or 8, the built-in
/// types; other sizes throw std::invalid_argument) needs.
std::size_t scan_workspace_bytes(std::size_t n, std::size_t element_size);

/// Bytes of caller-provided workspace a float (element_size 4) or double (8)
/// scan of n elements in numeric mode `mode` on the default policy needs
/// (exact and compensated carry wider values between tiles).
std::size_t scan_workspace_bytes(std::size_t n, std::size_t element_size, numeric_mode mode);

}  // namespace scankit
