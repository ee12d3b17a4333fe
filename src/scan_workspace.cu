// src/scan_workspace.cu — workspace sizing for the scan host API.
#include <scankit/device/scan.cuh>
#include <scankit/scan.hpp>

#include <cstdint>
#include <stdexcept>

std::size_t scankit::scan_workspace_bytes(std::size_t n, std::size_t element_size) {
  switch (element_size) {
    case 4: return device::scan_workspace_bytes<std::uint32_t>(n);
    case 8: return device::scan_workspace_bytes<std::uint64_t>(n);
    default: throw std::invalid_argument("scankit::scan_workspace_bytes: element_size must be 4 or 8");
  }
}
