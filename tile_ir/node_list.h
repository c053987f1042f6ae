// The one list of IR node kinds. Adding a node means adding it here; every
// switch, visitor and mutator is generated from or checked against these lists.
#ifndef TILE_IR_NODE_LIST_H_
#define TILE_IR_NODE_LIST_H_

// X(Name): one entry per expression node class.
#define TILE_IR_FOR_EACH_EXPR(X) \
  X(IntImm)                      \
  X(FloatImm)                    \
  X(Var)                         \
  X(Unary)                       \
  X(Binary)                      \
  X(Cast)                        \
  X(Select)                      \
  X(BufferLoad)                  \
  X(Call)                        \
  X(Ramp)                        \
  X(Broadcast)

// X(Name): one entry per statement node class. The last six are tile operations.
#define TILE_IR_FOR_EACH_STMT(X) \
  X(Seq)                         \
  X(For)                         \
  X(If)                          \
  X(Let)                         \
  X(Allocate)                    \
  X(Store)                       \
  X(Barrier)                     \
  X(Evaluate)                    \
  X(Copy)                        \
  X(Gemm)                        \
  X(Fill)                        \
  X(Reduce)                      \
  X(AtomicAdd)                   \
  X(Cumsum)

#endif  // TILE_IR_NODE_LIST_H_
