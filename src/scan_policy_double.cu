// src/scan_policy_double.cu — host API scans of double with an explicit policy.
#include "scan_policy_instantiate.cuh"

SCANKIT_DEFINE_POLICY_SCAN(double)
