// Records: status names, validation, the JSON file and merging.
#include "tools/tile_matrix/record.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/tile_matrix/json.h"

namespace tile_ir::matrix {
namespace {

constexpr absl::string_view kFormat = "tile-matrix records v1";

// Each field of a record as the file spells it, in the file's order.
struct Field {
  absl::string_view name;
  std::function<std::string*(Record&)> text;              // a string field
  std::function<std::optional<double>*(Record&)> number;  // a number field
};

const std::vector<Field>& Fields() {
  static const auto* fields = new std::vector<Field>{
      {"op", [](Record& r) { return &r.op; }, nullptr},
      {"target", [](Record& r) { return &r.target; }, nullptr},
      {"backend", [](Record& r) { return &r.backend; }, nullptr},
      {"dtype", [](Record& r) { return &r.dtype; }, nullptr},
      {"status", nullptr, nullptr},  // by hand: an enum
      {"detail", [](Record& r) { return &r.detail; }, nullptr},
      {"arch", [](Record& r) { return &r.arch; }, nullptr},
      {"hardware", [](Record& r) { return &r.hardware; }, nullptr},
      {"toolkit", [](Record& r) { return &r.toolkit; }, nullptr},
      {"commit", [](Record& r) { return &r.commit; }, nullptr},
      {"date", [](Record& r) { return &r.date; }, nullptr},
      {"machine", [](Record& r) { return &r.machine; }, nullptr},
      {"ir_hash", [](Record& r) { return &r.ir_hash; }, nullptr},
      {"lowering_hash", [](Record& r) { return &r.lowering_hash; }, nullptr},
      {"code_hash", [](Record& r) { return &r.code_hash; }, nullptr},
      {"max_abs_error", nullptr, [](Record& r) { return &r.max_abs_error; }},
      {"max_rel_error", nullptr, [](Record& r) { return &r.max_rel_error; }},
      {"atol", nullptr, [](Record& r) { return &r.atol; }},
      {"rtol", nullptr, [](Record& r) { return &r.rtol; }},
      {"shapes", [](Record& r) { return &r.shapes; }, nullptr},
      {"seed", nullptr, nullptr},  // by hand: an integer
      {"log", [](Record& r) { return &r.log; }, nullptr},
  };
  return *fields;
}

// Shortest text that reads back as the same double ("1e-06", "0.000244140625").
std::string FormatNumber(double value) {
  char buffer[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

absl::Status FieldError(absl::string_view file, const JsonValue& at, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(file, ":", at.line, ": ", what));
}

absl::StatusOr<Record> RecordFromJson(const JsonValue& value, absl::string_view file) {
  if (value.kind != JsonValue::Kind::kObject) {
    return FieldError(file, value,
                      absl::StrCat("a record must be an object, not ", JsonKindName(value.kind)));
  }
  Record record;
  bool has_status = false;
  for (const auto& [key, member] : value.object) {
    auto field = std::find_if(Fields().begin(), Fields().end(),
                              [&key = key](const Field& f) { return f.name == key; });
    if (field == Fields().end()) {
      std::vector<absl::string_view> names;
      for (const Field& f : Fields()) names.push_back(f.name);
      return FieldError(file, member,
                        absl::StrCat("unknown record field \"", key,
                                     "\"; the fields are: ", absl::StrJoin(names, ", ")));
    }
    if (key == "seed") {
      if (member.kind != JsonValue::Kind::kNumber || member.number < 0 ||
          member.number != std::floor(member.number) || member.number > 9.007199254740992e15) {
        return FieldError(file, member, "\"seed\" must be a non-negative integer");
      }
      record.seed = static_cast<uint64_t>(member.number);
    } else if (key == "status") {
      std::optional<Status> status =
          member.kind == JsonValue::Kind::kString ? ParseStatus(member.string) : std::nullopt;
      if (!status) {
        return FieldError(file, member,
                          "\"status\" must be one of \"verified\", \"compiled\", \"generated\", "
                          "\"failed\", \"unsupported\"");
      }
      record.status = *status;
      has_status = true;
    } else if (field->text) {
      if (member.kind != JsonValue::Kind::kString) {
        return FieldError(
            file, member,
            absl::StrCat("\"", key, "\" must be a string, not ", JsonKindName(member.kind)));
      }
      *field->text(record) = member.string;
    } else {
      if (member.kind != JsonValue::Kind::kNumber) {
        return FieldError(
            file, member,
            absl::StrCat("\"", key, "\" must be a number, not ", JsonKindName(member.kind)));
      }
      *field->number(record) = member.number;
    }
  }
  if (!has_status) return FieldError(file, value, "the record has no \"status\"");
  return record;
}

std::string RecordToJson(Record record) {
  std::vector<std::string> lines;
  for (const Field& field : Fields()) {
    std::string value;
    if (field.name == "status") {
      value = JsonQuote(StatusName(record.status));
    } else if (field.name == "seed") {
      if (record.seed) value = std::to_string(*record.seed);
    } else if (field.text) {
      if (!field.text(record)->empty()) value = JsonQuote(*field.text(record));
    } else if (field.number(record)->has_value()) {
      value = FormatNumber(**field.number(record));
    }
    if (!value.empty()) lines.push_back(absl::StrCat("      ", JsonQuote(field.name), ": ", value));
  }
  return absl::StrCat("    {\n", absl::StrJoin(lines, ",\n"), "\n    }");
}

int Strength(Status status) { return IsSuccess(status) ? static_cast<int>(status) : -1; }

}  // namespace

absl::string_view StatusName(Status status) {
  switch (status) {
    case Status::kUnsupported: return "unsupported";
    case Status::kFailed: return "failed";
    case Status::kGenerated: return "generated";
    case Status::kCompiled: return "compiled";
    case Status::kVerified: return "verified";
  }
  return "?";
}

std::optional<Status> ParseStatus(absl::string_view name) {
  for (Status status : {Status::kUnsupported, Status::kFailed, Status::kGenerated,
                        Status::kCompiled, Status::kVerified}) {
    if (StatusName(status) == name) return status;
  }
  return std::nullopt;
}

bool IsSuccess(Status status) {
  return status == Status::kGenerated || status == Status::kCompiled || status == Status::kVerified;
}

bool CellLess(const Record& a, const Record& b) {
  return std::tie(a.op, a.target) < std::tie(b.op, b.target);
}

bool SameCell(const Record& a, const Record& b) { return a.op == b.op && a.target == b.target; }

std::string CellName(const Record& record) { return absl::StrCat(record.op, " @ ", record.target); }

absl::Status ValidateRecord(const Record& record) {
  std::vector<std::string> missing;
  auto need = [&](bool present, absl::string_view name) {
    if (!present) missing.emplace_back(name);
  };
  need(!record.op.empty(), "op");
  need(!record.target.empty(), "target");
  need(!record.backend.empty(), "backend");
  need(!record.dtype.empty(), "dtype");
  need(!record.arch.empty(), "arch");
  need(!record.commit.empty(), "commit");
  need(!record.date.empty(), "date");
  need(!record.ir_hash.empty(), "ir_hash");
  need(!record.lowering_hash.empty(), "lowering_hash");
  switch (record.status) {
    case Status::kVerified:
      need(!record.hardware.empty(), "hardware");
      need(!record.toolkit.empty(), "toolkit");
      need(!record.shapes.empty(), "shapes");
      need(record.max_abs_error.has_value(), "max_abs_error");
      need(record.max_rel_error.has_value(), "max_rel_error");
      need(record.atol.has_value(), "atol");
      need(record.rtol.has_value(), "rtol");
      break;
    case Status::kCompiled: need(!record.toolkit.empty(), "toolkit"); break;
    case Status::kFailed:
    case Status::kUnsupported: need(!record.detail.empty(), "detail"); break;
    case Status::kGenerated: break;
  }
  if (record.target.rfind(record.backend, 0) != 0 && !record.target.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(CellName(record), ": target \"", record.target,
                                                   "\" is not of backend \"", record.backend,
                                                   "\""));
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(CellName(record), ": a ", StatusName(record.status),
                     " record needs its evidence; missing ", absl::StrJoin(missing, ", ")));
  }
  return absl::OkStatus();
}

std::string WriteRecordsJson(std::vector<Record> records) {
  std::sort(records.begin(), records.end(), CellLess);
  std::vector<std::string> objects;
  for (const Record& record : records) objects.push_back(RecordToJson(record));
  return absl::StrCat("{\n  \"format\": ", JsonQuote(kFormat), ",\n  \"records\": [\n",
                      absl::StrJoin(objects, ",\n"), objects.empty() ? "" : "\n", "  ]\n}\n");
}

absl::StatusOr<std::vector<Record>> ParseRecordsJson(absl::string_view text,
                                                     absl::string_view file_name) {
  absl::StatusOr<JsonValue> document = ParseJson(text);
  if (!document.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(file_name, ":", document.status().message(),
                                                   " (the records file is not valid JSON)"));
  }
  if (document->kind != JsonValue::Kind::kObject) {
    return FieldError(file_name, *document, "the records file must hold a JSON object");
  }
  const JsonValue* format = nullptr;
  const JsonValue* list = nullptr;
  for (const auto& [key, value] : document->object) {
    if (key == "format") {
      format = &value;
    } else if (key == "records") {
      list = &value;
    } else {
      return FieldError(file_name, value,
                        absl::StrCat("unknown top-level field \"", key,
                                     "\"; expected \"format\" and \"records\""));
    }
  }
  if (format == nullptr || format->kind != JsonValue::Kind::kString || format->string != kFormat) {
    return FieldError(file_name, format ? *format : *document,
                      absl::StrCat("expected \"format\": \"", kFormat, "\""));
  }
  if (list == nullptr || list->kind != JsonValue::Kind::kArray) {
    return FieldError(file_name, list ? *list : *document, "expected \"records\": [...]");
  }
  std::vector<Record> records;
  std::map<std::pair<std::string, std::string>, int> lines;
  for (const JsonValue& value : list->array) {
    absl::StatusOr<Record> record = RecordFromJson(value, file_name);
    if (!record.ok()) return record.status();
    if (absl::Status valid = ValidateRecord(*record); !valid.ok()) {
      return FieldError(file_name, value, valid.message());
    }
    auto [it, inserted] = lines.emplace(std::make_pair(record->op, record->target), value.line);
    if (!inserted) {
      return FieldError(
          file_name, value,
          absl::StrCat("a second record for ", CellName(*record), " (the first is at line ",
                       it->second, "); one record per cell"));
    }
    records.push_back(*std::move(record));
  }
  return records;
}

absl::StatusOr<std::vector<Record>> ReadRecordsFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat(path, ": cannot open the records file"));
  std::stringstream text;
  text << file.rdbuf();
  if (file.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return ParseRecordsJson(text.str(), path);
}

absl::StatusOr<std::vector<Record>> ReadRecordsFileOrEmpty(const std::string& path) {
  if (!std::ifstream(path)) return std::vector<Record>();
  return ReadRecordsFile(path);
}

absl::Status WriteRecordsFile(const std::string& path, const std::vector<Record>& records) {
  std::string temp = path + ".tmp";
  {
    std::ofstream file(temp, std::ios::binary | std::ios::trunc);
    file << WriteRecordsJson(records);
    if (!file.flush()) return absl::UnavailableError(absl::StrCat(temp, ": cannot write"));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return absl::UnavailableError(absl::StrCat(path, ": cannot replace the file"));
  }
  return absl::OkStatus();
}

std::vector<MergeEvent> MergeRecords(std::vector<Record>& matrix,
                                     const std::vector<Record>& incoming) {
  std::vector<MergeEvent> events;
  for (const Record& record : incoming) {
    auto existing = std::find_if(matrix.begin(), matrix.end(),
                                 [&](const Record& r) { return SameCell(r, record); });
    std::string cell = CellName(record);
    std::string what = absl::StrCat(StatusName(record.status), " (", record.date, ")");
    if (existing == matrix.end()) {
      events.push_back({MergeAction::kAdded, cell, what});
      matrix.push_back(record);
      continue;
    }
    std::string against = absl::StrCat(StatusName(existing->status), " (", existing->date, ")");
    if (record.date <= existing->date) {
      events.push_back(
          {MergeAction::kKeptOlder, cell, absl::StrCat(against, " stays over ", what)});
      continue;
    }
    // A code hash speaks only where both records have one (not before they existed, nor for
    // a target whose code follows the host).
    bool same_code = record.ir_hash == existing->ir_hash &&
                     record.lowering_hash == existing->lowering_hash &&
                     (record.code_hash.empty() || existing->code_hash.empty() ||
                      record.code_hash == existing->code_hash);
    if (same_code && IsSuccess(record.status) &&
        Strength(record.status) < Strength(existing->status)) {
      events.push_back(
          {MergeAction::kKeptStronger, cell, absl::StrCat(against, " stays over ", what)});
      continue;
    }
    events.push_back({MergeAction::kReplaced, cell, absl::StrCat(what, " replaces ", against)});
    *existing = record;
  }
  std::sort(matrix.begin(), matrix.end(), CellLess);
  return events;
}

}  // namespace tile_ir::matrix
