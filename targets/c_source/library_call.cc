// The library-intrinsic table and the emitted calls.
#include "targets/c_source/library_call.h"

#include <map>
#include <mutex>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "targets/c_source/c_types.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::c_source {
namespace {

struct Table {
  std::mutex mu;
  std::map<std::string, LibraryIntrinsic, std::less<>> by_name;
};

Table& GetTable() {
  static Table* table = new Table;
  return *table;
}

}  // namespace

absl::Status RegisterLibraryIntrinsic(std::string_view prefix, std::string name, int num_args,
                                      int num_template_args, std::string description,
                                      bool async_copy) {
  if (!absl::StartsWith(name, absl::string_view(prefix.data(), prefix.size())) ||
      name.size() == prefix.size()) {
    return absl::InvalidArgumentError(absl::StrCat("library intrinsic '", name, "' must be named ",
                                                   std::string(prefix), "<name>"));
  }
  if (num_args < 0 || num_template_args < 0 || num_template_args > num_args) {
    return absl::InvalidArgumentError(
        absl::StrCat("library intrinsic '", name, "': ", num_template_args,
                     " template arguments do not fit ", num_args, " arguments"));
  }
  Table& table = GetTable();
  std::lock_guard<std::mutex> lock(table.mu);
  auto it = table.by_name.find(name);
  if (it != table.by_name.end()) {
    if (it->second.num_args == num_args && it->second.num_template_args == num_template_args) {
      return absl::OkStatus();
    }
    return absl::AlreadyExistsError(absl::StrCat(
        "library intrinsic '", name, "' is already registered with ", it->second.num_args,
        " arguments, ", it->second.num_template_args, " of them template arguments"));
  }
  IntrinsicInfo info;
  info.name = name;
  info.num_args = num_args;
  info.result = IntrinsicInfo::ResultType::kVoid;
  info.pure = false;
  info.async_copy = async_copy;
  info.description = description;
  if (!RegisterIntrinsic(std::move(info))) {
    return absl::AlreadyExistsError(
        absl::StrCat("intrinsic '", name, "' is already registered by another component"));
  }
  table.by_name.emplace(
      name, LibraryIntrinsic{name, num_args, num_template_args, std::move(description)});
  return absl::OkStatus();
}

const LibraryIntrinsic* FindLibraryIntrinsic(std::string_view name) {
  Table& table = GetTable();
  std::lock_guard<std::mutex> lock(table.mu);
  auto it = table.by_name.find(name);
  // Entries are never removed, so the pointer stays valid after unlocking.
  return it == table.by_name.end() ? nullptr : &it->second;
}

CExpr EmitLibraryCall(const Call& node, size_t prefix_size, int num_template_args,
                      const Dialect& dialect, CallContext& context) {
  size_t first_template = node.args.size() - num_template_args;
  std::vector<std::string> values;
  std::vector<std::string> template_args;
  for (size_t i = 0; i < node.args.size(); ++i) {
    const Expr& arg = node.args[i];
    if (i >= first_template) {
      const IntImm* literal = As<IntImm>(arg);
      if (literal == nullptr) {
        return context.Fail(absl::StrCat("argument ", i, " of '", node.name,
                                         "' is a template argument and must be an integer "
                                         "literal"));
      }
      template_args.push_back(IntLiteral(dialect, literal->value, arg->dtype().scalar()).text);
    } else if (const BufferLoad* load = As<BufferLoad>(arg)) {
      values.push_back(context.AddressOf(*load).text);
    } else {
      values.push_back(context.Emit(arg).text);
    }
  }
  std::string function =
      absl::StrCat("tl::", absl::StrReplaceAll(node.name.substr(prefix_size), {{".", "::"}}));
  if (!template_args.empty()) {
    absl::StrAppend(&function, "<", absl::StrJoin(template_args, ", "), ">");
  }
  return Primary(absl::StrCat(function, "(", absl::StrJoin(values, ", "), ")"));
}

CExpr EmitRegisteredLibraryCall(const Call& node, std::string_view prefix, const Dialect& dialect,
                                CallContext& context) {
  const LibraryIntrinsic* intrinsic = FindLibraryIntrinsic(node.name);
  if (intrinsic == nullptr) {
    return context.Fail(absl::StrCat(dialect.language(), " intrinsic '", node.name,
                                     "' is not registered (RegisterLibraryIntrinsic)"));
  }
  if (static_cast<int>(node.args.size()) != intrinsic->num_args) {
    return context.Fail(absl::StrCat(dialect.language(), " intrinsic '", node.name, "' takes ",
                                     intrinsic->num_args, " arguments, not ", node.args.size()));
  }
  return EmitLibraryCall(node, prefix.size(), intrinsic->num_template_args, dialect, context);
}

std::optional<CExpr> EmitAsyncCopyCall(const Call& node, CallContext& context) {
  if (node.name == "async_commit") return Primary("tl::cp_async_commit()");
  if (node.name != "async_wait") return std::nullopt;
  std::optional<int64_t> pending = node.args.size() == 1 ? AsConstInt(node.args[0]) : std::nullopt;
  if (!pending || *pending < 0) {
    return context.Fail("async_wait needs a non-negative integer literal");
  }
  return Primary(absl::StrCat("tl::cp_async_wait<", *pending, ">()"));
}

}  // namespace tile_ir::c_source
