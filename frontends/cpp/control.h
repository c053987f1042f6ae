// Loops, branches and scalar bindings of the C++ embedded API. Bodies are
// lambdas that receive the loop variables:
//   parallel(128, 64, [&](E i, E j) { C_l(i, j) = C_l(i, j) * scale; });
//   pipelined(ceildiv(K, 32), /*num_stages=*/3, [&](E k) { ... });
#ifndef FRONTENDS_CPP_CONTROL_H_
#define FRONTENDS_CPP_CONTROL_H_

#include <functional>
#include <source_location>
#include <string>
#include <vector>

#include "frontends/cpp/expr_handle.h"
#include "tile_ir/stmt.h"

namespace tile_ir::dsl {

using std::source_location;
using Body1 = std::function<void(E)>;
using Body2 = std::function<void(E, E)>;
using Body3 = std::function<void(E, E, E)>;

// Element-wise loop nests over tiles; layout inference maps them to threads.
void parallel(E extent, const Body1& body, source_location loc = source_location::current());
void parallel(E extent0, E extent1, const Body2& body,
              source_location loc = source_location::current());
void parallel(E extent0, E extent1, E extent2, const Body3& body,
              source_location loc = source_location::current());

void serial(E extent, const Body1& body, source_location loc = source_location::current());
// A serial loop from `min` for `extent` iterations.
void serial_range(E min, E extent, const Body1& body,
                  source_location loc = source_location::current());
void unrolled(E extent, const Body1& body, source_location loc = source_location::current());
void vectorized(E extent, const Body1& body, source_location loc = source_location::current());

struct PipelineOptions {
  int num_stages = 2;
  std::vector<int> order;  // optional: per body statement, its issue order
  std::vector<int> stage;  // optional: per body statement, its stage
};
// A software-pipelined loop: copies of later iterations overlap compute.
void pipelined(E extent, int num_stages, const Body1& body,
               source_location loc = source_location::current());
void pipelined(E extent, PipelineOptions options, const Body1& body,
               source_location loc = source_location::current());

void if_then(E cond, const std::function<void()>& then_body,
             source_location loc = source_location::current());
void if_then_else(E cond, const std::function<void()>& then_body,
                  const std::function<void()>& else_body,
                  source_location loc = source_location::current());

// Binds a named value for the rest of the current block and returns it.
E let(const std::string& name, E value, source_location loc = source_location::current());

void barrier(source_location loc = source_location::current());
// Evaluates an intrinsic call for its effect.
void evaluate(E call, source_location loc = source_location::current());

}  // namespace tile_ir::dsl

#endif  // FRONTENDS_CPP_CONTROL_H_
