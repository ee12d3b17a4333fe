// src/expand.cu — host API load-balancing search and interval expand. Signed
// offsets run as their unsigned twins, items as 4- or 8-byte words.
#include "ragged_types.hpp"

#include <scankit/device/expand.cuh>
#include <scankit/expand.hpp>

#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace scankit::detail {

/// The unsigned word that moves a T.
template <class T>
using word_of = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class Offset>
void check_total_fits(std::size_t total, const char* call) {
  if (total > std::uint64_t(std::numeric_limits<Offset>::max()))
    throw std::invalid_argument(std::string("scankit::") + call + ": total does not fit the offset type");
}

/// Segment indices are written in the offset type (signed offsets run as
/// their unsigned twins, so the typed check is made here).
template <class Offset>
void check_segments_fit(std::size_t num_segments, const char* call) {
  if (num_segments > 0 && num_segments - 1 > std::uint64_t(std::numeric_limits<Offset>::max()))
    throw std::invalid_argument(std::string("scankit::") + call + ": segment indices do not fit the offset type");
}

}  // namespace scankit::detail

#define SCANKIT_DEFINE_INTERVAL_EXPAND(T, Offset)                                                                 \
  void scankit::interval_expand(context& ctx, const T* d_values, const Offset* d_offsets,                      \
                                std::size_t num_segments, std::size_t total, T* d_out) {                       \
    detail::check_total_fits<Offset>(total, "interval_expand");                                                 \
    using word = detail::word_of<T>;                                                                             \
    device::interval_expand(ctx, reinterpret_cast<const word*>(d_values), detail::as_unsigned(d_offsets),        \
                            num_segments, total, reinterpret_cast<word*>(d_out));                               \
  }

#define SCANKIT_DEFINE_EXPAND(Offset)                                                                             \
  void scankit::load_balancing_search(context& ctx, const Offset* d_offsets, std::size_t num_segments,         \
                                      std::size_t total, Offset* d_source, Offset* d_rank) {                    \
    detail::check_total_fits<Offset>(total, "load_balancing_search");                                           \
    detail::check_segments_fit<Offset>(num_segments, "load_balancing_search");                                  \
    device::load_balancing_search(ctx, detail::as_unsigned(d_offsets), num_segments, total,                     \
                                  detail::as_unsigned(d_source), detail::as_unsigned(d_rank));                  \
  }                                                                                                              \
  SCANKIT_DEFINE_INTERVAL_EXPAND(std::int32_t, Offset)                                                           \
  SCANKIT_DEFINE_INTERVAL_EXPAND(std::uint32_t, Offset)                                                          \
  SCANKIT_DEFINE_INTERVAL_EXPAND(std::int64_t, Offset)                                                           \
  SCANKIT_DEFINE_INTERVAL_EXPAND(std::uint64_t, Offset)                                                          \
  SCANKIT_DEFINE_INTERVAL_EXPAND(float, Offset)                                                                  \
  SCANKIT_DEFINE_INTERVAL_EXPAND(double, Offset)

SCANKIT_DEFINE_EXPAND(std::int32_t)
SCANKIT_DEFINE_EXPAND(std::uint32_t)
SCANKIT_DEFINE_EXPAND(std::int64_t)
SCANKIT_DEFINE_EXPAND(std::uint64_t)
