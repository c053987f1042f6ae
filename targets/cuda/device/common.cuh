// The device library the CUDA code generator's output includes: every tl::
// helper of the emitted code (docs/LOWERING.md, "The CUDA calling convention").
// Embedded in the binary and handed to NVRTC as "tl/<file>", with the headers
// shared with HIP (targets/c_source/device/) as "tl/portable/<file>"; written by us.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "tl/arith.cuh"
#include "tl/async_copy.cuh"
#include "tl/convert.cuh"
#include "tl/gemm_fma.cuh"
#include "tl/gemm_mma.cuh"
#include "tl/gemm_wgmma.cuh"
#include "tl/gemm_wgmma_rs.cuh"
#include "tl/math.cuh"
#include "tl/mbarrier.cuh"
#include "tl/tma.cuh"
#include "tl/memory.cuh"
#include "tl/warp_reduce.cuh"
