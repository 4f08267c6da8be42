// safetensors and .npy readers and writers.
#include <axle/ops.h>
#include <axle/serialization.h>

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

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
  const std::string bytes = read_file(path);
  AXLE_CHECK(bytes.size() >= 8, ValueError, "'", path,
             "' is not a safetensors file: shorter than its 8-byte header size");
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  AXLE_CHECK(n <= bytes.size() - 8, ValueError, "'", path, "': header size ", n, " exceeds the file size ",
             bytes.size());
  json header;
  try {
    header = json::parse(bytes.substr(8, n));
  } catch (const json::exception& e) {
    throw ValueError(detail::concat("'", path, "': malformed safetensors header: ", e.what()));
  }
  AXLE_CHECK(header.is_object(), ValueError, "'", path, "': safetensors header must be a JSON object");
  const size_t data_begin = 8 + n, data_size = bytes.size() - data_begin;
  std::map<std::string, Tensor> out;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (metadata && it.value().is_object())
        for (auto m = it.value().begin(); m != it.value().end(); ++m)
          if (m.value().is_string()) (*metadata)[m.key()] = m.value().get<std::string>();
      continue;
    }
    const json& e = it.value();
    const std::string where = detail::concat("'", path, "' tensor '", it.key(), "'");
    AXLE_CHECK(e.is_object() && e.contains("dtype") && e.contains("shape") && e.contains("data_offsets"), ValueError,
               where, ": needs dtype, shape and data_offsets");
    AXLE_CHECK(e["dtype"].is_string(), ValueError, where, ": dtype must be a string");
    std::optional<DType> dt;
    for (const auto& c : kCodes)
      if (e["dtype"].get<std::string>() == c.safetensors) dt = c.dtype;
    AXLE_CHECK(dt.has_value(), ValueError, where, ": unsupported dtype ", e["dtype"].dump());
    AXLE_CHECK(e["shape"].is_array() && e["data_offsets"].is_array() && e["data_offsets"].size() == 2, ValueError,
               where, ": shape must be a list and data_offsets a pair");
    IntList shape;
    for (const json& s : e["shape"]) {
      AXLE_CHECK(s.is_number_integer() && s.get<int64_t>() >= 0, ValueError, where, ": bad dimension ", s.dump());
      shape.push_back(s.get<int64_t>());
    }
    const json& off = e["data_offsets"];
    AXLE_CHECK(off[0].is_number_unsigned() && off[1].is_number_unsigned(), ValueError, where,
               ": data_offsets must be non-negative integers");
    const uint64_t begin = off[0].get<uint64_t>(), end = off[1].get<uint64_t>();
    AXLE_CHECK(begin <= end && end <= data_size, ValueError, where, ": data_offsets [", begin, ", ", end,
               "] outside the data (", data_size, " bytes)");
    const int64_t numel = checked_numel(shape);
    AXLE_CHECK(end - begin == static_cast<uint64_t>(numel) * element_size(*dt), ValueError, where, ": ", end - begin,
               " bytes for shape ", shape_string(shape), " of ", dtype_name(*dt));
    Tensor t = make_empty(shape, *dt, Device("cpu"));
    if (end > begin) std::memcpy(t.data_ptr(), bytes.data() + data_begin + begin, end - begin);
    out.emplace(it.key(), std::move(t));
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

Tensor load_npy(const std::string& path) {
  const std::string bytes = read_file(path);
  AXLE_CHECK(bytes.size() >= 10 && bytes.compare(0, 6, "\x93NUMPY") == 0, ValueError, "'", path,
             "' is not a .npy file (bad magic)");
  const int major = static_cast<unsigned char>(bytes[6]);
  AXLE_CHECK(major >= 1 && major <= 3, ValueError, "'", path, "': unsupported .npy version ", major);
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
  AXLE_CHECK(start + hlen <= bytes.size(), ValueError, "'", path, "': header length ", hlen, " exceeds the file");
  const std::string header = bytes.substr(start, hlen);
  std::smatch m;
  AXLE_CHECK(std::regex_search(header, m, std::regex("'descr':\\s*'([^']*)'")), ValueError, "'", path,
             "': header without 'descr'");
  const std::string descr = m[1];
  std::optional<DType> dt;
  for (const auto& c : kCodes)
    if (c.npy && (descr == c.npy || (descr.size() == 3 && std::string(c.npy).substr(1) == descr.substr(1) &&
                                     (descr[0] == '=' || descr[0] == '|' || descr[0] == '<'))))
      dt = c.dtype;
  AXLE_CHECK(dt.has_value(), ValueError, "'", path, "': unsupported dtype '", descr, "' (big-endian or exotic)");
  AXLE_CHECK(std::regex_search(header, m, std::regex("'fortran_order':\\s*(True|False)")), ValueError, "'", path,
             "': header without 'fortran_order'");
  const bool fortran = m[1] == "True";
  AXLE_CHECK(std::regex_search(header, m, std::regex("'shape':\\s*\\(([^)]*)\\)")), ValueError, "'", path,
             "': header without 'shape'");
  IntList shape;
  std::stringstream ss(m[1]);
  for (std::string item; std::getline(ss, item, ',');) {
    item.erase(0, item.find_first_not_of(" "));
    item.erase(item.find_last_not_of(" ") + 1);
    if (item.empty()) continue;
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    AXLE_CHECK(*end == '\0' && v >= 0, ValueError, "'", path, "': bad shape entry '", item, "'");
    shape.push_back(v);
  }
  const size_t nbytes = static_cast<size_t>(checked_numel(shape)) * element_size(*dt);
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
