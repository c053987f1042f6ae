#include "fuzz/module_mutator.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/reflection.h"

namespace tile_ir::fuzz {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::EnumDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// One place an edit can go: a field of a message, and an element of it when
// the field is repeated (-1 for a singular field).
struct Site {
  Message* message;
  const FieldDescriptor* field;
  int index;
};

// Every field of every message reachable from `message`: scalars set or not,
// submessages that are set (an empty new one rarely reads; repeated fields add
// copies of elements instead).
void CollectSites(Message& message, std::vector<Site>& sites, int depth) {
  if (depth > 200) return;
  const Descriptor* descriptor = message.GetDescriptor();
  const Reflection* reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->is_repeated()) {
      const int size = reflection->FieldSize(message, field);
      sites.push_back({&message, field, -1});
      for (int j = 0; j < size; ++j) {
        if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
          CollectSites(*reflection->MutableRepeatedMessage(&message, field, j), sites, depth + 1);
        } else {
          sites.push_back({&message, field, j});
        }
      }
    } else if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      sites.push_back({&message, field, -1});
    } else if (reflection->HasField(message, field)) {
      sites.push_back({&message, field, -1});
      CollectSites(*reflection->MutableMessage(&message, field), sites, depth + 1);
    }
  }
}

int64_t MutateInteger(int64_t value, int64_t min, int64_t max, std::mt19937_64& rng) {
  static constexpr int64_t kEdges[] = {0, 1, -1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 64, 127, 128, 255,
                                       256, 1024, 65535, 65536, 1 << 20, 2147483647,
                                       -2147483648LL};
  switch (rng() % 4) {
    case 0:
      value = kEdges[rng() % (sizeof(kEdges) / sizeof(kEdges[0]))];
      break;
    case 1:
      value = static_cast<int64_t>(static_cast<uint64_t>(value) + (rng() % 9) - 4);
      break;
    case 2:
      value = static_cast<int64_t>(static_cast<uint64_t>(value) * 2);
      break;
    default:
      value = static_cast<int64_t>(rng());
      break;
  }
  return value < min ? min : value > max ? max : value;
}

std::string MutateString(std::string value, std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      if (!value.empty()) value.erase(rng() % value.size(), 1);
      break;
    case 1:
      value.insert(value.empty() ? 0 : rng() % value.size(), 1, "_a0.%\n"[rng() % 6]);
      break;
    case 2:  // printable: invalid UTF-8 is refused before anything interesting
      if (!value.empty()) value[rng() % value.size()] = static_cast<char>(' ' + rng() % 95);
      break;
    default:
      value = std::string(1, static_cast<char>('a' + rng() % 26));
      break;
  }
  return value;
}

int MutateEnum(const EnumDescriptor* type, std::mt19937_64& rng) {
  if (rng() % 8 == 0) return static_cast<int>(rng() % 64);  // unknown values too
  return type->value(static_cast<int>(rng() % type->value_count()))->number();
}

// Edits a repeated field as a whole: drops, duplicates or swaps elements.
void MutateRepeated(const Site& site, std::mt19937_64& rng) {
  Message& m = *site.message;
  const Reflection* r = m.GetReflection();
  const int size = r->FieldSize(m, site.field);
  const bool is_message = site.field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE;
  switch (size == 0 ? 2 : rng() % 3) {
    case 0: {  // drop one
      r->SwapElements(&m, site.field, static_cast<int>(rng() % size), size - 1);
      r->RemoveLast(&m, site.field);
      break;
    }
    case 1: {  // swap two
      r->SwapElements(&m, site.field, static_cast<int>(rng() % size),
                      static_cast<int>(rng() % size));
      break;
    }
    default: {  // add one: a copy of an element, or a default one
      if (!is_message) {
        if (size == 0) return;
        switch (site.field->cpp_type()) {
          case FieldDescriptor::CPPTYPE_INT64:
            r->AddInt64(&m, site.field, r->GetRepeatedInt64(m, site.field, rng() % size));
            break;
          case FieldDescriptor::CPPTYPE_INT32:
            r->AddInt32(&m, site.field, r->GetRepeatedInt32(m, site.field, rng() % size));
            break;
          case FieldDescriptor::CPPTYPE_STRING:
            r->AddString(&m, site.field, r->GetRepeatedString(m, site.field, rng() % size));
            break;
          default:
            break;
        }
        return;
      }
      Message* added = r->AddMessage(&m, site.field);
      if (size > 0) {
        added->CopyFrom(r->GetRepeatedMessage(m, site.field, static_cast<int>(rng() % size)));
        r->SwapElements(&m, site.field, size, static_cast<int>(rng() % (size + 1)));
      }
      break;
    }
  }
}

void MutateSite(const Site& site, std::mt19937_64& rng) {
  Message& m = *site.message;
  const Reflection* r = m.GetReflection();
  const FieldDescriptor* f = site.field;
  if (f->is_repeated() && site.index < 0) {
    MutateRepeated(site, rng);
    return;
  }
  const int i = site.index;
  const bool rep = f->is_repeated();
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64: {
      int64_t v = rep ? r->GetRepeatedInt64(m, f, i) : r->GetInt64(m, f);
      v = MutateInteger(v, std::numeric_limits<int64_t>::min(),
                        std::numeric_limits<int64_t>::max(), rng);
      rep ? r->SetRepeatedInt64(&m, f, i, v) : r->SetInt64(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_INT32: {
      int64_t v = rep ? r->GetRepeatedInt32(m, f, i) : r->GetInt32(m, f);
      v = MutateInteger(v, std::numeric_limits<int32_t>::min(),
                        std::numeric_limits<int32_t>::max(), rng);
      rep ? r->SetRepeatedInt32(&m, f, i, static_cast<int32_t>(v))
          : r->SetInt32(&m, f, static_cast<int32_t>(v));
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t v = rep ? r->GetRepeatedUInt64(m, f, i) : r->GetUInt64(m, f);
      v = static_cast<uint64_t>(MutateInteger(static_cast<int64_t>(v), 0,
                                              std::numeric_limits<int64_t>::max(), rng));
      rep ? r->SetRepeatedUInt64(&m, f, i, v) : r->SetUInt64(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_UINT32: {
      uint64_t v = rep ? r->GetRepeatedUInt32(m, f, i) : r->GetUInt32(m, f);
      v = static_cast<uint64_t>(MutateInteger(static_cast<int64_t>(v), 0, 0xffffffffLL, rng));
      rep ? r->SetRepeatedUInt32(&m, f, i, static_cast<uint32_t>(v))
          : r->SetUInt32(&m, f, static_cast<uint32_t>(v));
      break;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      static constexpr double kEdges[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-8, 65504.0, 1e39,
                                          std::numeric_limits<double>::infinity(),
                                          std::numeric_limits<double>::quiet_NaN()};
      const double v = kEdges[rng() % (sizeof(kEdges) / sizeof(kEdges[0]))];
      rep ? r->SetRepeatedDouble(&m, f, i, v) : r->SetDouble(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_FLOAT: {
      const float v = (rng() % 2) ? 0.0f : static_cast<float>(static_cast<int>(rng() % 512) - 256);
      rep ? r->SetRepeatedFloat(&m, f, i, v) : r->SetFloat(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_BOOL: {
      const bool v = !(rep ? r->GetRepeatedBool(m, f, i) : r->GetBool(m, f));
      rep ? r->SetRepeatedBool(&m, f, i, v) : r->SetBool(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int v = MutateEnum(f->enum_type(), rng);
      rep ? r->SetRepeatedEnumValue(&m, f, i, v) : r->SetEnumValue(&m, f, v);
      break;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string v = MutateString(rep ? r->GetRepeatedString(m, f, i) : r->GetString(m, f), rng);
      rep ? r->SetRepeatedString(&m, f, i, std::move(v)) : r->SetString(&m, f, std::move(v));
      break;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      r->ClearField(&m, f);  // drops an optional part, or a oneof member
      break;
    }
  }
}

}  // namespace

void MutateMessage(Message& message, std::mt19937_64& rng) {
  const int edits = rng() % 4 == 0 ? 2 + static_cast<int>(rng() % 3) : 1;
  for (int e = 0; e < edits; ++e) {
    std::vector<Site> sites;
    CollectSites(message, sites, 0);
    if (sites.empty()) return;
    MutateSite(sites[rng() % sites.size()], rng);
  }
}

}  // namespace tile_ir::fuzz
