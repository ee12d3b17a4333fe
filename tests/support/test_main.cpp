// tests/support/test_main.cpp — Catch2 main shared by every test binary.
//
// Detects a CUDA device. Without one it runs every test not tagged [gpu] and
// prints one line with the number of GPU test cases that did not run; when the
// selection held only GPU tests it exits with code 4, which CTest reports as
// "skipped" (SKIP_RETURN_CODE). The random seed is printed so any run can be
// reproduced with --rng-seed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <random>
#include <string>

namespace {

bool has_cuda_device() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) cudaGetLastError();
  return status == cudaSuccess && count > 0;
}

bool is_gpu_test(const Catch::TestCase& test) {
  for (const auto& tag : test.getTestCaseInfo().tags)
    if (tag == "gpu") return true;
  return false;
}

}  // namespace

int main(int argc, char* argv[]) {
  Catch::Session session;
  if (int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  auto& data = session.configData();
  if (data.rngSeed == 0) {
    data.rngSeed = static_cast<unsigned>(std::random_device{}());
    session.useConfigData(data);
  }
  if (!data.listTests && !data.listTestNamesOnly && !data.listTags)
    std::printf("scankit tests: random seed %u (reproduce with --rng-seed %u)\n", data.rngSeed, data.rngSeed);

  if (has_cuda_device() || data.listTests || data.listTestNamesOnly || data.listTags) return session.run();

  // No GPU: run the selected tests that are not [gpu], named one by one.
  const auto& selected = Catch::filterTests(Catch::getAllTestCasesSorted(session.config()),
                                            session.config().testSpec(), session.config());
  std::size_t gpu_tests = 0;
  std::string host_tests;
  for (const auto& test : selected) {
    if (is_gpu_test(test)) {
      ++gpu_tests;
      continue;
    }
    if (!host_tests.empty()) host_tests += ',';
    for (char c : test.getTestCaseInfo().name) {
      if (std::string(",[]~*\\\"").find(c) != std::string::npos) host_tests += '\\';
      host_tests += c;
    }
  }
  std::printf("scankit tests: no CUDA device found: %zu GPU test case(s) not run\n", gpu_tests);
  if (host_tests.empty()) return gpu_tests > 0 ? 4 : 0;  // 4: CTest reports "skipped"
  data.testsOrTags = {host_tests};
  session.useConfigData(data);
  return session.run();
}
