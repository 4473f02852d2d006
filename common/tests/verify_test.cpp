// SPDX-License-Identifier: MIT
#include "common/testing.h"
