// The device library the HIP code generator's output includes: every tl::
// helper of the emitted code (docs/LOWERING.md, "The HIP calling convention").
// Embedded in the binary and written beside the source for hipcc as
// "tl/<file>", with the headers shared with CUDA (targets/c_source/device/) as
// "tl/portable/<file>"; written by us.
#pragma once

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include "tl/arith.h"
#include "tl/convert.h"
#include "tl/gemm_mfma.h"
#include "tl/math.h"
#include "tl/memory.h"
#include "tl/wave_reduce.h"
