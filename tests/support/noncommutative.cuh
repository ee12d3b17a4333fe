// tests/support/noncommutative.cuh — element types and associative but
// NON-commutative operators for the template API tests, plus "checked"
// variants whose operator flags (in device memory) any input that is not a
// real input value or a combination of them.
//
// All arithmetic is exact unsigned integer arithmetic (mod 2^bits), so the
// device result must equal a sequential host fold bit for bit, in any
// association order — but not in any *commutation* order.
//
// The generators keep every value invertible (odd multipliers, odd
// determinants): products of non-invertible maps mod 2^k collapse to constants
// after a few dozen factors, after which each prefix depends only on the last
// few inputs and a wrong tile prefix would go unnoticed.
#pragma once

#include "support/random.hpp"

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

namespace sktest {

// ---- x -> a·x + b (mod 2^32), 8 bytes: paired status layout, 2-item vectors ----
struct affine32 {
  std::uint32_t a, b;
};
inline bool operator==(const affine32& x, const affine32& y) { return x.a == y.a && x.b == y.b; }
inline std::ostream& operator<<(std::ostream& s, const affine32& f) { return s << "{a=" << f.a << " b=" << f.b << "}"; }

/// f ⊕ g = "f, then g": x -> g.a·(f.a·x + f.b) + g.b.
struct compose_affine32 {
  __host__ __device__ affine32 operator()(const affine32& f, const affine32& g) const {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};

inline affine32 random_affine32(rng& r) {
  return {std::uint32_t(r.next()) | 1u, std::uint32_t(r.next())};
}

// ---- 2×2 matrices over Z/2^32, 16 bytes: paired layout (two pairs), scalar loads ----
struct mat2 {
  std::uint32_t m00, m01, m10, m11;
};
inline bool operator==(const mat2& x, const mat2& y) {
  return x.m00 == y.m00 && x.m01 == y.m01 && x.m10 == y.m10 && x.m11 == y.m11;
}
inline std::ostream& operator<<(std::ostream& s, const mat2& m) {
  return s << "[[" << m.m00 << " " << m.m01 << "] [" << m.m10 << " " << m.m11 << "]]";
}

/// x ⊕ y = x·y (matrix product; earlier factor on the left).
struct mat2_product {
  __host__ __device__ mat2 operator()(const mat2& x, const mat2& y) const {
    return {x.m00 * y.m00 + x.m01 * y.m10, x.m00 * y.m01 + x.m01 * y.m11, x.m10 * y.m00 + x.m11 * y.m10,
            x.m10 * y.m01 + x.m11 * y.m11};
  }
};

/// Odd diagonal, even m01: determinant m00·m11 − m01·m10 is odd, so invertible.
inline mat2 random_mat2(rng& r) {
  return {std::uint32_t(r.next()) | 1u, std::uint32_t(r.next()) & ~1u, std::uint32_t(r.next()),
          std::uint32_t(r.next()) | 1u};
}

// ---- checked types: the operator verifies a magic field on both inputs ----

/// 12 bytes (does not divide 16: one item per "vector", scalar loads).
struct tagged_affine12 {
  std::uint32_t a, b, magic;
};
inline constexpr std::uint32_t magic12 = 0x600df00du;

/// 4 bytes (4-item vectors, packed status word): x -> a·x + b (mod 256).
struct tagged_affine4 {
  std::uint8_t a, b;
  std::uint16_t magic;
};
inline constexpr std::uint16_t magic4 = 0x7e57u;

/// 3 bytes (does not divide 128 or 16: unpadded shared-memory slots, and
/// padding bytes beside it in the carries): x -> a·x + b (mod 256).
struct tagged_affine3 {
  std::uint8_t a, b, magic;
};
inline constexpr std::uint8_t magic3 = 0x3cu;

inline bool operator==(const tagged_affine3& x, const tagged_affine3& y) {
  return x.a == y.a && x.b == y.b && x.magic == y.magic;
}
inline std::ostream& operator<<(std::ostream& s, const tagged_affine3& f) {
  return s << "{a=" << unsigned(f.a) << " b=" << unsigned(f.b) << " magic=0x" << std::hex << unsigned(f.magic)
           << std::dec << "}";
}
inline bool operator==(const tagged_affine12& x, const tagged_affine12& y) {
  return x.a == y.a && x.b == y.b && x.magic == y.magic;
}
inline bool operator==(const tagged_affine4& x, const tagged_affine4& y) {
  return x.a == y.a && x.b == y.b && x.magic == y.magic;
}
inline std::ostream& operator<<(std::ostream& s, const tagged_affine12& f) {
  return s << "{a=" << f.a << " b=" << f.b << " magic=0x" << std::hex << f.magic << std::dec << "}";
}
inline std::ostream& operator<<(std::ostream& s, const tagged_affine4& f) {
  return s << "{a=" << unsigned(f.a) << " b=" << unsigned(f.b) << " magic=0x" << std::hex << f.magic << std::dec << "}";
}

template <class T>
struct magic_of;
template <>
struct magic_of<tagged_affine12> {
  static constexpr std::uint32_t value = magic12;
};
template <>
struct magic_of<tagged_affine4> {
  static constexpr std::uint32_t value = magic4;
};
template <>
struct magic_of<tagged_affine3> {
  static constexpr std::uint32_t value = magic3;
};

/// Composition of tagged affine maps, computed the same way on host and device.
template <class T>
__host__ __device__ inline T compose_tagged(const T& f, const T& g) {
  using field = decltype(f.a);
  T h;
  h.a = field(g.a * f.a);
  h.b = field(g.a * f.b + g.b);
  h.magic = decltype(f.magic)(magic_of<T>::value);
  return h;
}

/// Bits the checked operator ORs into *d_error, by what an invalid input held.
enum checked_error : unsigned {
  saw_zero_magic = 1u,    // magic 0: a default-constructed T{} or zeroed memory
  saw_poison_magic = 2u,  // 0xA5 bytes: poisoned output, input past n, or scratch
  saw_other_magic = 4u,   // anything else (uninitialized registers, torn values)
};

/// Describes a *d_error value for a failure message.
inline std::string describe_checked_error(unsigned e) {
  if (e == 0) return "none";
  std::string s;
  if (e & saw_zero_magic) s += "[operator got a value with magic 0: a default-constructed T{} or zeroed memory] ";
  if (e & saw_poison_magic) s += "[operator got poison: output, input past n or workspace scratch] ";
  if (e & saw_other_magic) s += "[operator got some other non-input value] ";
  return s;
}

/// The checked operator: composes, and if either input lacks the magic value
/// ORs a checked_error bit into *d_error.
template <class T>
struct checked_compose {
  unsigned* d_error;
  __device__ static unsigned classify(const T& x) {
    using magic_t = decltype(x.magic);
    if (x.magic == magic_t(magic_of<T>::value)) return 0u;
    if (x.magic == 0) return saw_zero_magic;
    magic_t poison;
    memset(&poison, 0xA5, sizeof(poison));
    return x.magic == poison ? saw_poison_magic : saw_other_magic;
  }
  __device__ T operator()(const T& f, const T& g) const {
    const unsigned e = classify(f) | classify(g);
    if (e != 0u) atomicOr(d_error, e);
    return compose_tagged(f, g);
  }
};

/// Factories of the device operators from the error flag (tests that run
/// several operators through one case pass these).
struct make_compose_affine32 {
  compose_affine32 operator()(unsigned*) const { return {}; }
};
struct make_mat2_product {
  mat2_product operator()(unsigned*) const { return {}; }
};
template <class T>
struct make_checked {
  checked_compose<T> operator()(unsigned* d_error) const { return {d_error}; }
};

/// Host version (no flag): the reference fold.
template <class T>
struct host_compose {
  T operator()(const T& f, const T& g) const { return compose_tagged(f, g); }
};

inline tagged_affine12 random_tagged_affine12(rng& r) {
  return {std::uint32_t(r.next()) | 1u, std::uint32_t(r.next()), magic12};
}
inline tagged_affine4 random_tagged_affine4(rng& r) {
  return {std::uint8_t(r.next() | 1u), std::uint8_t(r.next()), magic4};
}
inline tagged_affine3 random_tagged_affine3(rng& r) {
  return {std::uint8_t(r.next() | 1u), std::uint8_t(r.next()), magic3};
}

// ---- sequential host fold (the reference for the template API) ----

/// out[i] per scan_mode, folding strictly left to right with op(earlier, later).
template <class T, class Op, class Mode>
std::vector<T> sequential_fold(const std::vector<T>& in, Op op, Mode mode, const T& init) {
  std::vector<T> out(in.size());
  const bool has_init = mode != Mode::inclusive, exclusive = mode == Mode::exclusive;
  T acc = init;
  bool has = has_init;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (exclusive) out[i] = acc;
    acc = has ? op(acc, in[i]) : in[i];
    has = true;
    if (!exclusive) out[i] = acc;
  }
  return out;
}

}  // namespace sktest
