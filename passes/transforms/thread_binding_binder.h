// Internal to the thread-binding library: the rewriter that binds a block's statements when
// several threads execute it. Its methods are split by concern over
// thread_binding_statements.cc (statements outside parallel loops, fragment accesses, shared
// mirrors), thread_binding_owner_nests.cc (nests that touch fragments, each element on its
// owner thread) and thread_binding_register_nests.cc (the fast form of those nests, each
// thread walking its own registers).
#ifndef PASSES_TRANSFORMS_THREAD_BINDING_BINDER_H_
#define PASSES_TRANSFORMS_THREAD_BINDING_BINDER_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "passes/analysis/fragment_threads.h"
#include "passes/transforms/thread_binding_internal.h"
#include "passes/transforms/thread_binding_placement.h"
#include "passes/utils/fresh_names.h"
#include "tile_ir/module.h"
#include "tile_ir/mutator.h"

namespace tile_ir::passes::thread_binding {

// The indices as i32, the type layouts compute in.
std::vector<Expr> ToI32(const std::vector<Expr>& indices);

// The thread that holds `fragment`'s element at `indices` (for a replicated layout an
// expression of its replica variable), and its register there.
Expr Owner(const Fragment& fragment, const std::vector<Expr>& indices);

// `e` with `from` replaced by `to`.
Expr SubstituteVar(const Expr& e, const Var* from, const Expr& to);

// Whether, at every point of `domain`, some replica of a replicated `layout` whose thread at
// the accessed element is `thread` (an expression of its replica) is the thread `owner`.
bool HeldByOneReplica(const Expr& owner, const Expr& thread, const Layout& layout,
                      const std::vector<VarRange>& domain);
Expr Register(const Fragment& fragment, const std::vector<Expr>& indices);

// A fragment passed whole to a target intrinsic: target intrinsics carry their target's
// prefix ("cuda.gemm_ss"; tile_ir/intrinsics.h) and take a load argument as an address, so a
// fragment argument stands for the fragment itself, in each thread its own registers (a
// tensor-core gemm's accumulator). These are the loads of `node` in that position.
std::vector<const BufferLoad*> FragmentsPassedWhole(const Expr& node);
std::vector<const BufferLoad*> FragmentsPassedWhole(const Stmt& node);

// T > 1. Bind() rewrites statements outside parallel loops; the nest methods rewrite a
// parallel nest; the Mutate overrides move fragment accesses to registers.
class Binder : public IRMutator {
 public:
  Binder(const KernelNode& kernel, int64_t threads, FragmentMap fragments, Expr thread,
         int vector_bytes, int warp_size, FreshNames& names,
         std::vector<std::string>* remarks = nullptr)
      : remarks_(remarks),
        kernel_(kernel),
        threads_(threads),
        fragments_(std::move(fragments)),
        thread_(std::move(thread)),
        vector_bytes_(vector_bytes),
        warp_size_(warp_size),
        names_(names) {}

  const absl::Status& status() const { return status_; }

  // The shared mirrors of fragments that other threads read, in order of creation.
  const std::vector<Buffer>& mirrors() const { return mirror_list_; }

  // Bind() with the mirror fills it asked for in front.
  Stmt BindWithFills(const Stmt& s);
  Stmt Bind(const Stmt& s);

 protected:
  Expr MutateBufferLoad(const BufferLoad& node, const Expr& self) override;
  Stmt MutateStore(const Store& node, const Stmt& self) override;
  Stmt MutateAllocate(const Allocate& node, const Stmt& self) override;

 private:
  // thread_binding_statements.cc
  Stmt Fail(const Stmt& s, std::string_view message);
  // A fragment that threads other than an element's owner read is mirrored in shared
  // memory: before the statement that reads it, each owner stores its elements there (the
  // barrier after that is insert-barriers' to place), and the reads go to the mirror.
  // `site` is the statement that reads it, for the remark (PassOptions::Remark) that says so.
  void RequestMirror(const BufferNode* fragment, const Stmt& site);
  std::vector<std::string>* const remarks_;
  // `e`, which every thread evaluates (in statement `site`), with its fragment reads going
  // to mirrors, except fragments passed whole to target intrinsics: each thread passes its
  // own registers, `F[0, ...]` becoming `F_local[0]`.
  Expr ReadViaMirrors(const Expr& e, const Stmt& site);
  // The statements that fill the mirrors requested since the last call.
  std::vector<Stmt> TakeFills();

  // thread_binding_register_nests.cc
  // The fast form of a nest that touches fragments (nullopt where it does not apply, and the
  // generic form of Nest() follows): a perfect nest of parallel loops over a constant box
  // whose body holds no parallel loop, where every fragment access of an element sits on
  // the thread that the first fragment store (or else load) places the element on, and that
  // placement, an injective map from the box to (thread t, register r), reads back as
  // linear index = A * t + B[r] (A >= 0, B increasing, so each thread visits its elements
  // in the order the nest did). Each thread then walks its own registers:
  //   for r in 0 +: R unrolled { let e = A * tx + B_r; [if (e < total)] { let i = ...; BODY } }
  // with B_r = B0 + r * D where B is an arithmetic progression, a select chain over r
  // otherwise (R <= kMaxUnrolled), and register indices r (or a function of r) where an
  // access's register depends on r alone. Where the placement is not of that form but
  // separable and bit-linear in the thread (FindSeparable), the loop is SeparableNest's.
  // `site` is `root` as a statement.
  std::optional<Stmt> RegisterNest(const For& root, const Stmt& site);
  // The affine form's loop over the rounds, register overrides and mirrors already set up.
  Stmt AffineNest(const For& root, const ParallelBox& box, const AffinePlacement& form,
                  int64_t registers, const Stmt& body, const VarRef& round, const Expr& thread,
                  bool registers_known);
  // The separable form: `for r in 0 +: R unrolled { let i = P_i(tx) + Q_i(r); ...;
  // [if (in the box)] { BODY } }`, register overrides and mirrors already set up.
  // `registers_known`: every fragment access found its register as a function of the round.
  Stmt SeparableNest(const For& root, const ParallelBox& box, const Separable& form,
                     const Stmt& body, const VarRef& round, const Expr& thread,
                     bool registers_known);
  // thread_binding_vector_runs.cc
  // The longest vector run the body allows (the target's vector width for the widest element
  // it touches), with each fragment access's register for every round in `access_registers`;
  // nullopt where the body is not one store, touches only registers, or an access's register
  // is not a function of the round.
  std::optional<int64_t> VectorRunLimit(const Stmt& body, int64_t registers, const VarRef& round,
                                        std::vector<std::vector<int64_t>>* access_registers) const;
  // Registers of the fast body's accesses that stay put along each run of `run` rounds are
  // rewritten to the run's start (`run_start`, an expression of the run's variable).
  void PinRunConstantRegisters(const VarRef& round, const Expr& run_start, int64_t run,
                               int64_t registers);
  // The affine form's runs: V consecutive registers at consecutive elements from a multiple
  // of V (A and the run starts multiples of V, the innermost extent too), so a run stays in
  // one row; 1 where there are none or the walk needs its guard.
  int64_t VectorRunLength(const ParallelBox& box, const AffinePlacement& form, int64_t registers,
                          const Stmt& body, const VarRef& round) const;
  // The affine walk one run per step: `for run in 0 +: R / V unrolled { let e = A * tx +
  // B[V * run]; let i = ...; for lane in 0 +: V vectorized { BODY[j := (e % J) + lane] } }`.
  Stmt VectorRunNest(const For& root, const ParallelBox& box, const AffinePlacement& form,
                     int64_t registers, const Stmt& body, const VarRef& round, const Expr& thread,
                     int64_t run);
  // The length V (a power of two, at most the target's vector width for the widest element
  // the body touches) of the runs in which the separable walk's registers hold neighbouring
  // elements of the last dimension, with every fragment access's register stepping by one
  // along a run or staying (a row vector read in each element); 1 where there are none, the box
  // needs guards, the body is not one store or touches only registers.
  int64_t VectorRunLength(const ParallelBox& box, const Separable& form, const Stmt& body,
                          const VarRef& round) const;
  // The separable walk one run per step: `for run in 0 +: R / V unrolled { let i = P_i(tx) +
  // Q_i(V * run); for lane in 0 +: V vectorized { BODY[j := P_j(tx) + Q_j(V * run) + lane] } }`.
  Stmt VectorRunNest(const For& root, const ParallelBox& box, const Separable& form,
                     const Stmt& body, const VarRef& round, const Expr& thread, int64_t run);
  // The body of a fast-form nest with its fragment accesses rewritten, as a list of
  // statements; the register overrides and mirror reads are spent.
  std::vector<Stmt> RewriteFastBody(const Stmt& body);

  // thread_binding_lane_reduce.cc
  // A reduce that lower-tile-ops left because its fragments' layouts admit a lane reduction
  // (PlanLaneReduction): straight-line code that every thread runs, combining its own
  // registers of each row, then one shuffle step per lane mask; nullopt where the plan does
  // not apply.
  std::optional<Stmt> LaneReduce(const Reduce& op);

  // thread_binding_owner_nests.cc
  // A nest that touches fragments, at the statement level: the fragments it reads through
  // mirrors are filled before it, so it must not write them.
  Stmt Nest(const Stmt& s);
  // A statement of a nest that touches fragments and holds parallel loops: parallel loops
  // become serial ones that every thread walks.
  Stmt InNest(const Stmt& s);
  // Splits a block into runs without parallel loops, each executed by one thread (or all).
  // A loop or if whose owner thread depends on a variable it binds is a nest level too.
  Stmt GuardBlock(const Stmt& s);
  // Whether `s` is a loop or an if whose first fragment store (else load), which ChooseOwner
  // would take for the owner of a run holding it, lives on a thread that depends on a variable
  // bound inside `s` (a vectorized loop over a fragment's row): a guard around `s` could not
  // name that thread, so the guards go inside.
  bool OwnerBoundInside(const Stmt& s) const;
  // Lets that read no fragment go first, unguarded; the rest runs on its owner thread.
  void EmitRun(std::vector<Stmt> run, const std::vector<Stmt>& later, std::vector<Stmt>* out);
  // `stmts` (without parallel loops) on the thread that must execute them.
  Stmt Guarded(std::vector<Stmt> stmts, const Stmt& site);
  // The thread that executes statements with these fragment accesses: the one that holds
  // the elements they write (all on one thread), or else those of their first read. Reads
  // of elements held elsewhere go through mirrors (marked in via_mirror_).
  std::optional<Expr> ChooseOwner(const Contents& contents, const Stmt& site);

  const KernelNode& kernel_;
  const int64_t threads_;
  const FragmentMap fragments_;
  const Expr thread_;
  const int vector_bytes_;
  const int warp_size_;
  FreshNames& names_;
  absl::flat_hash_map<const BufferNode*, Buffer> mirrors_;
  std::vector<Buffer> mirror_list_;
  // Mirrors to fill before the statement being bound, and the fragment loads that the
  // statement being rewritten takes from mirrors.
  std::vector<const BufferNode*> fills_;
  absl::flat_hash_set<const BufferLoad*> via_mirror_;
  // The fragment loads of the expression being rewritten that pass fragments whole.
  absl::flat_hash_set<const BufferLoad*> passed_whole_;
  // Register indices of fragment accesses (loads and stores of the original body) that the
  // fast nest form fixes.
  absl::flat_hash_map<const void*, Expr> register_override_;
  // Enclosing loops of the current nest with constant bounds.
  std::vector<VarRange> loops_;
  // The replica of the run Guarded is binding, when the run writes a replicated fragment:
  // its statements then run on every thread that holds a copy.
  struct Replica {
    VarRef var;
    int64_t count = 0;
  };
  Replica owner_replica_;
  absl::Status status_;
};

}  // namespace tile_ir::passes::thread_binding

#endif  // PASSES_TRANSFORMS_THREAD_BINDING_BINDER_H_
