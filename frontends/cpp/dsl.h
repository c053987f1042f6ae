// The C++ embedded API for writing tile kernels (TileLang's surface in C++).
// Include this one header; see frontends/cpp/README.md for a walk-through.
#ifndef FRONTENDS_CPP_DSL_H_
#define FRONTENDS_CPP_DSL_H_

#include "frontends/cpp/builder.h"
#include "frontends/cpp/control.h"
#include "frontends/cpp/expr_handle.h"
#include "frontends/cpp/tensor.h"
#include "frontends/cpp/tile_ops.h"

#endif  // FRONTENDS_CPP_DSL_H_
