// src/scan_workspace.cu — workspace sizing for the scan host API.
#include <scankit/device/scan.cuh>
#include <scankit/scan.hpp>

#include <cstdint>
#include <stdexcept>

namespace {

/// Workspace of a float/double scan in numeric mode `mode` (default policy).
template <class F>
std::size_t numeric_workspace_bytes(std::size_t n, scankit::numeric_mode mode) {
  using namespace scankit;
  switch (mode) {
    case numeric_mode::fast: return device::scan_workspace_bytes<F>(n);
    case numeric_mode::run_to_run: return device::scan_workspace_bytes<F, detail::run_to_run_scan_tuning<F>>(n);
    case numeric_mode::compensated:
      return device::scan_workspace_bytes<detail::compensated<F>, detail::compensated_scan_tuning<F>>(n);
    case numeric_mode::exact: {
      const auto [words, scratch] = detail::exact_scan_storage<F>(n);
      return words == 0 ? 0 : context::workspace_bytes_for(words, scratch);
    }
  }
  throw std::invalid_argument("scankit::scan_workspace_bytes: unknown numeric mode");
}

}  // namespace

std::size_t scankit::scan_workspace_bytes(std::size_t n, std::size_t element_size) {
  switch (element_size) {
    case 4: return device::scan_workspace_bytes<std::uint32_t>(n);
    case 8: return device::scan_workspace_bytes<std::uint64_t>(n);
    default: throw std::invalid_argument("scankit::scan_workspace_bytes: element_size must be 4 or 8");
  }
}

std::size_t scankit::scan_workspace_bytes(std::size_t n, std::size_t element_size, numeric_mode mode) {
  switch (element_size) {
    case 4: return numeric_workspace_bytes<float>(n, mode);
    case 8: return numeric_workspace_bytes<double>(n, mode);
    default: throw std::invalid_argument("scankit::scan_workspace_bytes: element_size must be 4 or 8");
  }
}
