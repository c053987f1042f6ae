// The "cuda." intrinsics: registration rules, the IR intrinsic and the library-table entry
// (targets/c_source/library_call.h) each adds.
#include "targets/cuda/intrinsics.h"

#include <gtest/gtest.h>

#include "targets/c_source/library_call.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::cuda {
namespace {

TEST(CudaIntrinsicsTest, RegistersTheIrIntrinsic) {
  ASSERT_TRUE(RegisterCudaIntrinsic("cuda.test.fill", 3, 1, "a test").ok());
  const IntrinsicInfo* info = FindIntrinsic("cuda.test.fill");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->num_args, 3);
  EXPECT_EQ(info->result, IntrinsicInfo::ResultType::kVoid);
  EXPECT_FALSE(info->pure);
  const c_source::LibraryIntrinsic* intrinsic = c_source::FindLibraryIntrinsic("cuda.test.fill");
  ASSERT_NE(intrinsic, nullptr);
  EXPECT_EQ(intrinsic->num_template_args, 1);
  EXPECT_EQ(c_source::FindLibraryIntrinsic("cuda.never"), nullptr);
}

TEST(CudaIntrinsicsTest, RegistrationRules) {
  EXPECT_TRUE(RegisterCudaIntrinsic("cuda.test.twice", 2, 0, "").ok());
  EXPECT_TRUE(RegisterCudaIntrinsic("cuda.test.twice", 2, 0, "").ok());
  EXPECT_EQ(RegisterCudaIntrinsic("cuda.test.twice", 2, 1, "").code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(RegisterCudaIntrinsic("test.no_prefix", 1, 0, "").code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RegisterCudaIntrinsic("cuda.", 1, 0, "").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RegisterCudaIntrinsic("cuda.test.arity", 1, 2, "").code(),
            absl::StatusCode::kInvalidArgument);
  // A name some other component took is not ours to describe.
  ASSERT_TRUE(RegisterIntrinsic({.name = "cuda.test.foreign", .num_args = 1}));
  EXPECT_EQ(RegisterCudaIntrinsic("cuda.test.foreign", 1, 0, "").code(),
            absl::StatusCode::kAlreadyExists);
}

TEST(CudaIntrinsicsTest, LibraryIntrinsics) {
  RegisterCudaLibraryIntrinsics();
  RegisterCudaLibraryIntrinsics();
  for (const char* name : {"cuda.cp_async_16", "cuda.cp_async_8", "cuda.cp_async_4"}) {
    const c_source::LibraryIntrinsic* intrinsic = c_source::FindLibraryIntrinsic(name);
    ASSERT_NE(intrinsic, nullptr) << name;
    EXPECT_EQ(intrinsic->num_args, 3);
    EXPECT_EQ(intrinsic->num_template_args, 0);
    // An asynchronous copy, so that insert-barriers orders it where it lands.
    EXPECT_TRUE(FindIntrinsic(name)->async_copy) << name;
  }
}

}  // namespace
}  // namespace tile_ir::cuda
