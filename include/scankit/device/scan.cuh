// scankit/device/scan.cuh — prefix scan, template API for .cu callers: any
// trivially copyable T and any associative operator (commutativity not
// required: affine maps, matrix products and FSM transitions work).
//
//   struct affine { float a, b; };
//   auto compose = [] __device__ (affine f, affine g) { return affine{g.a * f.a, g.a * f.b + g.b}; };
//   scankit::device::inclusive_scan(ctx, d_maps, d_prefixes, n, compose);
//
// The operator must be callable on the device as op(T, T) -> T. It is only
// ever applied to input values and their combinations, in left-to-right order
// of the inputs, never to uninitialized or out-of-range values.
#pragma once

#include <scankit/context.hpp>
#include <scankit/device/operators.cuh>
#include <scankit/detail/numeric/numeric_dispatch.cuh>
#include <scankit/detail/single_pass_scan.cuh>
#include <scankit/detail/textbook_dispatch.cuh>
#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/error.hpp>
#include <scankit/policy.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace scankit {
namespace detail {

/// True for the policy that runs the tuned single-pass kernel.
inline bool is_tuned_policy(const scan_policy& policy) {
  return policy.grid == grid_strategy::decoupled_lookback && policy.block == block_algorithm::warp_shuffle;
}

/// True when T ⊕ is exact integer arithmetic (the built-in operators on
/// integers): every numeric mode then gives the same bits as fast mode.
template <class T, class Op>
inline constexpr bool exact_integer_scan =
    std::is_integral_v<T> &&
    (std::is_same_v<Op, device::plus> || std::is_same_v<Op, device::minimum> || std::is_same_v<Op, device::maximum> ||
     std::is_same_v<Op, device::bit_and> || std::is_same_v<Op, device::bit_or> || std::is_same_v<Op, device::bit_xor>);

/// Scan with a textbook policy (not the tuned one); run_to_run (for types
/// where it differs from fast) makes the decoupled look-back combine in fixed
/// order. The other grid strategies always combine in a fixed order.
template <class T, class Op>
void dispatch_textbook_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, Op op, maybe<T> initial,
                            bool exclusive, const scan_policy& policy, const char* name) {
  const textbook_shape shape = resolve_textbook_shape(policy, sizeof(T));  // checked even for n == 0
  check_scan_arguments(d_in, d_out, n, sizeof(T), name);
  if (n == 0) return;
  const look_back_order order = policy.numeric == numeric_mode::run_to_run && !exact_integer_scan<T, Op>
                                    ? look_back_order::fixed
                                    : look_back_order::any;
  auto run = [&](auto algorithm) {  // algorithm: std::integral_constant<block_algorithm, ...>
    textbook_scanner<T, Op, decltype(algorithm)::value>(ctx, shape, op, order)
        .run(policy.grid, d_in, d_out, n, initial, exclusive);
  };
  using b = block_algorithm;
  switch (policy.block) {
    case b::kogge_stone: return run(std::integral_constant<b, b::kogge_stone>{});
    case b::kogge_stone_double_buffer: return run(std::integral_constant<b, b::kogge_stone_double_buffer>{});
    case b::brent_kung: return run(std::integral_constant<b, b::brent_kung>{});
    case b::three_phase: return run(std::integral_constant<b, b::three_phase>{});
    case b::warp_shuffle: return run(std::integral_constant<b, b::warp_shuffle>{});
  }
  throw std::invalid_argument(std::string("scankit::") + name + ": unknown block algorithm");
}

/// The tuned (default) policy's scan in numeric mode run_to_run, exact or
/// compensated (T not an exact_integer_scan).
template <class T, class Op>
void dispatch_numeric_tuned_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, Op op, maybe<T> initial,
                                 bool exclusive, numeric_mode mode, const char* name) {
  using tuning = run_to_run_scan_tuning<T>;
  constexpr auto fixed = look_back_order::fixed;
  switch (mode) {
    case numeric_mode::run_to_run:
      if (exclusive) return dispatch_scan<true, tuning, fixed>(ctx, d_in, d_out, n, op, initial, name);
      return dispatch_scan<false, tuning, fixed>(ctx, d_in, d_out, n, op, initial, name);
    case numeric_mode::exact:
    case numeric_mode::compensated:
      if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, device::plus>) {
        if (mode == numeric_mode::exact) {
          if (exclusive) return launch_exact_scan<true>(ctx, d_in, d_out, n, initial, name);
          return launch_exact_scan<false>(ctx, d_in, d_out, n, initial, name);
        }
        if (exclusive) return launch_compensated_scan<true>(ctx, d_in, d_out, n, initial, name);
        return launch_compensated_scan<false>(ctx, d_in, d_out, n, initial, name);
      }
      throw std::invalid_argument(std::string("scankit::") + name + ": numeric_mode::" + to_string(mode) +
                                  " applies to float and double sums (plus) only");
    default:
      throw std::invalid_argument(std::string("scankit::") + name + ": unknown numeric mode");
  }
}

/// The tuned (default) policy's scan in numeric mode `mode`.
template <class T, class Op>
void dispatch_tuned_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, Op op, maybe<T> initial,
                         bool exclusive, numeric_mode mode, const char* name) {
  if constexpr (!exact_integer_scan<T, Op>) {  // integers: every mode is the fast scan
    if (mode != numeric_mode::fast)
      return dispatch_numeric_tuned_scan(ctx, d_in, d_out, n, op, initial, exclusive, mode, name);
  }
  using tuning = default_scan_tuning<T>;
  if (exclusive) return dispatch_scan<true, tuning>(ctx, d_in, d_out, n, op, initial, name);
  dispatch_scan<false, tuning>(ctx, d_in, d_out, n, op, initial, name);
}

/// Throws unless `policy`'s numeric mode can run with its grid and block: the
/// textbook policies run fast and run_to_run, not exact or compensated.
inline void check_textbook_numeric_mode(const scan_policy& policy, const char* name) {
  switch (policy.numeric) {
    case numeric_mode::fast:
    case numeric_mode::run_to_run: return;
    case numeric_mode::exact:
    case numeric_mode::compensated:
      throw std::invalid_argument(std::string("scankit::") + name + ": numeric_mode::" + to_string(policy.numeric) +
                                  " runs on the default policy (decoupled_lookback + warp_shuffle) only");
  }
  throw std::invalid_argument(std::string("scankit::") + name + ": unknown numeric mode");
}

/// Scan with an explicit policy: the tuned kernel for the default policy, the
/// textbook kernels otherwise; policy.numeric picks the numeric mode.
template <class T, class Op>
void dispatch_policy_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, Op op, maybe<T> initial,
                          bool exclusive, const scan_policy& policy, const char* name) {
  if (is_tuned_policy(policy))
    return dispatch_tuned_scan(ctx, d_in, d_out, n, op, initial, exclusive, policy.numeric, name);
  if (!exact_integer_scan<T, Op>) check_textbook_numeric_mode(policy, name);
  dispatch_textbook_scan(ctx, d_in, d_out, n, op, initial, exclusive, policy, name);
}

}  // namespace detail

namespace device {

/// inclusive_scan with an explicit scan policy (scankit/policy.hpp): the
/// default policy runs the tuned kernel; the textbook policies work for any
/// associative operator too. policy.numeric: run_to_run for any operator and
/// type; exact and compensated for float/double with device::plus on the
/// default grid and block. Bad policies throw std::invalid_argument.
template <class T, class Op>
void inclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, Op op, const scan_policy& policy) {
  detail::dispatch_policy_scan(ctx, d_in, d_out, n, op, detail::maybe<T>{T{}, false}, false, policy,
                               "inclusive_scan");
}

/// exclusive_scan with an explicit scan policy.
template <class T, class Op>
void exclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, T init, Op op, const scan_policy& policy) {
  detail::dispatch_policy_scan(ctx, d_in, d_out, n, op, detail::maybe<T>{init, true}, true, policy, "exclusive_scan");
}


/// out[i] = in[0] ⊕ ... ⊕ in[i] for any associative `op`. Asynchronous on
/// ctx.stream(); d_out == d_in allowed. Errors as scankit::inclusive_scan.
template <class Tuning = void, class T, class Op>
void inclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, Op op) {
  using tuning = std::conditional_t<std::is_void_v<Tuning>, detail::default_scan_tuning<T>, Tuning>;
  detail::dispatch_scan<false, tuning>(ctx, d_in, d_out, n, op, detail::maybe<T>{T{}, false}, "inclusive_scan");
}

/// out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i] (inclusive scan seeded with `init`).
template <class Tuning = void, class T, class Op>
void inclusive_scan_init(context& ctx, const T* d_in, T* d_out, std::size_t n, T init, Op op) {
  using tuning = std::conditional_t<std::is_void_v<Tuning>, detail::default_scan_tuning<T>, Tuning>;
  detail::dispatch_scan<false, tuning>(ctx, d_in, d_out, n, op, detail::maybe<T>{init, true}, "inclusive_scan_init");
}

/// out[0] = init, out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1].
template <class Tuning = void, class T, class Op>
void exclusive_scan(context& ctx, const T* d_in, T* d_out, std::size_t n, T init, Op op) {
  using tuning = std::conditional_t<std::is_void_v<Tuning>, detail::default_scan_tuning<T>, Tuning>;
  detail::dispatch_scan<true, tuning>(ctx, d_in, d_out, n, op, detail::maybe<T>{init, true}, "exclusive_scan");
}

/// Bytes of caller-provided workspace a scan of n items of T needs.
template <class T, class Tuning = detail::default_scan_tuning<T>>
std::size_t scan_workspace_bytes(std::size_t n) {
  const std::size_t tiles = detail::scan_num_tiles<T, Tuning>(n);
  if (tiles <= 1) return 0;
  return context::workspace_bytes_for(1 + detail::tile_status<T>::words(tiles), detail::tile_status<T>::scratch_bytes(tiles));
}

}  // namespace device
}  // namespace scankit
