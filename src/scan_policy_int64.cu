// src/scan_policy_int64.cu — host API scans of std::int64_t with an explicit policy.
#include "scan_policy_instantiate.cuh"

SCANKIT_DEFINE_POLICY_SCAN(std::int64_t)
