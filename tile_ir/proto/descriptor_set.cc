#include "tile_ir/proto/descriptor_set.h"

#include <fstream>
#include <iterator>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tile_ir::schema_guard {
namespace {

using google::protobuf::DescriptorPool;
using google::protobuf::FileDescriptor;
using google::protobuf::FileDescriptorSet;

// Keeps the first error: later ones usually follow from it.
class FirstError : public DescriptorPool::ErrorCollector {
 public:
  void AddError(const std::string& filename, const std::string& element_name,
                const google::protobuf::Message*, ErrorLocation,
                const std::string& message) override {
    if (error_.empty()) error_ = absl::StrCat(filename, ": ", element_name, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

void AddWithImports(const FileDescriptor& file, std::set<std::string>& added,
                    FileDescriptorSet& set) {
  if (!added.insert(file.name()).second) return;
  for (int i = 0; i < file.dependency_count(); ++i) AddWithImports(*file.dependency(i), added, set);
  file.CopyTo(set.add_file());
  // CopyTo leaves json_name out; the guard compares it, so carry it like protoc does.
  file.CopyJsonNameTo(set.mutable_file(set.file_size() - 1));
}

}  // namespace

absl::StatusOr<FileDescriptorSet> ReadDescriptorSet(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the descriptor set"));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  FileDescriptorSet set;
  if (!set.ParseFromString(bytes)) {
    return absl::DataLossError(
        absl::StrCat(path, ": not a binary FileDescriptorSet (", bytes.size(), " bytes)"));
  }
  return set;
}

absl::StatusOr<std::unique_ptr<DescriptorPool>> BuildDescriptorPool(const FileDescriptorSet& set,
                                                                    const std::string& source) {
  auto pool = std::make_unique<DescriptorPool>();
  for (const google::protobuf::FileDescriptorProto& file : set.file()) {
    FirstError errors;
    if (pool->BuildFileCollectingErrors(file, &errors) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": ", file.name(), " does not build: ", errors.error()));
    }
  }
  return pool;
}

FileDescriptorSet DescriptorSetOf(const FileDescriptor& file) {
  std::set<std::string> added;
  FileDescriptorSet set;
  AddWithImports(file, added, set);
  return set;
}

}  // namespace tile_ir::schema_guard
