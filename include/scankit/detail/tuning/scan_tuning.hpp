// detail/tuning/scan_tuning.hpp — tile shapes of the single-pass scan.
// A tuning is {threads per block, rounds of vectors per thread}; a "vector" is
// 16 bytes of consecutive items when sizeof(T) divides 16, one item otherwise.
// Each block stages its whole tile (threads x rounds vectors) in shared memory.
#pragma once

#include <cstddef>

namespace scankit::detail {

template <int Threads, int Rounds>
struct scan_tuning {
  static constexpr int threads = Threads;
  static constexpr int rounds = Rounds;
};

/// Items per 16-byte vector for T (1 when T does not divide 16 bytes).
template <class T>
inline constexpr int vector_items = (sizeof(T) <= 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;

/// Default tuning for sm_90, chosen by benchmarks/results/scan_tuning.csv:
/// 8-byte items: 256 threads x 12 rounds (48 KB tile); everything else: 384
/// threads with about 128 bytes each (48 KB tile). Four blocks per SM.
template <class T>
struct default_scan_tuning
    : scan_tuning<sizeof(T) == 8 ? 256 : 384,
                  sizeof(T) == 8 ? 12
                                 : ((128 / (vector_items<T> * sizeof(T))) < 1 ? 1
                                                                             : int(128 / (vector_items<T> * sizeof(T))))> {};

/// Items one block scans per tile with tuning `Tuning` for T.
template <class T, class Tuning>
inline constexpr std::size_t tile_items = std::size_t(Tuning::threads) * Tuning::rounds * vector_items<T>;

}  // namespace scankit::detail
