// detail/ragged/ragged_checks.hpp — argument checks shared by the ragged
// primitives (expand, segmented reduction, reduce-by-key): all raise
// std::invalid_argument naming the call, before any launch.
#pragma once

#include <scankit/detail/memory_ranges.hpp>

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>

namespace scankit::detail {

/// A device array named for error messages.
struct named_range {
  const char* name;
  const void* p;
  std::size_t bytes;
};

inline void require_pointer(const void* p, const char* what, const char* call) {
  if (p == nullptr) throw std::invalid_argument(std::string("scankit::") + call + ": " + what + " is null");
}

/// Every output must be apart from every other array (inputs and outputs).
inline void require_apart(std::initializer_list<named_range> outputs, std::initializer_list<named_range> inputs,
                          const char* call) {
  auto clash = [&](const named_range& a, const named_range& b) {
    if (ranges_overlap(a.p, a.bytes, b.p, b.bytes))
      throw std::invalid_argument(std::string("scankit::") + call + ": " + a.name + " overlaps " + b.name);
  };
  for (auto o = outputs.begin(); o != outputs.end(); ++o) {
    for (const named_range& i : inputs) clash(*o, i);
    for (auto later = o + 1; later != outputs.end(); ++later) clash(*o, *later);
  }
}

/// n * size without overflow.
inline std::size_t checked_bytes(std::size_t n, std::size_t size, const char* call) {
  if (size != 0 && n > std::size_t(-1) / size)
    throw std::invalid_argument(std::string("scankit::") + call + ": array size overflows");
  return n * size;
}

}  // namespace scankit::detail
