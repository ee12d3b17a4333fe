// src/scan_uint64.cu — host API scans of std::uint64_t.
#include "scan_instantiate.cuh"

SCANKIT_DEFINE_SCAN(std::uint64_t)
