// detail/tuning/scan_tuning.hpp — tile shapes of the single-pass scan.
// A tuning is {threads per block, rounds of vectors per thread, speculate,
// look-back back-off}; a "vector" is
// 16 bytes of consecutive items when sizeof(T) divides 16, one item otherwise.
#pragma once

#include <cstddef>

namespace scankit::detail {

/// Speculate: start the tile's bulk copy for tile blockIdx.x while the ticket
/// is drawn (used only if the ticket agrees; otherwise the data is read again).
/// MaxBackoffNs: longest sleep between look-back polls.
template <int Threads, int Rounds, bool Speculate = false, int MaxBackoffNs = 256>
struct scan_tuning {
  static constexpr int threads = Threads;
  static constexpr int rounds = Rounds;
  static constexpr bool speculate = Speculate;
  static constexpr int max_backoff_ns = MaxBackoffNs;
};

/// Items per 16-byte vector for T (1 when T does not divide 16 bytes).
template <class T>
inline constexpr int vector_items = (sizeof(T) <= 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;

/// Default tuning for sm_90 (benchmarks/results/scan_tuning.csv): 384
/// threads with about 128 bytes each, so a 48 KB tile staged in shared
/// memory and 4 blocks per SM.
template <class T>
struct default_scan_tuning
    : scan_tuning<384, (128 / (vector_items<T> * sizeof(T))) < 1 ? 1 : int(128 / (vector_items<T> * sizeof(T)))> {};

/// Items one block scans per tile with tuning `Tuning` for T.
template <class T, class Tuning>
inline constexpr std::size_t tile_items = std::size_t(Tuning::threads) * Tuning::rounds * vector_items<T>;

}  // namespace scankit::detail
