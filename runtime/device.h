// OpenDevice with every device linked in: //runtime:device brings the
// registry plus the CPU and CUDA registrations. Binaries that must not link
// LLVM (the GPU machine's) depend on //runtime:device_registry and the
// registrations they want instead.
#ifndef RUNTIME_DEVICE_H_
#define RUNTIME_DEVICE_H_

#include "runtime/device_registry.h"  // IWYU pragma: export

#endif  // RUNTIME_DEVICE_H_
