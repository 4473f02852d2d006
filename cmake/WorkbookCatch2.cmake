# Catch2 3 where the OS has it (Ubuntu 24.04), else Catch2 2.13 (Debian 12, Ubuntu 22.04).
# common/catch.h hides the difference; WB_CATCH2_MAJOR tells it which one it got.
find_package(Catch2 3 QUIET CONFIG)
if(Catch2_FOUND)
  set(WORKBOOK_CATCH2_MAJOR 3)
else()
  find_package(Catch2 2.13 QUIET CONFIG)
  if(NOT Catch2_FOUND)
    message(FATAL_ERROR
      "Catch2 was not found. Install it from your OS packages:\n"
      "  Debian/Ubuntu: sudo apt-get install catch2\n"
      "  Fedora:        sudo dnf install catch-devel\n"
      "or point CMake at an install with -DCatch2_DIR=<prefix>/lib/cmake/Catch2")
  endif()
  set(WORKBOOK_CATCH2_MAJOR 2)
endif()
message(STATUS "Workbook: Catch2 ${Catch2_VERSION} (shim major ${WORKBOOK_CATCH2_MAJOR})")
