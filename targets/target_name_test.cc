// The target-name grammar: every form, the canonical spelling, and errors that name the column.
#include "targets/target_name.h"

#include <gtest/gtest.h>

namespace tile_ir::targets {
namespace {

TEST(TargetNameTest, ReadsEveryForm) {
  absl::StatusOr<TargetName> plain = ParseTargetName("cpu");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->family, "cpu");
  EXPECT_EQ(plain->arch, "");
  EXPECT_TRUE(plain->options.empty());

  absl::StatusOr<TargetName> full = ParseTargetName("cuda:sm_90a{z=1,gemm=wgmma}");
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(full->family, "cuda");
  EXPECT_EQ(full->arch, "sm_90a");
  EXPECT_EQ(full->Option("gemm"), "wgmma");
  EXPECT_EQ(full->Option("absent"), "");
  // Options print sorted: one spelling per name.
  EXPECT_EQ(full->ToString(), "cuda:sm_90a{gemm=wgmma,z=1}");

  absl::StatusOr<TargetName> no_arch = ParseTargetName("cuda{gemm=mma}");
  ASSERT_TRUE(no_arch.ok()) << no_arch.status();
  EXPECT_EQ(no_arch->arch, "");
  EXPECT_EQ(no_arch->ToString(), "cuda{gemm=mma}");
}

TEST(TargetNameTest, ErrorsNameTheColumn) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {
           Case{"", "target '': at column 1, expected a target family"},
           Case{"cuda:", "at column 6, expected an architecture after ':', found the end"},
           Case{"cuda:sm_90a-wgmma", "at column 12, expected ':', '{' or the end of the name"},
           Case{"cuda{gemm}", "at column 10, expected '=' after option 'gemm', found '}'"},
           Case{"cuda{gemm=}", "expected a value for option 'gemm'"},
           Case{"cuda{a=1 }", "expected ',' or '}' after an option, found ' '"},
           Case{"cuda{a=1,a=2}", "option 'a' given twice"},
           Case{"cuda{a=1", "expected ',' or '}' after an option, found the end"},
       }) {
    absl::StatusOr<TargetName> name = ParseTargetName(c.text);
    ASSERT_FALSE(name.ok()) << c.text;
    EXPECT_EQ(name.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(name.status().message().find(c.message), std::string::npos)
        << c.text << ": " << name.status();
  }
}

}  // namespace
}  // namespace tile_ir::targets
