// The enum correspondence of proto_enums.h: every IR value has a schema value and back, and
// every schema enum starts with UNSPECIFIED = 0.
#include "tile_ir/proto_enums.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace tile_ir {
namespace {

using ::testing::HasSubstr;

// The IR values of an enum whose name function answers "?" (or "<invalid>") past its end.
template <typename IrEnum, typename NameFn>
std::vector<IrEnum> NamedValues(NameFn name_of) {
  std::vector<IrEnum> values;
  for (int value = 0; value < 256; ++value) {
    std::string_view name = name_of(static_cast<IrEnum>(value));
    if (name != "?" && name != "<invalid>") values.push_back(static_cast<IrEnum>(value));
  }
  return values;
}

template <typename IrEnum, typename ProtoEnum, size_t N>
void ExpectMappingCoversBoth(const EnumMapping<IrEnum, ProtoEnum> (&mappings)[N],
                             const std::vector<IrEnum>& ir_values) {
  const google::protobuf::EnumDescriptor* descriptor =
      google::protobuf::GetEnumDescriptor<ProtoEnum>();
  EXPECT_EQ(descriptor->value(0)->number(), 0);
  EXPECT_THAT(descriptor->value(0)->name(), HasSubstr("_UNSPECIFIED"));
  EXPECT_FALSE(FromProtoEnum(mappings, 0).has_value()) << descriptor->full_name();
  for (int i = 1; i < descriptor->value_count(); ++i) {
    EXPECT_TRUE(FromProtoEnum(mappings, descriptor->value(i)->number()).has_value())
        << descriptor->value(i)->full_name();
  }
  for (IrEnum value : ir_values) {
    EXPECT_NE(ToProtoEnum(mappings, value), 0)
        << descriptor->full_name() << " lacks IR value " << static_cast<int>(value);
  }
}

TEST(ProtoConvertTest, EnumMappingsCoverBothEnums) {
  ExpectMappingCoversBoth(kScalarTypeMappings, NamedValues<ScalarType>(ScalarTypeName));
  ExpectMappingCoversBoth(kMemoryScopeMappings, NamedValues<MemoryScope>(MemoryScopeName));
  // SwizzleOrderName names every value, so the two values are listed.
  ExpectMappingCoversBoth(kSwizzleOrderMappings,
                          {SwizzleOrder::kRowMajor, SwizzleOrder::kColumnMajor});
  ExpectMappingCoversBoth(kUnaryOpMappings, NamedValues<UnaryOp>(UnaryOpName));
  ExpectMappingCoversBoth(kBinaryOpMappings, NamedValues<BinaryOp>(BinaryOpName));
  ExpectMappingCoversBoth(kForKindMappings, NamedValues<ForKind>(ForKindName));
  // ThreadAxis::kNone is written as UNSPECIFIED: only thread-bound loops carry an axis.
  std::vector<ThreadAxis> axes = NamedValues<ThreadAxis>(ThreadAxisName);
  std::erase(axes, ThreadAxis::kNone);
  ExpectMappingCoversBoth(kThreadAxisMappings, axes);
  ExpectMappingCoversBoth(kBarrierScopeMappings, NamedValues<BarrierScope>(BarrierScopeName));
  ExpectMappingCoversBoth(kWarpPolicyMappings, NamedValues<WarpPolicy>(WarpPolicyName));
  ExpectMappingCoversBoth(kReduceKindMappings, NamedValues<ReduceKind>(ReduceKindName));
}

}  // namespace
}  // namespace tile_ir
