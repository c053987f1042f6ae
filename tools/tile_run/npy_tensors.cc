// Header dtypes per IR dtype and the byte copies between .npy arrays and
// host buffers (both dense row-major, so every dtype but i4 copies as is).
#include "tools/tile_run/npy_tensors.h"

#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tile_ir::tools {
namespace {

using runtime::HostBuffer;

// '=' is native order, little-endian here; one-byte items have no order.
std::string Normalize(const std::string& descr) {
  if (descr.size() < 2 || std::strchr("<>|=", descr[0]) == nullptr) return descr;
  std::string body = descr.substr(1);
  if (body.size() == 2 && body[1] == '1') return "|" + body;
  return (descr[0] == '=' ? "<" : descr.substr(0, 1)) + body;
}

// The normalized descrs that hold each dtype; the first is what --out writes.
const std::vector<std::string>& Accepted(DataType dtype) {
  static const auto* table = new std::map<ScalarType, std::vector<std::string>>{
      {ScalarType::kF64, {"<f8"}},
      {ScalarType::kF32, {"<f4"}},
      {ScalarType::kF16, {"<f2"}},
      {ScalarType::kBF16, {"<V2", "|V2", "bfloat16"}},
      {ScalarType::kF8E4M3, {"|V1", "float8_e4m3fn"}},
      {ScalarType::kF8E5M2, {"|V1", "|f1", "float8_e5m2"}},
      {ScalarType::kI64, {"<i8"}},
      {ScalarType::kI32, {"<i4"}},
      {ScalarType::kI16, {"<i2"}},
      {ScalarType::kI8, {"|i1"}},
      {ScalarType::kI4, {"|i1"}},
      {ScalarType::kU8, {"|u1"}},
      {ScalarType::kU16, {"<u2"}},
      {ScalarType::kU32, {"<u4"}},
      {ScalarType::kU64, {"<u8"}},
      {ScalarType::kBool, {"|b1"}},
  };
  static const std::vector<std::string> kNone;
  auto it = table->find(dtype.scalar());
  return dtype.is_vector() || it == table->end() ? kNone : it->second;
}

// "float32" for '<f4'; empty when NumPy has no name for it.
std::string DescrName(const std::string& normalized) {
  static const auto* names = new std::map<std::string, std::string>{
      {"<f8", "float64"},
      {"<f4", "float32"},
      {"<f2", "float16"},
      {"<i8", "int64"},
      {"<i4", "int32"},
      {"<i2", "int16"},
      {"|i1", "int8"},
      {"<u8", "uint64"},
      {"<u4", "uint32"},
      {"<u2", "uint16"},
      {"|u1", "uint8"},
      {"|b1", "bool"},
      {"<c8", "complex64"},
      {"<c16", "complex128"},
      {"<V2", "2-byte void, as ml_dtypes' bfloat16 saves"},
      {"|V1", "1-byte void, as ml_dtypes' float8_e4m3fn saves"},
      {"|f1", "as ml_dtypes' float8_e5m2 saves"},
  };
  auto it = names->find(normalized);
  return it != names->end() ? it->second : "";
}

std::string Described(const std::string& descr) {
  std::string name = DescrName(Normalize(descr));
  return name.empty() ? absl::StrCat("'", descr, "'") : absl::StrCat("'", descr, "' (", name, ")");
}

template <typename T>
double Load(const std::string& data, int64_t i) {
  T value;
  std::memcpy(&value, data.data() + i * sizeof(T), sizeof(T));
  return static_cast<double>(value);
}

}  // namespace

std::string NpyDescrOf(DataType dtype) {
  const std::vector<std::string>& accepted = Accepted(dtype);
  if (accepted.empty()) return "";
  // ml_dtypes writes '<V1' and '<V2'; NumPy reads both back as void arrays.
  if (accepted.front() == "|V1") return "<V1";
  return accepted.front();
}

std::string NumpyNameOf(DataType dtype) {
  switch (dtype.scalar()) {
    case ScalarType::kBF16: return "ml_dtypes.bfloat16";
    case ScalarType::kF8E4M3: return "ml_dtypes.float8_e4m3fn";
    case ScalarType::kF8E5M2: return "ml_dtypes.float8_e5m2";
    case ScalarType::kI4: return "int8 holding 4-bit values";
    default: return DescrName(NpyDescrOf(dtype));
  }
}

absl::Status CheckNpyDtype(DataType dtype, const std::string& descr) {
  const std::vector<std::string>& accepted = Accepted(dtype);
  if (accepted.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(dtype.ToString(), " has no .npy form"));
  }
  const std::string normalized = Normalize(descr);
  for (const std::string& each : accepted) {
    if (each == normalized) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat("the file holds ", Described(descr)));
}

absl::StatusOr<std::unique_ptr<HostBuffer>> NpyToHostBuffer(const npy::NpyArray& array,
                                                            DataType dtype) {
  if (absl::Status status = CheckNpyDtype(dtype, array.descr); !status.ok()) return status;
  absl::StatusOr<std::unique_ptr<HostBuffer>> buffer = HostBuffer::Create(dtype, array.shape);
  if (!buffer.ok()) return buffer.status();
  HostBuffer& b = **buffer;
  if (dtype.scalar() != ScalarType::kI4) {
    if (static_cast<int64_t>(array.data.size()) != b.size_bytes()) {
      return absl::InternalError(absl::StrCat("an array of ", array.data.size(),
                                              " bytes for a buffer of ", b.size_bytes()));
    }
    std::memcpy(b.data(), array.data.data(), array.data.size());
    return buffer;
  }
  for (int64_t i = 0; i < b.num_elements(); ++i) {
    const int value = static_cast<int8_t>(array.data[i]);
    if (value < -8 || value > 7) {
      return absl::InvalidArgumentError(
          absl::StrCat("element ", i, " is ", value, ", outside i4's range [-8, 7]"));
    }
    b.Set(i, value);
  }
  return buffer;
}

npy::NpyArray HostBufferToNpy(const HostBuffer& buffer) {
  npy::NpyArray array;
  array.descr = NpyDescrOf(buffer.dtype());
  array.shape = buffer.shape();
  if (buffer.dtype().scalar() == ScalarType::kI4) {
    for (int64_t i = 0; i < buffer.num_elements(); ++i) {
      array.data.push_back(static_cast<char>(static_cast<int8_t>(buffer.Get(i))));
    }
    return array;
  }
  array.data.assign(static_cast<const char*>(buffer.data()), buffer.size_bytes());
  return array;
}

absl::StatusOr<std::vector<double>> NpyToDoubles(const npy::NpyArray& array,
                                                 DataType output_dtype) {
  const int64_t n = array.num_elements();
  std::vector<double> values(n);
  if (CheckNpyDtype(output_dtype, array.descr).ok()) {
    absl::StatusOr<std::unique_ptr<HostBuffer>> buffer = NpyToHostBuffer(array, output_dtype);
    if (!buffer.ok()) return buffer.status();
    for (int64_t i = 0; i < n; ++i) values[i] = (*buffer)->Get(i);
    return values;
  }
  const std::string d = Normalize(array.descr);
  double (*load)(const std::string&, int64_t) = nullptr;
  if (d == "<f8") load = Load<double>;
  if (d == "<f4") load = Load<float>;
  if (d == "<i8") load = Load<int64_t>;
  if (d == "<i4") load = Load<int32_t>;
  if (d == "<i2") load = Load<int16_t>;
  if (d == "|i1") load = Load<int8_t>;
  if (d == "<u8") load = Load<uint64_t>;
  if (d == "<u4") load = Load<uint32_t>;
  if (d == "<u2") load = Load<uint16_t>;
  if (d == "|u1" || d == "|b1") load = Load<uint8_t>;
  if (d == "<f2") {
    absl::StatusOr<std::unique_ptr<HostBuffer>> half = NpyToHostBuffer(array, kF16);
    if (!half.ok()) return half.status();
    for (int64_t i = 0; i < n; ++i) values[i] = (*half)->Get(i);
    return values;
  }
  if (load == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the file holds ", Described(array.descr),
        ", which is neither a bool, integer or float array nor a form of the output's ",
        output_dtype.ToString()));
  }
  for (int64_t i = 0; i < n; ++i) values[i] = load(array.data, i);
  return values;
}

}  // namespace tile_ir::tools
