// Keeps docs/PRODUCERS.md true: its example module in JSON reads, verifies
// and prints as its text form; the JSON spellings the guide allows read the
// same; the two mistakes it quotes are reported at the producer's locations;
// and the kernel runs through libtile on a ragged length.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "capi/tile.h"
#include "frontends/io/module_io.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"

namespace tile_ir {
namespace {

using ::testing::HasSubstr;

constexpr char kJson[] = "docs/examples/scale_add.json";

std::string Json() {
  absl::StatusOr<std::string> text = io::ReadFile(kJson);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

absl::Status ReadAndVerify(const std::string& json) {
  absl::StatusOr<Module> module = io::ReadModule(json, io::ModuleFormat::kJson, "scale_add.json");
  if (!module.ok()) return module.status();
  return Verify(*module);
}

TEST(ProducersExampleTest, TheJsonVerifiesAndPrintsAsItsTextForm) {
  absl::StatusOr<Module> module = io::ReadModuleFile(kJson);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(Verify(*module).ok()) << Verify(*module);
  absl::StatusOr<std::string> text = io::ReadFile("docs/examples/scale_add.tile");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(Print(*module), *text);
  EXPECT_EQ(module->kernels.front()->loc.ToString(), "scale_add.py:15:5");
}

TEST(ProducersExampleTest, CamelCaseNamesAndNumericInt64sReadTheSame) {
  std::string json = absl::StrReplaceAll(Json(), {{"\"ir_version\": \"1\"", "\"irVersion\": 1"},
                                                  {"\"int_imm\"", "\"intImm\""},
                                                  {"\"value\": \"64\"", "\"value\": 64"}});
  absl::StatusOr<Module> camel = io::ReadModule(json, io::ModuleFormat::kJson, "camel.json");
  ASSERT_TRUE(camel.ok()) << camel.status();
  absl::StatusOr<Module> original = io::ReadModuleFile(kJson);
  ASSERT_TRUE(original.ok());
  EXPECT_EQ(Print(*camel), Print(*original));
}

TEST(ProducersExampleTest, ErrorsPointAtTheProducersSource) {
  std::string undeclared = Json();
  size_t at = undeclared.find("\"buffer\": \"Z_l\"");  // the store, the first use of Z_l
  ASSERT_NE(at, std::string::npos);
  undeclared.replace(at, 15, "\"buffer\": \"Q_l\"");
  absl::Status status = ReadAndVerify(undeclared);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("scale_add.json: kernels[0].body.seq.stmts[5].for.body.seq.stmts[0]."
                        "store.buffer in kernel 'scale_add' at scale_add.py:23:5: buffer 'Q_l' "
                        "is not declared before this use"));

  std::string global = Json();
  at = global.find("\"scope\": \"MEMORY_SCOPE_FRAGMENT\"");
  ASSERT_NE(at, std::string::npos);
  global.replace(at, 32, "\"scope\": \"MEMORY_SCOPE_GLOBAL\"");
  status = ReadAndVerify(global);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("scale_add.py:17:5: error: in kernel 'scale_add': in alloc 'X_l': cannot "
                        "allocate global memory"));

  std::string typo = Json();
  at = typo.find("\"name\": \"scale_add\"");
  ASSERT_NE(at, std::string::npos);
  typo.replace(at, 6, "\"nmae\"");
  status = ReadAndVerify(typo);
  EXPECT_THAT(std::string(status.message()), HasSubstr("unknown field \"nmae\""));
}

TEST(ProducersExampleTest, RunsThroughLibtileOnARaggedLength) {
  tile_module* module = nullptr;
  ASSERT_EQ(tile_module_load_file(kJson, &module), TILE_OK) << tile_last_error();
  tile_kernel* kernel = nullptr;
  ASSERT_EQ(tile_kernel_compile(module, "scale_add", "cpu", &kernel), TILE_OK) << tile_last_error();
  constexpr int64_t kN = 100;
  std::vector<float> x(kN), y(kN), z(kN, NAN);
  for (int64_t i = 0; i < kN; ++i) {
    x[i] = 0.25f * i;
    y[i] = 1.0f - i;
  }
  int64_t shape[1] = {kN};
  auto tensor = [&shape](std::vector<float>& data) {
    DLTensor t{};
    t.data = data.data();
    t.device = {kDLCPU, 0};
    t.ndim = 1;
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape;
    return t;
  };
  DLTensor tx = tensor(x), ty = tensor(y), tz = tensor(z);
  tile_arg args[4] = {tile_arg_tensor(&tx), tile_arg_tensor(&ty), tile_arg_scalar(0.5),
                      tile_arg_tensor(&tz)};
  ASSERT_EQ(tile_kernel_launch(kernel, args, 4), TILE_OK) << tile_last_error();
  for (int64_t i = 0; i < kN; ++i) EXPECT_FLOAT_EQ(z[i], 0.5 * x[i] + y[i]) << i;
  tile_kernel_free(kernel);
  tile_module_free(module);
}

}  // namespace
}  // namespace tile_ir
