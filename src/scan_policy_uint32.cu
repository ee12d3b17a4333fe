// src/scan_policy_uint32.cu — host API scans of std::uint32_t with an explicit policy.
#include "scan_policy_instantiate.cuh"

SCANKIT_DEFINE_POLICY_SCAN(std::uint32_t)
