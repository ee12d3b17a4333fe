// detail/no_values.hpp — the value type of a primitive called on keys (or
// items) alone: no values travel with them.
#pragma once

namespace scankit::detail {

/// No values travel with the keys or items.
struct no_values {};

}  // namespace scankit::detail
