// tests/support/rejection.hpp — the bad-argument check the host tests share:
// a call must throw std::invalid_argument naming the scankit function.
#pragma once

#include <catch2/catch.hpp>

#include <exception>
#include <stdexcept>
#include <string>

namespace sktest {

/// f() must throw std::invalid_argument whose message contains `call`.
template <class F>
void expect_invalid_argument(F&& f, const char* call) {
  try {
    f();
    FAIL_CHECK("no exception; expected std::invalid_argument from " << call);
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains(call));
  } catch (const std::exception& e) {
    FAIL_CHECK("expected std::invalid_argument from " << call << ", got: " << e.what());
  }
}

}  // namespace sktest
