// SPDX-License-Identifier: MIT
// The main() of every lesson executable: the lesson itself is registered by WB_LESSON.
#include "common/lesson.h"

int main(int argc, char** argv) {
  return wb::lesson_main(argc, argv);
}
