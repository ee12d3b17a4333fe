// src/scan_double.cu — host API scans of double.
#include "scan_instantiate.cuh"

SCANKIT_DEFINE_SCAN(double)
