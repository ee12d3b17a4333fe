// src/scan_policy_int32.cu — host API scans of std::int32_t with an explicit policy.
#include "scan_policy_instantiate.cuh"

SCANKIT_DEFINE_POLICY_SCAN(std::int32_t)
