// The .npy reader and writer; the header is a Python dict literal, parsed by
// a small scanner that knows exactly the subset NumPy writes (strings, True,
// False, tuples of integers).
#include "tools/npy/npy.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontends/io/bounded_file.h"

namespace tile_ir::npy {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr int64_t kAlignment = 64;

// A value of the header dict.
struct HeaderValue {
  enum class Kind { kString, kBool, kInt, kTuple, kList } kind = Kind::kString;
  std::string text;  // a string's value; for every kind, the value as written (for messages)
  bool flag = false;
  std::vector<int64_t> ints;  // a tuple's items; an integer's value
};

class HeaderScanner {
 public:
  explicit HeaderScanner(std::string_view text) : text_(text) {}

  absl::StatusOr<std::map<std::string, HeaderValue>> Dict() {
    std::map<std::string, HeaderValue> dict;
    if (!Eat('{')) return Error("the header does not start with '{'");
    while (true) {
      SkipSpace();
      if (Eat('}')) break;
      absl::StatusOr<std::string> key = String();
      if (!key.ok()) return key.status();
      if (!Eat(':')) return Error(absl::StrCat("no ':' after the key '", *key, "'"));
      absl::StatusOr<HeaderValue> value = Value(*key);
      if (!value.ok()) return value.status();
      if (!dict.emplace(*key, *std::move(value)).second) {
        return Error(absl::StrCat("the key '", *key, "' appears twice"));
      }
      if (Eat(',')) continue;
      if (Eat('}')) break;
      return Error("expected ',' or '}' after a value");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("text after the closing '}'");
    return dict;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool EatWord(std::string_view word) {
    SkipSpace();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed header at character ", pos_, ": ", std::string(what)));
  }
  absl::StatusOr<std::string> String() {
    SkipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return Error("expected a quoted string");
    }
    const char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return Error("an unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  absl::StatusOr<int64_t> Int(const std::string& key) {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (start == pos_) {
      return Error(absl::StrCat("expected a non-negative integer in '", key, "'"));
    }
    std::string digits(text_.substr(start, pos_ - start));
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2's long suffix
    errno = 0;
    long long value = std::strtoll(digits.c_str(), nullptr, 10);
    if (errno == ERANGE) {
      return Error(absl::StrCat("the integer ", digits, " in '", key, "' is too large"));
    }
    return static_cast<int64_t>(value);
  }
  // The value of `key`; what it was written as goes in `text` for every kind.
  absl::StatusOr<HeaderValue> Value(const std::string& key) {
    SkipSpace();
    const size_t start = pos_;
    absl::StatusOr<HeaderValue> value = ValueAt(key);
    if (value.ok() && value->kind != HeaderValue::Kind::kString) {
      value->text = std::string(text_.substr(start, pos_ - start));
    }
    return value;
  }
  absl::StatusOr<HeaderValue> ValueAt(const std::string& key) {
    HeaderValue value;
    if (EatWord("True")) {
      value.kind = HeaderValue::Kind::kBool;
      value.flag = true;
      return value;
    }
    if (EatWord("False")) {
      value.kind = HeaderValue::Kind::kBool;
      return value;
    }
    if (Eat('[')) {  // a structured descr: recorded, refused by the caller
      value.kind = HeaderValue::Kind::kList;
      int depth = 1;
      while (pos_ < text_.size() && depth > 0) {
        if (text_[pos_] == '[') ++depth;
        if (text_[pos_] == ']') --depth;
        ++pos_;
      }
      if (depth != 0)
        return Error(absl::StrCat("an unterminated list as the value of '", key, "'"));
      return value;
    }
    if (Eat('(')) {
      value.kind = HeaderValue::Kind::kTuple;
      while (!Eat(')')) {
        absl::StatusOr<int64_t> item = Int(key);
        if (!item.ok()) return item.status();
        value.ints.push_back(*item);
        if (!Eat(',') && !(SkipSpace(), pos_ < text_.size() && text_[pos_] == ')')) {
          return Error(absl::StrCat("expected ',' or ')' in the tuple of '", key, "'"));
        }
      }
      return value;
    }
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      absl::StatusOr<int64_t> number = Int(key);
      if (!number.ok()) return number.status();
      value.kind = HeaderValue::Kind::kInt;
      value.ints = {*number};
      return value;
    }
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return Error(absl::StrCat("the value of '", key,
                                "' is not a string, True, False, an integer or a tuple"));
    }
    absl::StatusOr<std::string> text = String();
    if (!text.ok()) return text.status();
    value.text = *std::move(text);
    return value;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

uint32_t ReadLittleEndian(std::string_view bytes, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  }
  return value;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

// The product of the extents, or -1 when it overflows.
int64_t Product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t extent : shape) {
    if (extent != 0 && n > std::numeric_limits<int64_t>::max() / extent) return -1;
    n *= extent;
  }
  return n;
}

// A header value as written, for messages; a string quoted.
std::string Shown(const HeaderValue& value) {
  constexpr size_t kMaxShown = 40;
  std::string text =
      value.kind == HeaderValue::Kind::kString ? absl::StrCat("'", value.text, "'") : value.text;
  if (text.size() <= kMaxShown) return text;
  return absl::StrCat(text.substr(0, kMaxShown), "... (", text.size(), " characters)");
}

}  // namespace

int64_t NpyArray::num_elements() const { return Product(shape); }

absl::StatusOr<int64_t> DescrItemSize(std::string_view descr) {
  if (descr == "bfloat16") return 2;
  if (descr == "float8_e4m3fn" || descr == "float8_e5m2") return 1;
  std::string_view rest = descr;
  char order = '|';
  if (!rest.empty() && std::strchr("<>|=", rest[0]) != nullptr) {
    order = rest[0];
    rest.remove_prefix(1);
  }
  if (rest.size() < 2 || std::strchr("biufcV", rest[0]) == nullptr) {
    std::string why = "not a kind letter (b, i, u, f, c, V) and an item size";
    if (!rest.empty() && rest[0] == 'O') why = "an object array (pickled Python objects)";
    if (!rest.empty() && std::strchr("SUa", rest[0]) != nullptr) why = "a string dtype";
    if (!rest.empty() && std::strchr("Mm", rest[0]) != nullptr) why = "a date or time dtype";
    return absl::InvalidArgumentError(
        absl::StrCat("dtype '", std::string(descr), "' is unsupported: ", why));
  }
  int64_t size = 0;
  for (char c : rest.substr(1)) {
    if (!std::isdigit(static_cast<unsigned char>(c)) || size > 1 << 20) {
      return absl::InvalidArgumentError(
          absl::StrCat("dtype '", std::string(descr), "' has no valid item size"));
    }
    size = size * 10 + (c - '0');
  }
  if (size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("dtype '", std::string(descr), "' has item size 0"));
  }
  if (order == '>' && size > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype '", std::string(descr), "' is big-endian, which is unsupported; save a.astype('<",
        std::string(rest), "') instead"));
  }
  return size;
}

namespace {

// Where the header dict starts and how long it is, from the magic, the version and the header
// length (the first 12 bytes at most).
struct HeaderExtent {
  size_t start = 0;
  size_t length = 0;
};

absl::StatusOr<HeaderExtent> ReadHeaderExtent(std::string_view bytes) {
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic) {
    return absl::InvalidArgumentError(
        "not a .npy file (bad magic: it does not start with \\x93NUMPY)");
  }
  if (bytes.size() < kMagic.size() + 2) {
    return absl::InvalidArgumentError("truncated before the format version");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return absl::InvalidArgumentError(absl::StrCat("unsupported .npy format version ", major, ".",
                                                   minor, " (this reader knows 1.0, 2.0 and 3.0)"));
  }
  const size_t length_width = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_width) {
    return absl::InvalidArgumentError("truncated inside the header length");
  }
  return HeaderExtent{8 + length_width, ReadLittleEndian(bytes.substr(8), length_width)};
}

// The array a file of `file_size` bytes holds, without its data; `bytes` is the file's start,
// through the end of its header where the file is that long. Checks that the data the header
// declares is exactly what follows it, so a reader allocates only what the file holds.
absl::StatusOr<NpyArray> ParseHeader(std::string_view bytes, int64_t file_size,
                                     std::string_view source, size_t* data_offset) {
  auto fail = [&source](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(source), ": ", what));
  };
  absl::StatusOr<HeaderExtent> extent = ReadHeaderExtent(bytes);
  if (!extent.ok()) return fail(std::string(extent.status().message()));
  const size_t header_start = extent->start;
  const size_t header_length = extent->length;
  if (bytes.size() < header_start + header_length) {
    return fail(absl::StrCat("truncated header: it says ", header_length, " bytes, the file has ",
                             bytes.size() - header_start, " after it"));
  }
  std::string_view header = bytes.substr(header_start, header_length);
  absl::StatusOr<std::map<std::string, HeaderValue>> dict = HeaderScanner(header).Dict();
  if (!dict.ok()) return fail(std::string(dict.status().message()));
  for (const auto& [key, value] : *dict) {
    if (key != "descr" && key != "fortran_order" && key != "shape") {
      return fail(absl::StrCat("the header has the unknown key '", key,
                               "' (a .npy header holds 'descr', 'fortran_order' and 'shape')"));
    }
  }
  for (const char* key : {"descr", "fortran_order", "shape"}) {
    if (!dict->contains(key)) return fail(absl::StrCat("the header has no '", key, "'"));
  }
  const HeaderValue& descr = dict->at("descr");
  const HeaderValue& fortran = dict->at("fortran_order");
  const HeaderValue& shape = dict->at("shape");
  if (descr.kind == HeaderValue::Kind::kList) {
    return fail("structured dtypes (a list descr) are unsupported");
  }
  if (descr.kind != HeaderValue::Kind::kString) {
    return fail(
        absl::StrCat("'descr' is ", Shown(descr), "; expected a dtype string such as '<f4'"));
  }
  if (fortran.kind != HeaderValue::Kind::kBool) {
    return fail(absl::StrCat("'fortran_order' is ", Shown(fortran), "; expected True or False"));
  }
  if (shape.kind == HeaderValue::Kind::kInt) {
    return fail(absl::StrCat("'shape' is the integer ", shape.ints[0],
                             "; expected a tuple of integers such as (", shape.ints[0], ",)"));
  }
  if (shape.kind != HeaderValue::Kind::kTuple) {
    return fail(
        absl::StrCat("'shape' is ", Shown(shape), "; expected a tuple of integers such as (2, 3)"));
  }
  if (fortran.flag) {
    return fail("Fortran order (column-major) is unsupported; save np.ascontiguousarray(a)");
  }
  absl::StatusOr<int64_t> item_size = DescrItemSize(descr.text);
  if (!item_size.ok()) return fail(std::string(item_size.status().message()));

  NpyArray array;
  array.descr = descr.text;
  array.shape = shape.ints;
  const int64_t elements = array.num_elements();
  if (elements < 0 || elements > std::numeric_limits<int64_t>::max() / *item_size) {
    return fail(absl::StrCat("the shape ", ShapeText(array.shape), " is too large"));
  }
  const int64_t want = elements * *item_size;
  const int64_t have = file_size - static_cast<int64_t>(header_start + header_length);
  if (have != want) {
    return fail(absl::StrCat(have < want ? "truncated data" : "trailing bytes after the data",
                             ": shape ", ShapeText(array.shape), " of '", array.descr, "' is ",
                             want, " bytes, the file has ", have));
  }
  *data_offset = header_start + header_length;
  return array;
}

}  // namespace

absl::StatusOr<NpyArray> ParseNpy(std::string_view bytes, std::string_view source) {
  size_t data_offset = 0;
  absl::StatusOr<NpyArray> array =
      ParseHeader(bytes, static_cast<int64_t>(bytes.size()), source, &data_offset);
  if (!array.ok()) return array.status();
  array->data = std::string(bytes.substr(data_offset));
  return array;
}

absl::StatusOr<std::string> SerializeNpy(const NpyArray& array) {
  absl::StatusOr<int64_t> item_size = DescrItemSize(array.descr);
  if (!item_size.ok()) return item_size.status();
  const int64_t elements = array.num_elements();
  if (elements < 0 || static_cast<int64_t>(array.data.size()) != elements * *item_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "an array of shape ", ShapeText(array.shape), " and dtype '", array.descr, "' needs ",
        elements * *item_size, " bytes of data, given ", array.data.size()));
  }
  std::string header =
      absl::StrCat("{'descr': '", array.descr,
                   "', 'fortran_order': False, 'shape': ", ShapeText(array.shape), ", }");
  int major = 1;
  size_t prefix = 10;
  if (header.size() + 1 + prefix > 65535) {
    major = 2;
    prefix = 12;
  }
  const size_t total = prefix + header.size() + 1;
  header.append((kAlignment - total % kAlignment) % kAlignment, ' ');
  header.push_back('\n');
  std::string out(kMagic);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  const size_t length = header.size();
  for (size_t i = 0; i < prefix - 8; ++i)
    out.push_back(static_cast<char>((length >> (8 * i)) & 0xFF));
  out += header;
  out += array.data;
  return out;
}

absl::StatusOr<NpyArray> ReadNpyFile(const std::string& path) {
  absl::StatusOr<io::BoundedFile> file = io::BoundedFile::Open(path, kMaxNpyFileBytes);
  if (!file.ok()) return file.status();
  const int64_t size = file->size();
  // The magic, version and header length, then the header: nothing past what the file holds.
  std::string bytes;
  if (absl::Status read = file->Read(std::min<int64_t>(size, 12), &bytes); !read.ok()) return read;
  absl::StatusOr<HeaderExtent> extent = ReadHeaderExtent(bytes);
  if (extent.ok()) {
    const int64_t header_end = std::min<int64_t>(size, extent->start + extent->length);
    if (header_end > static_cast<int64_t>(bytes.size())) {
      absl::Status read = file->Read(header_end - static_cast<int64_t>(bytes.size()), &bytes);
      if (!read.ok()) return read;
    }
  }
  size_t data_offset = 0;
  absl::StatusOr<NpyArray> array = ParseHeader(bytes, size, path, &data_offset);
  if (!array.ok()) return array.status();
  // The header's data size is the file's (ParseHeader checked), so this reads just that.
  array->data = bytes.substr(std::min(data_offset, bytes.size()));
  if (absl::Status read = file->ReadRest(&array->data); !read.ok()) return read;
  return array;
}

absl::Status WriteNpyFile(const std::string& path, const NpyArray& array) {
  absl::StatusOr<std::string> bytes = SerializeNpy(array);
  if (!bytes.ok())
    return absl::Status(bytes.status().code(), absl::StrCat(path, ": ", bytes.status().message()));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot write: ", std::strerror(errno)));
  }
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat(path, ": write failed"));
  return absl::OkStatus();
}

}  // namespace tile_ir::npy
