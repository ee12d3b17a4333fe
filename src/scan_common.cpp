// src/scan_common.cpp — type-independent parts of the scan host API.
#include <scankit/scan.hpp>

#include <cstdint>

namespace scankit {

const char* to_string(op o) noexcept {
  switch (o) {
    case op::plus: return "plus";
    case op::min: return "min";
    case op::max: return "max";
    case op::bit_and: return "bit_and";
    case op::bit_or: return "bit_or";
    case op::bit_xor: return "bit_xor";
  }
  return "unknown";
}

}  // namespace scankit
