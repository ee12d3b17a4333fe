// src/scan_policy_uint64.cu — host API scans of std::uint64_t with an explicit policy.
#include "scan_policy_instantiate.cuh"

SCANKIT_DEFINE_POLICY_SCAN(std::uint64_t)
