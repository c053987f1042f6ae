/* libtile: the stable C API of the tile compiler, what other languages bind
 * to. Load a module (text, .tilepb or JSON), compile one of its kernels for a
 * target through the runtime's kernel cache (the one tile-run uses: memory,
 * then $TILE_CACHE_DIR on disk, then compile), and launch it on DLPack
 * tensors in host or device memory. Symbolic dimensions are bound from the
 * tensors' shapes; scalars are passed by value.
 *
 * Handles are opaque. Every function that can fail returns a tile_status;
 * on failure tile_last_error() holds a message naming what was wrong (the
 * kernel, the parameter, the expected and the given). Errors never abort.
 *
 * Compatibility: within one TILE_API_VERSION_MAJOR, functions are only
 * added, never changed or removed; check tile_api_version() at run time
 * against the header you compiled with. DLTensor and DLManagedTensor are
 * those of DLPack 0.6 to 1.x, whose layouts agree; bool and fp8 tensors
 * use DLPack 1.1's type codes (kDLBool 6, kDLFloat8_e4m3fn 10,
 * kDLFloat8_e5m2 12). */
#ifndef TILE_CAPI_TILE_H_
#define TILE_CAPI_TILE_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILE_API_VERSION_MAJOR 0
#define TILE_API_VERSION_MINOR 5
/* 0.1 is 1; 1.2 would be 10002. */
#define TILE_API_VERSION (TILE_API_VERSION_MAJOR * 10000 + TILE_API_VERSION_MINOR)

#if defined(__GNUC__)
#define TILE_API __attribute__((visibility("default")))
#else
#define TILE_API
#endif

/* The TILE_API_VERSION the library was built with. */
TILE_API int tile_api_version(void);

typedef enum {
  TILE_OK = 0,
  TILE_ERROR_INVALID_ARGUMENT = 1, /* a bad module, argument, tensor or name */
  TILE_ERROR_NOT_FOUND = 2,        /* a file, kernel or target that does not exist */
  TILE_ERROR_UNAVAILABLE = 3,      /* e.g. no GPU driver on this machine */
  TILE_ERROR_INTERNAL = 4          /* anything else: a compile or launch failure */
} tile_status;

/* The message of the last call on this thread that failed; "" when none
 * has. Valid until this thread's next failing call. */
TILE_API const char* tile_last_error(void);
/* "ok", "invalid argument", "not found", "unavailable", "internal". */
TILE_API const char* tile_status_name(tile_status status);

typedef enum {
  TILE_FORMAT_AUTO = 0,  /* strings: JSON if it starts with '{', else text
                            if it has no NUL byte, else protobuf; files: by
                            extension */
  TILE_FORMAT_TEXT = 1,  /* the text form, docs/TEXT_FORMAT.md (.tile) */
  TILE_FORMAT_PROTO = 2, /* binary protobuf, tile_ir.v1.Module (.tilepb) */
  TILE_FORMAT_JSON = 3   /* protobuf's JSON mapping of the same (.json) */
} tile_format;

typedef struct tile_module tile_module;
typedef struct tile_kernel tile_kernel;

/* Reads and verifies a module; older IR versions are upgraded, newer ones
 * refused. The file's format comes from its extension (.tile, .tilepb,
 * .json). On success *out owns a module the caller frees. */
TILE_API tile_status tile_module_load_file(const char* path, tile_module** out);
/* The same from `size` bytes at `data`; `source_name` (may be NULL) starts
 * every error message, as a file name would. */
TILE_API tile_status tile_module_load_string(const char* data, size_t size, tile_format format,
                                             const char* source_name, tile_module** out);
TILE_API void tile_module_free(tile_module* module);
TILE_API size_t tile_module_num_kernels(const tile_module* module);
/* The i-th kernel's name, NULL when out of range; valid while the module lives. */
TILE_API const char* tile_module_kernel_name(const tile_module* module, size_t i);
/* 1 when `name` may name a kernel, parameter, buffer or variable of a module (an identifier
 * of the text form that is not one of its keywords: "kernel", "copy", "f16", ...), else 0.
 * Frontends rename what is not (tile.language appends '_'). Since 0.4. */
TILE_API int tile_is_identifier(const char* name);

/* Compiles `kernel_name` for `target` ("cpu", "cuda", "cuda:sm_90a"; the
 * grammar of targets/target_name.h) through the kernel cache. The kernel does
 * not refer to the module afterwards. Kernels of one target share one device
 * and cache for the life of the process. A kernel whose dims size a fragment
 * (a whole row, `fragment f32[1, N]`) is compiled at each launch's values of
 * those dims instead (each specialization cached), since a thread's registers
 * are fixed when it is compiled; tile_kernel_cache_info says so. */
TILE_API tile_status tile_kernel_compile(const tile_module* module, const char* kernel_name,
                                         const char* target, tile_kernel** out);
TILE_API void tile_kernel_free(tile_kernel* kernel);
/* Valid while the kernel lives. */
TILE_API const char* tile_kernel_name(const tile_kernel* kernel);
/* "scale_add<N: i32>(X: f32[N], ..., alpha: f32, ...)": one line, for messages. */
TILE_API const char* tile_kernel_signature(const tile_kernel* kernel);
/* The kernel's canonical text, as compiled (before the target's passes). */
TILE_API const char* tile_kernel_ir(const tile_kernel* kernel);
/* "cache: compiled|disk|memory, key K": where the binary came from. */
TILE_API const char* tile_kernel_cache_info(const tile_kernel* kernel);
/* The source the target generates for the kernel (CUDA C++, HIP C++, MSL, LLVM IR), lowered by
 * the target's pipeline from the kernel as compiled. A kernel compiled per call (its dims size
 * fragments or are classed by divisibility) has its source per call; this is the source at no
 * call's values. Made on the first request (a lowering, no compile); valid while the kernel
 * lives. NULL when the target cannot lower it (tile_last_error says why). Since 0.4. */
TILE_API const char* tile_kernel_source(tile_kernel* kernel);
/* What may make the kernel silently compute a wrong answer, one line each, "FILE:LINE:COL:
 * kernel 'K': MESSAGE" ("" when nothing): today the reductions that may combine the zeros a
 * copy padded a tile with past a tensor's edge (passes/analysis/padded_reductions.h;
 * docs/TEXT_FORMAT.md "Edges"). Frontends show them by default (tile.compile warns with
 * tile.remarks.PaddingRemark). Made on the first request; valid while the kernel lives; NULL
 * only for a NULL kernel. Since 0.5. */
TILE_API const char* tile_kernel_remarks(tile_kernel* kernel);
TILE_API size_t tile_kernel_num_params(const tile_kernel* kernel);
/* The i-th parameter's name and whether it is a buffer (1) or a scalar (0);
 * NULL and -1 when out of range. */
TILE_API const char* tile_kernel_param_name(const tile_kernel* kernel, size_t i);
TILE_API int tile_kernel_param_is_buffer(const tile_kernel* kernel, size_t i);

/* One launch argument, in parameter order: a tensor for a buffer parameter,
 * a number for a scalar one, converted to its dtype: an integer dtype takes
 * an integral value in its range (else the launch is refused naming the
 * parameter and the range), a float dtype the nearest value. A double holds
 * integers exactly only up to 2^53: pass integers as TILE_ARG_INT (since
 * 0.3), exact for every integer dtype. The tensor stays the caller's: a
 * launch neither keeps it nor calls a DLManagedTensor's deleter. */
typedef enum { TILE_ARG_TENSOR = 0, TILE_ARG_SCALAR = 1, TILE_ARG_INT = 2 } tile_arg_kind;
typedef struct {
  tile_arg_kind kind;
  const DLTensor* tensor; /* TILE_ARG_TENSOR */
  /* One of the two, by kind; the union keeps 0.2's size and layout. */
#if defined(__GNUC__) && !defined(__cplusplus)
  __extension__ /* an anonymous union is C11's; C99 compilers of GCC's family accept it */
#endif
  union {
    double scalar;   /* TILE_ARG_SCALAR */
    int64_t integer; /* TILE_ARG_INT, since 0.3 */
  };
} tile_arg;

static inline tile_arg tile_arg_tensor(const DLTensor* tensor) {
  tile_arg arg = {TILE_ARG_TENSOR, tensor, {0.0}};
  return arg;
}
static inline tile_arg tile_arg_managed(const DLManagedTensor* tensor) {
  tile_arg arg = {TILE_ARG_TENSOR, tensor ? &tensor->dl_tensor : NULL, {0.0}};
  return arg;
}
static inline tile_arg tile_arg_scalar(double value) {
  tile_arg arg = {TILE_ARG_SCALAR, NULL, {value}};
  return arg;
}
/* Since 0.3: an integer scalar, exact (a double rounds above 2^53). */
static inline tile_arg tile_arg_int(int64_t value) {
  tile_arg arg = {TILE_ARG_INT, NULL, {0.0}};
  arg.integer = value;
  return arg;
}

/* Checks every argument against the signature (count, device, dtype, rank,
 * shape, dense row-major strides unless the parameter declares its own,
 * alignment, the kernel's `require` lines), binds the symbolic dimensions
 * from the shapes, runs the kernel and waits for it. Safe to call from
 * several threads at once. */
TILE_API tile_status tile_kernel_launch(tile_kernel* kernel, const tile_arg* args, size_t num_args);

/* Since 0.2. The same checks, then the kernel is started on `stream` and the
 * call returns without waiting: a CUstream of the device's primary context on
 * CUDA (a framework's current stream, so the launch is ordered with the
 * framework's own work), NULL for the default stream. An error of the
 * kernel's execution surfaces at the next synchronization of that stream, as
 * with any asynchronous launch. The tensors must stay alive until the kernel
 * has run. On devices whose kernels run on the host (the CPU) `stream` is
 * ignored and the call returns when the kernel is done. */
TILE_API tile_status tile_kernel_launch_async(tile_kernel* kernel, const tile_arg* args,
                                              size_t num_args, void* stream);

/* Autotuning (since 0.4): the runtime's autotuner (runtime/jit/autotuner.h) over candidates a
 * caller builds. `build` gives candidate i's module (the caller keeps ownership; libtile
 * copies what it needs), called once per candidate on the calling thread; every candidate that
 * builds is compiled through the target's kernel cache on `parallel_compiles` threads (0: the
 * hardware's); then, one at a time on the calling thread, `check_and_time` gets each compiled
 * kernel (a handle valid during the call only: do not free it) and checks it against the
 * caller's reference, writing the seconds it takes or returning an error (a wrong answer is an
 * error: the candidate is refused). The fastest candidate that passed is stored in the cache
 * as a record keyed by every candidate's kernel text, `problem` and the target's compile
 * context, so a later tile_autotune of the same candidates returns it without building or
 * timing anything again (unless `retune`). A callback's error message goes in `*error`
 * (valid until the callback is called again; NULL for none). */
typedef tile_status (*tile_autotune_build_fn)(void* user, size_t candidate, tile_module** module,
                                              const char** error);
typedef tile_status (*tile_autotune_time_fn)(void* user, size_t candidate, tile_kernel* kernel,
                                             double* seconds, const char** error);
typedef struct {
  const char* target;      /* as tile_kernel_compile's */
  const char* kernel_name; /* the kernel of every candidate's module */
  size_t num_candidates;
  tile_autotune_build_fn build;
  tile_autotune_time_fn check_and_time;
  void* user;              /* given to both callbacks */
  const char* problem;     /* what else the choice depends on ("M=512,N=512"); may be NULL */
  int parallel_compiles;   /* 0: the hardware's threads */
  int retune;              /* 1: ignore a stored choice */
} tile_autotune_request;
/* The chosen candidate's index in `*best`, and in `*report` (free it with tile_string_free)
 * the evidence, one line each: "best candidate=I", "device ...", "date ...", "from_cache 0|1"
 * and "candidate candidate=I SECONDS" or "candidate candidate=I error MESSAGE". Fails
 * (FailedPrecondition, every candidate's error in the message) when none passed. */
TILE_API tile_status tile_autotune(const tile_autotune_request* request, size_t* best,
                                   char** report);
TILE_API void tile_string_free(char* text);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TILE_CAPI_TILE_H_ */
