// SPDX-License-Identifier: MIT
// The one Catch2 include for every test: Catch2 3 (Ubuntu 24.04) or Catch2 2.13 (Debian 12,
// Ubuntu 22.04), chosen by CMake through WB_CATCH2_MAJOR. Host .cpp files only: nvcc does not
// parse Catch2. Tests use TEST_CASE, SECTION, REQUIRE/CHECK, INFO/CAPTURE, FAIL, GENERATE and
// Catch::Generators::from_range, which both versions spell the same way.
#pragma once

#if !defined(WB_CATCH2_MAJOR)
#error "WB_CATCH2_MAJOR is not set: link the workbook_testing target"
#endif

#if WB_CATCH2_MAJOR >= 3
#include <catch2/catch_test_macros.hpp>
#include <catch2/catch_tostring.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <catch2/generators/catch_generators_range.hpp>
#if defined(WB_CATCH_MAIN)
#include <catch2/catch_session.hpp>
#endif
#else
#if defined(WB_CATCH_MAIN)
#define CATCH_CONFIG_RUNNER
#endif
#include <catch2/catch.hpp>
#endif
