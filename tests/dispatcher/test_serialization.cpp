// safetensors and .npy from C++: round trips over every dtype, malformed files.
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <unistd.h>
#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace axle;

namespace {
std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("axle_test_" + std::to_string(::getpid()) + "_" + name)).string();
}
}  // namespace

TEST_CASE("safetensors round trip over every dtype, from strided and device-agnostic inputs") {
  std::map<std::string, Tensor> tensors;
  for (DType d : kAllDTypes)
    tensors[std::string(dtype_name(d))] = arange(0, 6, 1, TensorOptions().dtype(kFloat64)).reshape({2, 3}).t().to(d);
  const std::string path = temp_path("all.safetensors");
  save_safetensors(tensors, path, {{"k", "v"}});
  std::map<std::string, std::string> meta;
  const auto back = load_safetensors(path, &meta);
  CHECK(meta.at("k") == "v");
  REQUIRE(back.size() == tensors.size());
  for (const auto& [name, t] : tensors) {
    CAPTURE(name);
    CHECK(equal(back.at(name), t.contiguous()));
  }
  std::remove(path.c_str());
}

TEST_CASE("npy round trip and malformed files") {
  const std::string path = temp_path("t.npy");
  const Tensor t = arange(0, 12, 1, TensorOptions().dtype(kInt16)).reshape({3, 4});
  save_npy(t, path);
  CHECK(equal(load_npy(path), t));
  std::ofstream(path, std::ios::binary) << "not a numpy file";
  CHECK_THROWS_AS(load_npy(path), ValueError);
  std::ofstream(path, std::ios::binary) << std::string("\x08\x00\x00\x00\x00\x00\x00\x00{\"a\":1}", 15);
  CHECK_THROWS_AS(load_safetensors(path), ValueError);
  CHECK_THROWS_AS(load_safetensors(temp_path("missing")), ValueError);
  CHECK_THROWS_AS(save_npy(ones({1}, TensorOptions().dtype(kBFloat16)), path), DTypeError);
  std::remove(path.c_str());
}
