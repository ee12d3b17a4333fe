// detail/lookback/tile_status.cuh — the per-tile status words of decoupled
// look-back: for each tile, "not yet published", "aggregate published" or
// "inclusive prefix published", plus the value.
//
// No init kernel: every word carries the launch's 31-bit TAG next to the
// inclusive bit, and a word whose tag differs from this launch's reads as not
// published. Tags come from the launch counter (see launch_ticket.cuh) and are
// never 0, so zeroed memory also reads as not published. The status words only
// ever hold tags (the context keeps them apart from scratch memory), so a stale
// word can match only after 2^31 - 1 launches, and the context clears the
// words long before that.
//
// Three layouts behind one interface:
//   packed  (sizeof(T) <= 4): one 64-bit word {tag:31|inclusive:1 , value:32},
//           written and read with single relaxed 64-bit atomics;
//   paired  (sizeof(T) <= 16): per 4 value bytes a word {flag, 32 value bits},
//           in pairs written by one 16-byte store and read by one 16-byte load
//           each (one pair for T of up to 8 bytes, two for up to 16); a
//           reading whose flags differ is torn (two publications met) and
//           reads as not published, so only 8-byte atomicity is relied on. No
//           fences: the value travels with its flags, and the pairs of a tile
//           are loaded at once, so a reading costs one round trip.
//   (the flag sits in the high half of every word, so a word left by one
//   layout never decodes as valid under another)
//   split   (any other T): the word's high half holds the flag; the value goes
//           to a separate aggregate or inclusive array, written before the flag
//           is stored with release and read after the flag is loaded with
//           acquire. Aggregate and inclusive values live in different arrays, so
//           a reader never sees a value overwritten under it.
#pragma once

#include <cuda/atomic>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace scankit::detail {

enum class tile_state : int { invalid = 0, aggregate = 1, inclusive = 2 };

/// One tile's status as read by a look-back.
template <class T>
struct tile_reading {
  tile_state state;
  T value;  // meaningful only when state != invalid
};

__device__ __forceinline__ std::uint32_t status_flag(std::uint32_t tag, tile_state s) {
  return (tag << 1) | (s == tile_state::inclusive ? 1u : 0u);
}
__device__ __forceinline__ tile_state decode_flag(std::uint32_t flag, std::uint32_t tag) {
  if ((flag >> 1) != tag) return tile_state::invalid;
  return (flag & 1u) ? tile_state::inclusive : tile_state::aggregate;
}

enum class status_layout { packed, paired, split };

template <class T>
inline constexpr status_layout status_layout_of =
    sizeof(T) <= 4 ? status_layout::packed : sizeof(T) <= 16 ? status_layout::paired : status_layout::split;

template <class T, status_layout Layout = status_layout_of<T>>
class tile_status;

// Packed layout: flag and value in one 64-bit word.
template <class T>
class tile_status<T, status_layout::packed> {
 public:
  __host__ __device__ tile_status(std::uint64_t* d_words, void* /*d_scratch*/, std::uint32_t num_tiles)
      : words_(d_words) {
    (void)num_tiles;
  }

  /// Status words (after the launch counter) and scratch bytes this layout
  /// needs for `num_tiles` tiles.
  static constexpr std::size_t words(std::size_t num_tiles) { return num_tiles; }
  static constexpr std::size_t scratch_bytes(std::size_t) { return 0; }

  __device__ void publish(std::uint32_t tile, tile_state s, const T& value, std::uint32_t tag) const {
    std::uint32_t bits = 0;
    memcpy(&bits, &value, sizeof(T));
    const std::uint64_t word = (std::uint64_t(status_flag(tag, s)) << 32) | bits;
    cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(words_[tile]).store(
        word, cuda::memory_order_relaxed);
  }

  __device__ tile_reading<T> read(std::uint32_t tile, std::uint32_t tag) const {
    const std::uint64_t word =
        cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(words_[tile]).load(cuda::memory_order_relaxed);
    tile_reading<T> r;
    r.state = decode_flag(std::uint32_t(word >> 32), tag);
    const std::uint32_t bits = std::uint32_t(word);
    memcpy(&r.value, &bits, sizeof(T));
    return r;
  }

 private:
  std::uint64_t* words_;
};

// Paired layout: 2 or 4 words per tile, the flag in each, 16-byte accesses.
// The pairs start one word later so that they are 16-byte aligned (the
// context's status memory is).
template <class T>
class tile_status<T, status_layout::paired> {
  static constexpr int pairs = sizeof(T) <= 8 ? 1 : 2;  // 16-byte pairs of words per tile

 public:
  __host__ __device__ tile_status(std::uint64_t* d_words, void* /*d_scratch*/, std::uint32_t num_tiles)
      : pairs_(reinterpret_cast<ulonglong2*>(d_words + 1)) {
    (void)num_tiles;
  }

  static constexpr std::size_t words(std::size_t num_tiles) { return 1 + 2 * pairs * num_tiles; }
  static constexpr std::size_t scratch_bytes(std::size_t) { return 0; }

  __device__ void publish(std::uint32_t tile, tile_state s, const T& value, std::uint32_t tag) const {
    std::uint32_t bits[2 * pairs] = {};
    memcpy(bits, &value, sizeof(T));
    const std::uint64_t flag = std::uint64_t(status_flag(tag, s)) << 32;
#pragma unroll
    for (int p = 0; p < pairs; ++p)
      __stcg(pairs_ + std::size_t(tile) * pairs + p, make_ulonglong2(flag | bits[2 * p], flag | bits[2 * p + 1]));
  }

  __device__ tile_reading<T> read(std::uint32_t tile, std::uint32_t tag) const {
    ulonglong2 pair[pairs];
#pragma unroll
    for (int p = 0; p < pairs; ++p) pair[p] = __ldcg(pairs_ + std::size_t(tile) * pairs + p);
    const std::uint32_t flag = std::uint32_t(pair[0].x >> 32);
    bool same = true;
    std::uint32_t bits[2 * pairs];
#pragma unroll
    for (int p = 0; p < pairs; ++p) {
      same = same && std::uint32_t(pair[p].x >> 32) == flag && std::uint32_t(pair[p].y >> 32) == flag;
      bits[2 * p] = std::uint32_t(pair[p].x);
      bits[2 * p + 1] = std::uint32_t(pair[p].y);
    }
    tile_reading<T> r;
    r.state = same ? decode_flag(flag, tag) : tile_state::invalid;
    memcpy(&r.value, bits, sizeof(T));
    return r;
  }

 private:
  ulonglong2* pairs_;
};

// Split layout: flag word + value arrays in scratch memory.
template <class T>
class tile_status<T, status_layout::split> {
 public:
  __host__ __device__ tile_status(std::uint64_t* d_words, void* d_scratch, std::uint32_t num_tiles)
      : words_(d_words),
        aggregates_(static_cast<T*>(d_scratch)),
        inclusives_(static_cast<T*>(d_scratch) + num_tiles) {}

  static constexpr std::size_t words(std::size_t num_tiles) { return num_tiles; }
  static constexpr std::size_t scratch_bytes(std::size_t num_tiles) { return 2 * num_tiles * sizeof(T); }

  __device__ void publish(std::uint32_t tile, tile_state s, const T& value, std::uint32_t tag) const {
    (s == tile_state::inclusive ? inclusives_ : aggregates_)[tile] = value;
    cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(words_[tile]).store(
        std::uint64_t(status_flag(tag, s)) << 32, cuda::memory_order_release);
  }

  __device__ tile_reading<T> read(std::uint32_t tile, std::uint32_t tag) const {
    const std::uint64_t word =
        cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(words_[tile]).load(cuda::memory_order_acquire);
    tile_reading<T> r;
    r.state = decode_flag(std::uint32_t(word >> 32), tag);
    if (r.state == tile_state::aggregate) r.value = aggregates_[tile];
    if (r.state == tile_state::inclusive) r.value = inclusives_[tile];
    return r;
  }

 private:
  std::uint64_t* words_;
  T* aggregates_;
  T* inclusives_;
};

}  // namespace scankit::detail
