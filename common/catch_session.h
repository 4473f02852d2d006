// SPDX-License-Identifier: MIT
// The test binaries' Catch2 session (catch_session.cpp): runs the tests linked in with the command
// line's arguments. Exit: 0 all passed, 1 some failed.
#pragma once

namespace wb {

int run_catch_session(int argc, char** argv);

}  // namespace wb
