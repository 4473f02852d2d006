// SPDX-License-Identifier: MIT
// Everything a lesson needs, in one include. (Catch2, cuBLAS and cuSPARSE stay out: include
// common/testing.h, common/check_cublas.h or common/check_cusparse.h where they are used.)
#pragma once

#include "common/args.h"
#include "common/buffer.h"
#include "common/check.h"
#include "common/data.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/lesson.h"
#include "common/report.h"
#include "common/timer.h"
#include "common/util.h"
#include "common/verify.h"
