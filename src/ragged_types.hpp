// src/ragged_types.hpp — the host API's ragged calls erase what does not
// change the bits a kernel moves: signed offsets and keys run as their
// unsigned twins (valid offsets are non-negative, and key equality is bitwise
// equality for integers), so each kernel is compiled once per width.
#pragma once

#include <cstdint>
#include <type_traits>

namespace scankit::detail {

/// The unsigned type of T's width (T itself when unsigned).
template <class T>
using unsigned_twin = std::make_unsigned_t<T>;

template <class T>
const unsigned_twin<T>* as_unsigned(const T* p) {
  return reinterpret_cast<const unsigned_twin<T>*>(p);
}
template <class T>
unsigned_twin<T>* as_unsigned(T* p) {
  return reinterpret_cast<unsigned_twin<T>*>(p);
}

}  // namespace scankit::detail
