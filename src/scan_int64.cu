// src/scan_int64.cu — host API scans of std::int64_t.
#include "scan_instantiate.cuh"

SCANKIT_DEFINE_SCAN(std::int64_t)
