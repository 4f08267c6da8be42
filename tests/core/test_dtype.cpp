// dtypes: sizes, names, parsing, and the promotion table against PyTorch's.
#include <axle/dtype.h>
#include <axle/error.h>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <fstream>
#include <sstream>

using namespace axle;

TEST_CASE("every dtype has a size and a name that parses back") {
  for (DType d : kAllDTypes) {
    CHECK(element_size(d) >= 1);
    CHECK(dtype_from_name(dtype_name(d)) == d);
    CHECK(dtype_from_name("torch." + std::string(dtype_name(d))) == d);
    CHECK(promote_types(d, d) == d);
  }
  CHECK(element_size(kFloat64) == 8);
  CHECK(element_size(kBFloat16) == 2);
  CHECK(element_size(kBool) == 1);
  CHECK(dtype_from_name("long") == kInt64);
  CHECK_THROWS_AS(dtype_from_name("float128"), DTypeError);
}

TEST_CASE("promotion table equals torch.promote_types") {
  std::ifstream in(AXLE_TEST_DATA_DIR "/torch_promote_types.txt");
  REQUIRE(in.good());
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string a, b, r;
    ss >> a >> b >> r;
    INFO(line);
    CHECK(promote_types(dtype_from_name(a), dtype_from_name(b)) == dtype_from_name(r));
    ++rows;
  }
  CHECK(rows == kNumDTypes * kNumDTypes);
}

TEST_CASE("torch_type_name: torch's ScalarType names for every dtype") {
  const std::vector<std::string> names = {"Float", "Double", "Half", "BFloat16", "Char",
                                          "Byte",  "Short",  "Int",  "Long",     "Bool"};
  for (DType d : kAllDTypes) CHECK(torch_type_name(d) == names[static_cast<size_t>(d)]);
}
