// src/scan_float.cu — host API scans of float.
#include "scan_instantiate.cuh"

SCANKIT_DEFINE_SCAN(float)
