// src/select_flagged.cu — the host API's compaction and partition by flags.
// Only sizes matter here, so items and values are moved as 4- or 8-byte
// words and bool flags are read as bytes: 12 compaction kernels and 4
// partition kernels serve every host type combination.
#include <scankit/device/select.cuh>
#include <scankit/select.hpp>

#include <stdexcept>

namespace scankit::detail {
namespace {

template <std::size_t Bytes>
using word = std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>;

// Calls f(item, value, flag) with typed null pointers naming the types of the call.
template <class F>
std::size_t with_flagged_types(const flagged_call& c, F&& f) {
  auto with_flag = [&](auto item, auto value) -> std::size_t {
    if (c.flag_bytes == 1) return f(item, value, static_cast<const std::uint8_t*>(nullptr));
    return f(item, value, static_cast<const std::int32_t*>(nullptr));
  };
  auto with_value = [&](auto item) -> std::size_t {
    if (c.value_bytes == 0) return with_flag(item, static_cast<no_values*>(nullptr));
    if (c.value_bytes == 4) return with_flag(item, static_cast<word<4>*>(nullptr));
    return with_flag(item, static_cast<word<8>*>(nullptr));
  };
  if (c.item_bytes == 4) return with_value(static_cast<word<4>*>(nullptr));
  return with_value(static_cast<word<8>*>(nullptr));
}

}  // namespace

std::size_t compact_flagged(context& ctx, const flagged_call& c) {
  return with_flagged_types(c, [&](auto* item, auto* value, auto* flag) -> std::size_t {
    using Item = std::remove_pointer_t<decltype(item)>;
    using Value = std::remove_pointer_t<decltype(value)>;
    using Flag = std::remove_const_t<std::remove_pointer_t<decltype(flag)>>;
    select_arrays<Item, Value> a;
    a.d_in = static_cast<const Item*>(c.d_in);
    a.d_flags = c.d_flags;
    a.flag_bytes = sizeof(Flag);
    a.d_values_in = static_cast<const Value*>(c.d_values_in);
    a.d_out = static_cast<Item*>(c.d_out);
    a.d_values_out = static_cast<Value*>(c.d_values_out);
    const auto* flags = static_cast<const Flag*>(c.d_flags);
    const char* name = c.value_bytes != 0 ? (c.d_count ? "compact_pairs_async" : "compact_pairs")
                                          : (c.d_count ? "compact_async" : "compact");
    return run_select<select_mode::compact>(ctx, a, device::detail_select::flags_of(flags), c.n, c.d_count, c.policy,
                                            name);
  });
}

std::size_t partition_flagged(context& ctx, const flagged_call& c) {
  if (c.value_bytes != 0) throw std::invalid_argument("scankit::partition: values are not supported");
  auto run = [&](auto* item, auto* flag) -> std::size_t {
    using Item = std::remove_pointer_t<decltype(item)>;
    using Flag = std::remove_const_t<std::remove_pointer_t<decltype(flag)>>;
    const auto* flags = static_cast<const Flag*>(c.d_flags);
    return run_select<select_mode::partition>(
        ctx,
        device::detail_select::flagged_arrays(static_cast<const Item*>(c.d_in), flags, static_cast<Item*>(c.d_out)),
        device::detail_select::flags_of(flags), c.n, c.d_count, c.policy,
        c.d_count ? "partition_async" : "partition");
  };
  auto with_flag = [&](auto* item) -> std::size_t {
    if (c.flag_bytes == 1) return run(item, static_cast<const std::uint8_t*>(nullptr));
    return run(item, static_cast<const std::int32_t*>(nullptr));
  };
  if (c.item_bytes == 4) return with_flag(static_cast<word<4>*>(nullptr));
  return with_flag(static_cast<word<8>*>(nullptr));
}

}  // namespace scankit::detail
