// safetensors and .npy readers and writers.
#include <axle/ops.h>
#include <axle/serialization.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <vector>

#include "json_limits.h"

namespace axle {

using nlohmann::json;

namespace {

struct DTypeCode {
  DType dtype;
  const char* safetensors;
  const char* npy;
};
constexpr DTypeCode kCodes[] = {
    {kFloat32, "F32", "<f4"}, {kFloat64, "F64", "<f8"}, {kFloat16, "F16", "<f2"}, {kBFloat16, "BF16", nullptr},
    {kInt8, "I8", "|i1"},     {kUInt8, "U8", "|u1"},    {kInt16, "I16", "<i2"},   {kInt32, "I32", "<i4"},
    {kInt64, "I64", "<i8"},   {kBool, "BOOL", "|b1"},
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  AXLE_CHECK(in.good(), ValueError, "cannot open '", path, "' for reading");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  AXLE_CHECK(out.good(), ValueError, "cannot open '", path, "' for writing");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  AXLE_CHECK(out.good(), ValueError, "failed writing '", path, "'");
}

Tensor host_contiguous(const Tensor& t) { return t.to(Device("cpu")).contiguous(); }

}  // namespace

void save_safetensors(const std::map<std::string, Tensor>& tensors, const std::string& path,
                      const std::map<std::string, std::string>& metadata) {
  json header = json::object();
  std::string data;
  for (const auto& [name, t] : tensors) {
    AXLE_CHECK(name != "__metadata__", ValueError, "save_safetensors(): '__metadata__' is a reserved name");
    const Tensor h = host_contiguous(t);
    const char* code = nullptr;
    for (const auto& c : kCodes)
      if (c.dtype == h.dtype()) code = c.safetensors;
    const size_t begin = data.size();
    data.append(static_cast<const char*>(h.data_ptr()), h.nbytes());
    header[name] = {{"dtype", code}, {"shape", h.sizes()}, {"data_offsets", {begin, data.size()}}};
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string text = header.dump();
  while ((text.size() + 8) % 8 != 0) text.push_back(' ');  // keep the data 8-byte aligned
  std::string out(8, '\0');
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  write_file(path, out + text + data);
}

std::map<std::string, Tensor> load_safetensors(const std::string& path, std::map<std::string, std::string>* metadata) {
  // The checks of the reference loader (the safetensors crate's
  // SafeTensors::deserialize): a header of at most 100 MB that is one JSON
  // object nested at most 128 deep, no key twice, "__metadata__" a map of
  // strings, and data_offsets that, sorted, tile the data exactly: the first
  // starts at 0, each starts where the previous ends, the last ends at the end
  // of the file; each covers exactly its shape's bytes, computed without
  // overflow.
  const std::string bytes = read_file(path);
  AXLE_CHECK(bytes.size() >= 8, ValueError, "'", path,
             "' is not a safetensors file: shorter than its 8-byte header size");
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  constexpr uint64_t kMaxHeader = 100'000'000;
  AXLE_CHECK(n <= kMaxHeader, ValueError, "'", path, "': header size ", n, " is above the safetensors limit of ",
             kMaxHeader, " bytes");
  AXLE_CHECK(n <= bytes.size() - 8, ValueError, "'", path, "': header size ", n, " exceeds the file size ",
             bytes.size());
  const std::string_view text(bytes.data() + 8, n);
  AXLE_CHECK(!text.empty() && text[0] == '{', ValueError, "'", path,
             "': safetensors header must be a JSON object (it starts with '{')");
  AXLE_CHECK(detail::json_depth(text) <= detail::kMaxJsonDepth, ValueError, "'", path,
             "': malformed safetensors header: recursion limit exceeded (nested deeper than ", detail::kMaxJsonDepth,
             " levels)");
  json header;
  try {
    std::vector<std::set<std::string>> keys;  // one per open object
    header = json::parse(text, [&](int, json::parse_event_t event, json& parsed) {
      if (event == json::parse_event_t::object_start) {
        keys.emplace_back();
      } else if (event == json::parse_event_t::object_end) {
        keys.pop_back();
      } else if (event == json::parse_event_t::key && !keys.empty()) {
        const std::string& k = parsed.get_ref<const std::string&>();
        AXLE_CHECK(keys.back().insert(k).second, ValueError, "'", path, "': malformed safetensors header: key '",
                   detail::excerpt(k), "' appears twice");
      }
      return true;
    });
  } catch (const json::exception& e) {
    throw ValueError(detail::concat("'", path, "': malformed safetensors header: ", e.what()));
  }
  AXLE_CHECK(header.is_object(), ValueError, "'", path, "': safetensors header must be a JSON object");
  const uint64_t data_begin = 8 + n, data_size = bytes.size() - data_begin;
  struct Entry {
    std::string name;
    DType dtype;
    IntList shape;
    uint64_t begin, end;
  };
  std::vector<Entry> entries;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      const json& m = it.value();
      AXLE_CHECK(m.is_object(), ValueError, "'", path, "': '__metadata__' must map names to strings, got ",
                 detail::json_excerpt(m));
      for (auto kv = m.begin(); kv != m.end(); ++kv) {
        AXLE_CHECK(kv.value().is_string(), ValueError, "'", path, "': '__metadata__' value of '",
                   detail::excerpt(kv.key()), "' must be a string, got ", detail::json_excerpt(kv.value()));
        if (metadata) (*metadata)[kv.key()] = kv.value().get<std::string>();
      }
      continue;
    }
    const json& e = it.value();
    const std::string where = detail::concat("'", path, "' tensor '", detail::excerpt(it.key()), "'");
    AXLE_CHECK(e.is_object() && e.contains("dtype") && e.contains("shape") && e.contains("data_offsets"), ValueError,
               where, ": needs dtype, shape and data_offsets");
    AXLE_CHECK(e["dtype"].is_string(), ValueError, where, ": dtype must be a string");
    std::optional<DType> dt;
    for (const auto& c : kCodes)
      if (e["dtype"].get<std::string>() == c.safetensors) dt = c.dtype;
    AXLE_CHECK(dt.has_value(), ValueError, where, ": unsupported dtype ", detail::json_excerpt(e["dtype"]));
    AXLE_CHECK(e["shape"].is_array() && e["data_offsets"].is_array() && e["data_offsets"].size() == 2, ValueError,
               where, ": shape must be a list and data_offsets a pair");
    AXLE_CHECK(e["shape"].size() <= static_cast<size_t>(kMaxTensorDims), ValueError, where, ": shape of ",
               e["shape"].size(), " dimensions; tensors have at most ", kMaxTensorDims);
    IntList shape;
    for (const json& s : e["shape"]) {
      AXLE_CHECK(s.is_number_unsigned() && s.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX), ValueError, where,
                 ": bad dimension ", detail::json_excerpt(s));
      shape.push_back(s.get<int64_t>());
    }
    const json& off = e["data_offsets"];
    AXLE_CHECK(off[0].is_number_unsigned() && off[1].is_number_unsigned(), ValueError, where,
               ": data_offsets must be non-negative integers");
    const uint64_t begin = off[0].get<uint64_t>(), end = off[1].get<uint64_t>();
    AXLE_CHECK(begin <= end && end <= data_size, ValueError, where, ": data_offsets [", begin, ", ", end,
               "] outside the data (", data_size, " bytes)");
    // Every dimension's product (zeros skipped, as numpy's size check) and the
    // byte count fit: the strides of the tensor do too.
    uint64_t span = 1;
    for (int64_t s : shape)
      AXLE_CHECK(!__builtin_mul_overflow(span, static_cast<uint64_t>(std::max<int64_t>(s, 1)), &span) &&
                     span <= static_cast<uint64_t>(INT64_MAX),
                 ValueError, where, ": shape ", shape_string(shape), " overflows int64");
    const uint64_t numel = static_cast<uint64_t>(checked_numel(shape));
    uint64_t nbytes = 0;
    AXLE_CHECK(!__builtin_mul_overflow(numel, static_cast<uint64_t>(element_size(*dt)), &nbytes), ValueError, where,
               ": shape ", shape_string(shape), " of ", dtype_name(*dt), " overflows the byte count");
    AXLE_CHECK(end - begin == nbytes, ValueError, where, ": ", end - begin, " bytes for shape ", shape_string(shape),
               " of ", dtype_name(*dt), " (", nbytes, " expected)");
    entries.push_back({it.key(), *dt, std::move(shape), begin, end});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  uint64_t covered = 0;
  for (const Entry& e : entries) {
    AXLE_CHECK(e.begin == covered, ValueError, "'", path, "' tensor '", detail::excerpt(e.name), "': data_offsets [",
               e.begin, ", ", e.end, "] ", e.begin < covered ? "overlap" : "leave a gap after", " the data before (",
               covered, " bytes)");
    covered = e.end;
  }
  AXLE_CHECK(covered == data_size, ValueError, "'", path, "': the tensors cover ", covered,
             " bytes of data but the file has ", data_size, " after the header");
  std::map<std::string, Tensor> out;
  for (Entry& e : entries) {
    Tensor t = make_empty(e.shape, e.dtype, Device("cpu"));
    if (e.end > e.begin) std::memcpy(t.data_ptr(), bytes.data() + data_begin + e.begin, e.end - e.begin);
    out.emplace(std::move(e.name), std::move(t));
  }
  return out;
}

void save_npy(const Tensor& tensor, const std::string& path) {
  const Tensor h = host_contiguous(tensor);
  const char* descr = nullptr;
  for (const auto& c : kCodes)
    if (c.dtype == h.dtype()) descr = c.npy;
  AXLE_CHECK(descr != nullptr, DTypeError, "save_npy(): numpy has no ", dtype_name(h.dtype()), " dtype");
  std::string shape = "(";
  for (int64_t s : h.sizes()) shape += std::to_string(s) + ", ";
  if (h.dim() > 1)
    shape.erase(shape.size() - 2);
  else if (h.dim() == 1)
    shape.erase(shape.size() - 1);
  shape += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>((header.size() >> 8) & 0xff));
  write_file(path, out + header + std::string(static_cast<const char*>(h.data_ptr()), h.nbytes()));
}

namespace {

// A Python literal as a .npy header holds one: numpy writes repr() of a dict and
// reads it back with ast.literal_eval. The subset here is what such a header
// can hold: str, int, True/False/None, tuple, list and dict (string keys).
struct PyLiteral {
  enum Kind { kStr, kInt, kBool, kNone, kTuple, kList, kDict } kind = kNone;
  std::string str;
  int64_t integer = 0;
  bool boolean = false;
  std::vector<PyLiteral> items;   // tuple, list and dict values
  std::vector<std::string> keys;  // dict keys, in file order
};

const char* kind_name(PyLiteral::Kind k) {
  static const char* const names[] = {"a string", "an integer", "a boolean", "None", "a tuple", "a list", "a dict"};
  return names[k];
}

// A recursive-descent parser over the header text; nesting is bounded (a
// header holds a dict of scalars and one tuple; a structured dtype's list of
// tuples is the deepest numpy writes), every error a ValueError naming the
// file and the byte.
class NpyHeaderParser {
 public:
  NpyHeaderParser(std::string_view text, const std::string& path, bool long_suffix)
      : text_(text), path_(path), long_suffix_(long_suffix) {}

  PyLiteral document() {
    PyLiteral v = value(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the header's dict");
    return v;
  }

 private:
  static constexpr int kMaxDepth = 16;

  [[noreturn]] void fail(const std::string& what) const {
    throw ValueError(detail::concat("'", path_, "': malformed .npy header at byte ", pos_, ": ", what));
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\f'))
      ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  char peek() {
    skip_space();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

  PyLiteral value(int depth) {
    if (depth > kMaxDepth) fail(detail::concat("nested deeper than ", kMaxDepth, " levels"));
    const char c = peek();
    if (c == '\'' || c == '"') return string();
    if (c == '-' || (c >= '0' && c <= '9')) return integer();
    if (c == '{') return dict(depth);
    if (c == '[') return sequence(depth, PyLiteral::kList, ']');
    if (c == '(') return sequence(depth, PyLiteral::kTuple, ')');
    for (const auto& [word, kind, b] :
         {std::tuple{"True", PyLiteral::kBool, true}, std::tuple{"False", PyLiteral::kBool, false},
          std::tuple{"None", PyLiteral::kNone, false}}) {
      const size_t len = std::strlen(word);
      if (text_.compare(pos_, len, word) == 0 &&
          (pos_ + len == text_.size() ||
           !(std::isalnum(static_cast<unsigned char>(text_[pos_ + len])) || text_[pos_ + len] == '_'))) {
        pos_ += len;
        PyLiteral v;
        v.kind = kind;
        v.boolean = b;
        return v;
      }
    }
    fail(pos_ < text_.size() ? "expected a Python literal" : "the header ends inside its dict");
  }

  PyLiteral string() {
    const char quote = text_[pos_++];
    PyLiteral v;
    v.kind = PyLiteral::kStr;
    for (;;) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') fail("unterminated string");
      const char c = text_[pos_++];
      if (c == quote) return v;
      if (c == '\\') {
        if (pos_ >= text_.size()) fail("unterminated string");
        v.str.push_back(text_[pos_++]);  // the escaped character itself: no header needs more
      } else {
        v.str.push_back(c);
      }
    }
  }

  PyLiteral integer() {
    const size_t begin = pos_;
    const bool negative = text_[pos_] == '-';
    if (negative) ++pos_;
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) fail("expected digits");
    int64_t v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      const int digit = text_[pos_++] - '0';
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, negative ? -digit : digit, &v))
        fail(detail::concat("integer ", detail::excerpt(text_.substr(begin, pos_ - begin + 20), 40),
                            " does not fit in int64"));
    }
    if (long_suffix_ && pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l'))
      ++pos_;  // Python 2's long, as numpy's reader filters it from version 1 and 2 headers
    if (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.'))
      fail("expected an integer");
    PyLiteral out;
    out.kind = PyLiteral::kInt;
    out.integer = v;
    return out;
  }

  // A list, or a tuple: "()" and "(x,)" are tuples, "(x)" is x.
  PyLiteral sequence(int depth, PyLiteral::Kind kind, char close) {
    ++pos_;
    PyLiteral v;
    v.kind = kind;
    if (eat(close)) return v;
    PyLiteral first = value(depth + 1);
    if (kind == PyLiteral::kTuple && eat(')')) return first;
    v.items.push_back(std::move(first));
    for (;;) {
      if (eat(close)) return v;
      if (!eat(',')) fail(detail::concat("expected ',' or '", close, "'"));
      if (eat(close)) return v;
      v.items.push_back(value(depth + 1));
    }
  }

  PyLiteral dict(int depth) {
    ++pos_;
    PyLiteral v;
    v.kind = PyLiteral::kDict;
    for (;;) {
      if (eat('}')) return v;
      const char q = peek();
      if (q != '\'' && q != '"') fail("a dict key must be a string");
      std::string key = string().str;
      if (std::find(v.keys.begin(), v.keys.end(), key) != v.keys.end())
        fail(detail::concat("key '", detail::excerpt(key), "' appears twice"));
      if (!eat(':')) fail("expected ':' after a dict key");
      v.keys.push_back(std::move(key));
      v.items.push_back(value(depth + 1));
      if (eat('}')) return v;
      if (!eat(',')) fail("expected ',' or '}'");
    }
  }

  std::string_view text_;
  const std::string& path_;
  bool long_suffix_;
  size_t pos_ = 0;
};

}  // namespace

Tensor load_npy(const std::string& path) {
  const std::string bytes = read_file(path);
  AXLE_CHECK(bytes.size() >= 10 && bytes.compare(0, 6, "\x93NUMPY") == 0, ValueError, "'", path,
             "' is not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  AXLE_CHECK(major >= 1 && major <= 3 && minor == 0, ValueError, "'", path, "': unsupported .npy version ", major, ".",
             minor, " (numpy writes 1.0, 2.0 and 3.0)");
  size_t hlen, start;
  if (major == 1) {
    hlen = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    start = 10;
  } else {
    AXLE_CHECK(bytes.size() >= 12, ValueError, "'", path, "': truncated header");
    hlen = 0;
    for (int i = 0; i < 4; ++i) hlen |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    start = 12;
  }
  // numpy's reader refuses longer headers (np.load's max_header_size) unless
  // told the file is trusted; axle writes at most a few hundred bytes.
  constexpr size_t kMaxHeader = 10000;
  AXLE_CHECK(hlen <= kMaxHeader, ValueError, "'", path, "': header of ", hlen, " bytes is above numpy's limit of ",
             kMaxHeader);
  AXLE_CHECK(start + hlen <= bytes.size(), ValueError, "'", path, "': header length ", hlen, " exceeds the file");
  const PyLiteral header = NpyHeaderParser(std::string_view(bytes).substr(start, hlen), path, major <= 2).document();
  // The keys numpy's reader requires: exactly these three.
  static const char* const kKeys[] = {"descr", "fortran_order", "shape"};
  std::vector<std::string> keys = header.keys;
  std::sort(keys.begin(), keys.end());
  const bool right_keys =
      header.kind == PyLiteral::kDict && std::equal(keys.begin(), keys.end(), std::begin(kKeys), std::end(kKeys));
  std::string got;
  for (const std::string& k : header.keys) got += (got.empty() ? "'" : ", '") + detail::excerpt(k, 40) + "'";
  AXLE_CHECK(right_keys, ValueError, "'", path,
             "': the header must be a dict with the keys 'descr', 'fortran_order' and 'shape', got ",
             header.kind == PyLiteral::kDict ? "{" + detail::excerpt(got, 200) + "}" : kind_name(header.kind));
  auto field = [&](const char* key) -> const PyLiteral& {
    return header.items[std::find(header.keys.begin(), header.keys.end(), key) - header.keys.begin()];
  };
  const PyLiteral& descr_v = field("descr");
  AXLE_CHECK(descr_v.kind != PyLiteral::kList, ValueError, "'", path,
             "': a structured dtype (a list of fields); axle reads plain dtypes only");
  AXLE_CHECK(descr_v.kind == PyLiteral::kStr, ValueError, "'", path, "': 'descr' must be a dtype string, got ",
             kind_name(descr_v.kind));
  const std::string& descr = descr_v.str;
  std::optional<DType> dt;
  for (const auto& c : kCodes)
    if (c.npy && (descr == c.npy ||
                  (descr.size() == 3 && std::string(c.npy).substr(1) == descr.substr(1) &&
                   (descr[0] == '=' || descr[0] == '|' || descr[0] == '<' || (descr[0] == '>' && c.npy[0] == '|')))))
      dt = c.dtype;
  AXLE_CHECK(dt.has_value(), ValueError, "'", path, "': unsupported dtype '", detail::excerpt(descr),
             "' (big-endian or one axle lacks)");
  const PyLiteral& fortran_v = field("fortran_order");
  AXLE_CHECK(fortran_v.kind == PyLiteral::kBool, ValueError, "'", path,
             "': 'fortran_order' must be True or False, got ", kind_name(fortran_v.kind));
  const bool fortran = fortran_v.boolean;
  const PyLiteral& shape_v = field("shape");
  AXLE_CHECK(shape_v.kind == PyLiteral::kTuple, ValueError, "'", path, "': 'shape' must be a tuple of integers, got ",
             kind_name(shape_v.kind));
  AXLE_CHECK(shape_v.items.size() <= static_cast<size_t>(kMaxTensorDims), ValueError, "'", path, "': shape of ",
             shape_v.items.size(), " dimensions; tensors have at most ", kMaxTensorDims);
  IntList shape;
  for (const PyLiteral& s : shape_v.items) {
    AXLE_CHECK(s.kind == PyLiteral::kInt && s.integer >= 0, ValueError, "'", path,
               "': 'shape' entries must be non-negative integers, got ",
               s.kind == PyLiteral::kInt ? std::to_string(s.integer) : kind_name(s.kind));
    shape.push_back(s.integer);
  }
  const int64_t numel = checked_numel(shape);
  size_t nbytes = 0;
  AXLE_CHECK(!__builtin_mul_overflow(static_cast<size_t>(numel), element_size(*dt), &nbytes), ValueError, "'", path,
             "': shape ", shape_string(shape), " of ", dtype_name(*dt), " overflows the byte count");
  AXLE_CHECK(bytes.size() - start - hlen == nbytes, ValueError, "'", path, "': ", bytes.size() - start - hlen,
             " data bytes for shape ", shape_string(shape), " of ", dtype_name(*dt), " (expected ", nbytes, ")");
  IntList reversed(shape.rbegin(), shape.rend());
  Tensor t = make_empty(fortran ? reversed : shape, *dt, Device("cpu"));
  if (nbytes) std::memcpy(t.data_ptr(), bytes.data() + start + hlen, nbytes);
  if (!fortran) return t;
  IntList dims;
  for (int64_t d = t.dim() - 1; d >= 0; --d) dims.push_back(d);
  return t.permute(dims).contiguous();
}

}  // namespace axle
