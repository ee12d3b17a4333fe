// detail/tuning/scan_tuning.hpp — tile shapes of the single-pass scan.
// A tuning is {threads per block, rounds of vectors per thread, items per
// vector}; a "vector" is a lane's run of consecutive items in one round, by
// default 16 bytes of them when sizeof(T) divides 16, one item otherwise.
// Each block stages its whole tile (threads x rounds vectors) in shared memory.
#pragma once

#include <cstddef>

namespace scankit::detail {

/// Vec = 0: vector_items<T>. An explicit Vec suits a scan whose scanned type
/// is wider than what it reads (the compensated scan reads F and scans
/// {sum, error} pairs): each lane scans Vec items on its own per round, so
/// the tile takes fewer warp scans.
template <int Threads, int Rounds, int Vec = 0>
struct scan_tuning {
  static constexpr int threads = Threads;
  static constexpr int rounds = Rounds;
  static constexpr int vec = Vec;
};

/// Items per 16-byte vector for T (1 when T does not divide 16 bytes).
template <class T>
inline constexpr int vector_items = (sizeof(T) <= 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;

/// Items per vector of a scan of T with tuning `Tuning`.
template <class T, class Tuning>
inline constexpr int tuning_vector_items = Tuning::vec != 0 ? Tuning::vec : vector_items<T>;

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
inline constexpr std::size_t tile_items = std::size_t(Tuning::threads) * Tuning::rounds * tuning_vector_items<T, Tuning>;

}  // namespace scankit::detail
