// Writing for an older reader: which modules a version can hold, and the refusals naming the
// feature, where it is and the version it needs.
#include "tile_ir/write_version.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "testdata/compat/sample_modules.h"
#include "tile_ir/upgrade.h"
#include "tile_ir/version.h"

namespace tile_ir {
namespace {

using ::testing::HasSubstr;

const Module& Sample(const std::string& name) {
  static const auto* const kSamples =
      new std::vector<compat::SampleModule>(compat::SampleModules());
  for (const compat::SampleModule& sample : *kSamples) {
    if (sample.name == name) return sample.module;
  }
  ADD_FAILURE() << "no sample module " << name;
  return kSamples->front().module;
}

TEST(WriteVersionTest, EveryModuleIsWritableFromTheVersionItNeedsOn) {
  for (const compat::SampleModule& sample : compat::SampleModules()) {
    const int64_t required = RequiredIrVersion(sample.module);
    for (int64_t version = kOldestSupportedIrVersion; version <= kIrVersion; ++version) {
      absl::Status status = CheckWritableAsIrVersion(sample.module, version);
      EXPECT_EQ(status.ok(), version >= required)
          << sample.name << " as " << version << ": " << status;
      EXPECT_EQ(FirstFeatureNewerThan(sample.module, version).has_value(), version < required);
    }
  }
}

TEST(WriteVersionTest, XorRefusedForVersion1NamingItsKernel) {
  absl::Status status = CheckWritableAsIrVersion(Sample("swizzle"), 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("the module cannot be written as ir_version 1: the xor "
                                          "operator in kernel '"));
  EXPECT_THAT(status.message(), HasSubstr("needs ir_version 2"));
}

// The feature named is the first one ir_version 2 lacks, with its location: the requirements,
// not the '^' inside one of them (which version 2 has).
TEST(WriteVersionTest, RequirementsRefusedForVersion2WithTheirLocation) {
  absl::Status status = CheckWritableAsIrVersion(Sample("requirements"), 2);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr("the shape requirements ('require ...;') of kernel 'grouped_rows' at "
                        "grouped_rows.py:12:5 needs ir_version 3"));
  std::optional<IrFeature> feature = FirstFeatureNewerThan(Sample("requirements"), 2);
  ASSERT_TRUE(feature.has_value());
  EXPECT_EQ(feature->introduced_in, kShapeRequirementsIrVersion);
}

// The types of version 7 are found wherever a module holds a type: a buffer's, a scalar
// parameter's, or only an expression's (a cast inside an i32 kernel).
TEST(WriteVersionTest, UnsignedTypesNeedVersion7WhereverTheyAppear) {
  std::optional<IrFeature> buffer = FirstFeatureNewerThan(Sample("unsigned_words"), 6);
  ASSERT_TRUE(buffer.has_value());
  EXPECT_EQ(buffer->introduced_in, kWideUnsignedIrVersion);
  EXPECT_EQ(buffer->description, "the type u32 of the buffer 'Packed' in kernel 'unsigned_words'");

  auto kernel_with = [](std::vector<Param> params, Stmt body) {
    Launch launch;
    launch.grid = {{Var::Make("bx"), Int(1)}};
    launch.threads = {32};
    Module module;
    module.kernels = {KernelNode::Make("k", {}, std::move(params), launch, std::move(body))};
    return module;
  };
  Buffer out = BufferNode::Make("Out", kI32, {Int(4)}, MemoryScope::kGlobal);
  Module cast_only = kernel_with(
      {{out, nullptr}}, Store::Make(out, {Int(0)}, Cast::Make(kI32, Cast::Make(kU16, Int(70000)))));
  EXPECT_EQ(RequiredIrVersion(cast_only), kWideUnsignedIrVersion);
  std::optional<IrFeature> cast = FirstFeatureNewerThan(cast_only, 6);
  ASSERT_TRUE(cast.has_value());
  EXPECT_EQ(cast->description, "the type u16 in kernel 'k'");

  VarRef seed = Var::Make("seed", kU64);
  Module scalar_only = kernel_with({{out, nullptr}, {nullptr, seed}}, Seq::Make({}));
  std::optional<IrFeature> scalar = FirstFeatureNewerThan(scalar_only, 6);
  ASSERT_TRUE(scalar.has_value());
  EXPECT_EQ(scalar->description, "the type u64 of the parameter 'seed' in kernel 'k'");
  EXPECT_FALSE(FirstFeatureNewerThan(scalar_only, 7).has_value());
}

TEST(WriteVersionTest, VersionsOutsideTheSupportedRangeAreRefused) {
  for (int64_t version : {int64_t{0}, kOldestSupportedIrVersion - 1, kIrVersion + 1}) {
    absl::Status status = CheckWritableAsIrVersion(Sample("gemm"), version);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << version;
    EXPECT_THAT(status.message(),
                HasSubstr(absl::StrCat("ir_version ", version,
                                       " cannot be written: this build "
                                       "writes ir_version ",
                                       kOldestSupportedIrVersion, " to ", kIrVersion)));
  }
}

}  // namespace
}  // namespace tile_ir
