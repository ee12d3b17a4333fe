// src/scan_uint32.cu — host API scans of std::uint32_t.
#include "scan_instantiate.cuh"

SCANKIT_DEFINE_SCAN(std::uint32_t)
