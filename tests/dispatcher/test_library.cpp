// Applications declare ops and bind kernels in-process (m.def / m.impl).
#include <axle/axle.h>

#include <doctest/doctest.h>

using namespace axle;

TEST_CASE("an application defines myapp::scale and binds a cpu kernel") {
  Library m("myapp");
  m.def("scale(Tensor x, float s) -> Tensor");
  m.impl("scale", "cpu", [](const Stack& a) -> Stack { return {a[0].tensor() * a[1].to_double()}; });
  const Tensor x = arange(0, 4, 1, TensorOptions().dtype(kFloat32));
  const Tensor y = call_op("myapp::scale", {x, 2.5})[0].tensor();
  CHECK(y.dtype() == kFloat32);
  CHECK(sum(y).item<double>() == doctest::Approx(15.0));
  const auto rows = explain("myapp::scale");
  bool found = false;
  for (const auto& r : rows)
    if (r.device_type == "cpu" && !r.chain.empty() && r.chain[0].kind == "application kernel") found = true;
  CHECK(found);
  CHECK_THROWS_AS(m.def("scale(Tensor x, float s) -> Tensor"), ValueError);  // declared twice
  CHECK_THROWS_AS(m.def("bad(Tensor x"), SchemaError);
  CHECK_THROWS_AS(m.impl("missing", "cpu", [](const Stack&) -> Stack { return {}; }), NotImplementedError);
  CHECK_THROWS_AS(call_op("myapp::scale", {x}), ValueError);  // missing argument
}

TEST_CASE("an application kernel outranks plugins for a built-in op") {
  Library m("override_test");
  int calls = 0;
  m.impl("exp", "cpu", [&calls](const Stack& a) -> Stack {
    ++calls;
    return {a[0].tensor().clone()};
  });
  const Tensor x = ones({3});
  CHECK(sum(axle::exp(x)).item<double>() == 3.0);
  CHECK(calls == 1);
}
