// src/scan_int32.cu — host API scans of std::int32_t.
#include "scan_instantiate.cuh"

SCANKIT_DEFINE_SCAN(std::int32_t)
