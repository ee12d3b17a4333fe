// src/scan_policy_float.cu — host API scans of float with an explicit policy.
#include "scan_policy_instantiate.cuh"

SCANKIT_DEFINE_POLICY_SCAN(float)
