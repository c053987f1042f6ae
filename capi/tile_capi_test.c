/* libtile from C on the CPU target: load, compile, launch on host DLTensors
 * against a reference computed here, and every bad input a caller can make,
 * each answered by an error whose message names the problem. Plain C99: this
 * is what a binding in another language sees. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi/tile.h"

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* A failed call: its status and a last error that contains `needle`. */
static void expect_error(tile_status got, tile_status want, const char* needle, int line) {
  const char* message = tile_last_error();
  if (got != want) {
    fprintf(stderr, "line %d: status %s, wanted %s (last error: %s)\n", line, tile_status_name(got),
            tile_status_name(want), message);
    ++failures;
    return;
  }
  if (strstr(message, needle) == NULL) {
    fprintf(stderr, "line %d: the error does not contain \"%s\":\n  %s\n", line, needle, message);
    ++failures;
    return;
  }
  printf("refused as expected: %s\n", message);
}
#define EXPECT_ERROR(call, status, needle) expect_error((call), (status), (needle), __LINE__)

enum { N = 100 }; /* not a multiple of the kernel's 64-element tile */

static DLTensor vector_f32(float* data, int64_t* shape) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = 1;
  t.dtype.code = kDLFloat;
  t.dtype.bits = 32;
  t.dtype.lanes = 1;
  t.shape = shape;
  return t;
}

static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* data = malloc((size_t)n + 1);
  *size = fread(data, 1, (size_t)n, f);
  data[*size] = '\0';
  fclose(f);
  return data;
}

int main(void) {
  CHECK(tile_api_version() == TILE_API_VERSION);
  CHECK(strcmp(tile_last_error(), "") == 0);

  tile_module* module = NULL;
  tile_status status = tile_module_load_file("capi/testdata/scale_add.tile", &module);
  if (status != TILE_OK) {
    fprintf(stderr, "load: %s\n", tile_last_error());
    return 1;
  }
  CHECK(tile_module_num_kernels(module) == 1);
  CHECK(strcmp(tile_module_kernel_name(module, 0), "scale_add") == 0);
  CHECK(tile_module_kernel_name(module, 1) == NULL);

  tile_kernel* kernel = NULL;
  status = tile_kernel_compile(module, "scale_add", "cpu", &kernel);
  if (status != TILE_OK) {
    fprintf(stderr, "compile: %s\n", tile_last_error());
    return 1;
  }
  printf("signature: %s\n%s\n", tile_kernel_signature(kernel), tile_kernel_cache_info(kernel));
  CHECK(strstr(tile_kernel_signature(kernel), "scale_add<N: i32>(X: f32[N]") != NULL);
  CHECK(strstr(tile_kernel_ir(kernel), "Z_l[i] = alpha * X_l[i] + Y_l[i];") != NULL);
  CHECK(tile_kernel_num_params(kernel) == 4);
  CHECK(strcmp(tile_kernel_param_name(kernel, 2), "alpha") == 0);
  CHECK(tile_kernel_param_is_buffer(kernel, 2) == 0);
  CHECK(tile_kernel_param_is_buffer(kernel, 3) == 1);
  CHECK(tile_kernel_param_is_buffer(kernel, 4) == -1);

  float x[N], y[N], z[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i / 8 - 3;
    y[i] = (float)(i % 7) * 0.25f;
    z[i] = NAN;
  }
  int64_t shape[1] = {N};
  DLTensor tx = vector_f32(x, shape), ty = vector_f32(y, shape), tz = vector_f32(z, shape);
  DLManagedTensor managed_z;
  memset(&managed_z, 0, sizeof(managed_z));
  managed_z.dl_tensor = tz;
  tile_arg args[4] = {tile_arg_tensor(&tx), tile_arg_tensor(&ty), tile_arg_scalar(1.5),
                      tile_arg_managed(&managed_z)};
  status = tile_kernel_launch(kernel, args, 4);
  if (status != TILE_OK) fprintf(stderr, "launch: %s\n", tile_last_error());
  CHECK(status == TILE_OK);
  int wrong = 0;
  for (int i = 0; i < N; ++i) {
    double want = 1.5 * (double)x[i] + (double)y[i];
    if (!(fabs(z[i] - want) <= 1e-6 + 1e-6 * fabs(want))) {
      if (wrong++ < 5) fprintf(stderr, "z[%d] = %g, want %g\n", i, z[i], want);
    }
  }
  CHECK(wrong == 0);

  /* The asynchronous launch: on the CPU it returns with the kernel done, the stream ignored. */
  for (int i = 0; i < N; ++i) z[i] = NAN;
  managed_z.dl_tensor = tz;
  status = tile_kernel_launch_async(kernel, args, 4, NULL);
  if (status != TILE_OK) fprintf(stderr, "launch_async: %s\n", tile_last_error());
  CHECK(status == TILE_OK);
  for (int i = 0; i < N; ++i) {
    double want = 1.5 * (double)x[i] + (double)y[i];
    if (!(fabs(z[i] - want) <= 1e-6 + 1e-6 * fabs(want))) {
      if (wrong++ < 5) fprintf(stderr, "async z[%d] = %g, want %g\n", i, z[i], want);
    }
  }
  CHECK(wrong == 0);

  /* Names the IR takes, and keywords of its text form that it does not. */
  CHECK(tile_is_identifier("A_shared") == 1);
  CHECK(tile_is_identifier("kernel") == 0 && tile_is_identifier("f16") == 0);
  CHECK(tile_is_identifier("") == 0 && tile_is_identifier(NULL) == 0);

  /* The target's source of the kernel (LLVM IR on the CPU), made on request and kept. */
  const char* source = tile_kernel_source(kernel);
  CHECK(source != NULL && strstr(source, "scale_add") != NULL);
  CHECK(tile_kernel_source(kernel) == source);

  /* A second compile of the same kernel is found in the cache's memory. */
  tile_kernel* again = NULL;
  CHECK(tile_kernel_compile(module, "scale_add", "cpu", &again) == TILE_OK);
  CHECK(strstr(tile_kernel_cache_info(again), "cache: memory") != NULL);
  tile_kernel_free(again);

  /* The same module from a string: as text, and with the format guessed. */
  size_t size = 0;
  char* text = read_file("capi/testdata/scale_add.tile", &size);
  CHECK(text != NULL);
  tile_module* from_string = NULL;
  CHECK(tile_module_load_string(text, size, TILE_FORMAT_TEXT, "mine.tile", &from_string) ==
        TILE_OK);
  tile_module_free(from_string);
  CHECK(tile_module_load_string(text, size, TILE_FORMAT_AUTO, NULL, &from_string) == TILE_OK);
  tile_module_free(from_string);
  free(text);

  /* Bad tensors: each launch is refused naming the parameter and the mismatch. */
  double x64[N];
  DLTensor t64 = vector_f32((float*)x64, shape);
  t64.dtype.bits = 64;
  args[0] = tile_arg_tensor(&t64);
  EXPECT_ERROR(tile_kernel_launch(kernel, args, 4), TILE_ERROR_INVALID_ARGUMENT,
               "argument 1 ('X'): expected f32, got f64");

  int64_t shape2d[2] = {10, 10};
  DLTensor t2d = vector_f32(x, shape2d);
  t2d.ndim = 2;
  args[0] = tile_arg_tensor(&t2d);
  EXPECT_ERROR(tile_kernel_launch(kernel, args, 4), TILE_ERROR_INVALID_ARGUMENT,
               "argument 1 ('X'): expected rank 1");

  int64_t shape99[1] = {N - 1};
  DLTensor t99 = vector_f32(y, shape99);
  args[0] = tile_arg_tensor(&tx);
  args[1] = tile_arg_tensor(&t99);
  EXPECT_ERROR(tile_kernel_launch(kernel, args, 4), TILE_ERROR_INVALID_ARGUMENT,
               "parameter 'Y' dimension 0 is 99 but N = 100 from parameter 'X'");

  int64_t half_shape[1] = {N / 2}, stride2[1] = {2};
  DLTensor strided = vector_f32(x, half_shape), half_y = vector_f32(y, half_shape),
           half_z = vector_f32(z, half_shape);
  strided.strides = stride2;
  tile_arg strided_args[4] = {tile_arg_tensor(&strided), tile_arg_tensor(&half_y),
                              tile_arg_scalar(1.0), tile_arg_tensor(&half_z)};
  EXPECT_ERROR(tile_kernel_launch(kernel, strided_args, 4), TILE_ERROR_INVALID_ARGUMENT,
               "argument 1 ('X'): the tensor is not dense row-major (strides [2]");

  DLTensor on_gpu = tx;
  on_gpu.device.device_type = kDLCUDA;
  args[1] = tile_arg_tensor(&ty);
  args[0] = tile_arg_tensor(&on_gpu);
  EXPECT_ERROR(tile_kernel_launch(kernel, args, 4), TILE_ERROR_INVALID_ARGUMENT,
               "argument 1 ('X'): expected a tensor on cpu, got one on cuda");

  args[0] = tile_arg_tensor(&tx);
  EXPECT_ERROR(tile_kernel_launch(kernel, args, 3), TILE_ERROR_INVALID_ARGUMENT,
               "expected 4 arguments");
  args[2] = tile_arg_tensor(&tx);
  EXPECT_ERROR(tile_kernel_launch(kernel, args, 4), TILE_ERROR_INVALID_ARGUMENT,
               "argument 3 ('alpha'): expected a scalar (f32), got a tensor");
  args[2] = tile_arg_scalar(1.5);
  args[0] = tile_arg_scalar(1.0);
  EXPECT_ERROR(tile_kernel_launch(kernel, args, 4), TILE_ERROR_INVALID_ARGUMENT,
               "argument 1 ('X'): expected a tensor, got a scalar");
  args[0] = tile_arg_tensor(NULL);
  EXPECT_ERROR(tile_kernel_launch(kernel, args, 4), TILE_ERROR_INVALID_ARGUMENT,
               "argument 1 is a tensor argument whose tensor is NULL");
  EXPECT_ERROR(tile_kernel_launch(NULL, args, 4), TILE_ERROR_INVALID_ARGUMENT,
               "tile_kernel_launch: kernel is NULL");
  /* The asynchronous launch checks the same way, before anything starts. */
  EXPECT_ERROR(tile_kernel_launch_async(kernel, args, 4, NULL), TILE_ERROR_INVALID_ARGUMENT,
               "argument 1 is a tensor argument whose tensor is NULL");
  EXPECT_ERROR(tile_kernel_launch_async(NULL, args, 4, NULL), TILE_ERROR_INVALID_ARGUMENT,
               "tile_kernel_launch_async: kernel is NULL");

  /* Integer scalars (since 0.3): exact where a double would round 2^53 + 1 to 2^53, and refused
     by name and range where the dtype cannot hold them; the union keeps 0.2's layout. */
  CHECK(sizeof(tile_arg) == sizeof(struct {
          tile_arg_kind kind;
          const DLTensor* tensor;
          double scalar;
        }));
  const char* fill_text =
      "ir_version 3;\nproducer \"capi-test\" \"1\";\n"
      "kernel fill<N: i32>(value: i64, small: i8, Z: i64[N]) grid(bx: 1) threads(64) {\n"
      "  alloc Z_l: fragment i64[64];\n"
      "  for i in 0 +: 64 parallel {\n    Z_l[i] = value + cast<i64>(small);\n  }\n"
      "  copy Z_l -> Z[0 +: 64];\n}\n";
  tile_module* fill_module = NULL;
  status = tile_module_load_string(fill_text, strlen(fill_text), TILE_FORMAT_TEXT, "fill.tile",
                                   &fill_module);
  if (status != TILE_OK) fprintf(stderr, "load fill: %s\n", tile_last_error());
  CHECK(status == TILE_OK);
  tile_kernel* fill = NULL;
  status = tile_kernel_compile(fill_module, "fill", "cpu", &fill);
  if (status != TILE_OK) fprintf(stderr, "compile fill: %s\n", tile_last_error());
  CHECK(status == TILE_OK);
  int64_t filled[64], fill_shape[1] = {64};
  DLTensor tfill = vector_f32((float*)filled, fill_shape);
  tfill.dtype.code = kDLInt;
  tfill.dtype.bits = 64;
  const int64_t big = ((int64_t)1 << 53) + 1;
  tile_arg fill_args[3] = {tile_arg_int(big), tile_arg_int(0), tile_arg_tensor(&tfill)};
  status = tile_kernel_launch(fill, fill_args, 3);
  if (status != TILE_OK) fprintf(stderr, "launch fill: %s\n", tile_last_error());
  CHECK(status == TILE_OK && filled[0] == big && filled[63] == big);
  fill_args[0] = tile_arg_int(INT64_MIN);
  CHECK(tile_kernel_launch(fill, fill_args, 3) == TILE_OK && filled[0] == INT64_MIN);
  fill_args[0] = tile_arg_int(0);
  fill_args[1] = tile_arg_int(128);
  EXPECT_ERROR(tile_kernel_launch(fill, fill_args, 3), TILE_ERROR_INVALID_ARGUMENT,
               "argument 2 ('small'): 128 is out of range for i8 [-128, 127]");
  fill_args[1] = tile_arg_scalar(1e300);
  EXPECT_ERROR(tile_kernel_launch(fill, fill_args, 3), TILE_ERROR_INVALID_ARGUMENT,
               "argument 2 ('small'): 1e+300 is out of range for i8 [-128, 127]");
  tile_kernel_free(fill);
  tile_module_free(fill_module);

  /* Bad names and modules. */
  tile_kernel* missing = NULL;
  EXPECT_ERROR(tile_kernel_compile(module, "scale_mul", "cpu", &missing), TILE_ERROR_NOT_FOUND,
               "no kernel named 'scale_mul'");
  CHECK(missing == NULL);
  EXPECT_ERROR(tile_kernel_compile(module, "scale_add", "tpu", &missing), TILE_ERROR_NOT_FOUND,
               "target 'tpu'");
  tile_module* bad = NULL;
  const char* malformed =
      "ir_version 1;\nproducer \"p\" \"1\";\nkernel broken<N: i32>(X: f32[N]) grid(bx: 1) {\n";
  EXPECT_ERROR(
      tile_module_load_string(malformed, strlen(malformed), TILE_FORMAT_TEXT, "broken.tile", &bad),
      TILE_ERROR_INVALID_ARGUMENT, "broken.tile:3:");
  CHECK(bad == NULL);
  const char* bad_json = "{\"irVersion\": 1, \"kernels\": [{\"nmae\": \"k\"}]}";
  EXPECT_ERROR(
      tile_module_load_string(bad_json, strlen(bad_json), TILE_FORMAT_AUTO, "bad.json", &bad),
      TILE_ERROR_INVALID_ARGUMENT, "bad.json");
  EXPECT_ERROR(tile_module_load_file("capi/testdata/absent.tile", &bad), TILE_ERROR_NOT_FOUND,
               "capi/testdata/absent.tile");
  EXPECT_ERROR(tile_module_load_file("capi/tile.h", &bad), TILE_ERROR_INVALID_ARGUMENT,
               "capi/tile.h: unknown module extension");
  EXPECT_ERROR(tile_module_load_string("x", 1, (tile_format)9, NULL, &bad),
               TILE_ERROR_INVALID_ARGUMENT, "unknown format 9");

  /* A whole-row kernel: N sizes a fragment, so each call's N is compiled in (M stays a
     parameter), at two values of N through one handle. */
  tile_module* rows = NULL;
  CHECK(tile_module_load_file("capi/testdata/row_sum.tile", &rows) == TILE_OK);
  tile_kernel* row_sum = NULL;
  status = tile_kernel_compile(rows, "row_sum", "cpu", &row_sum);
  if (status != TILE_OK) fprintf(stderr, "compile row_sum: %s\n", tile_last_error());
  CHECK(status == TILE_OK);
  CHECK(strstr(tile_kernel_cache_info(row_sum), "each call's values of N") != NULL);
  for (int64_t cols = 300; cols <= 301; ++cols) {
    enum { kRows = 3 };
    float m[kRows * 301], sums[kRows];
    for (int64_t k = 0; k < kRows * cols; ++k) m[k] = (float)(k % 11) - 5;
    for (int r = 0; r < kRows; ++r) sums[r] = NAN;
    int64_t m_shape[2] = {kRows, cols}, s_shape[1] = {kRows};
    DLTensor tm = {0}, ts = {0};
    tm.data = m;
    tm.device.device_type = kDLCPU;
    tm.ndim = 2;
    tm.dtype.code = kDLFloat;
    tm.dtype.bits = 32;
    tm.dtype.lanes = 1;
    tm.shape = m_shape;
    ts = vector_f32(sums, s_shape);
    tile_arg row_args[2] = {tile_arg_tensor(&tm), tile_arg_tensor(&ts)};
    status = tile_kernel_launch(row_sum, row_args, 2);
    if (status != TILE_OK) fprintf(stderr, "launch row_sum: %s\n", tile_last_error());
    CHECK(status == TILE_OK);
    for (int r = 0; r < kRows; ++r) {
      double want = 0;
      for (int64_t c = 0; c < cols; ++c) want += m[r * cols + c];
      CHECK(fabs(sums[r] - want) <= 1e-4);
    }
  }
  tile_kernel_free(row_sum);
  tile_module_free(rows);

  tile_kernel_free(kernel);
  tile_module_free(module);
  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("all C API checks passed\n");
  return 0;
}
