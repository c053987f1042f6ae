// Registers the CUDA device as "cuda" when linked (the library is alwayslink).
#include "runtime/cuda/cuda_device.h"
#include "runtime/device_registry.h"

namespace tile_ir::runtime::cuda {
namespace {

const bool kRegistered = RegisterDeviceFactory("cuda", OpenCudaTarget).ok();

}  // namespace
}  // namespace tile_ir::runtime::cuda
