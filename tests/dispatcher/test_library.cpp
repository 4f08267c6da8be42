// Applications declare ops and bind kernels in-process (m.def / m.impl).
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <utility>

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

TEST_CASE("Value::borrow: refers to the caller's tensor; copies and mutable access own") {
  const Tensor t = arange(0, 4, 1, TensorOptions().dtype(kFloat32));
  Value b = Value::borrow(t);
  CHECK(b.is_tensor());
  CHECK(b.tag() == Value::Tag::Tensor);
  CHECK(b.type_name() == "Tensor");
  CHECK(&std::as_const(b).tensor() == &t);  // no copy of the handle
  CHECK(b.repr() == Value(t).repr());

  Value moved = std::move(b);  // a move stays borrowed
  CHECK(&std::as_const(moved).tensor() == &t);
  const Value copy = moved;  // a copy owns its handle
  CHECK(&copy.tensor() != &t);
  CHECK(copy.tensor().storage() == t.storage());
  Stack stack{Value::borrow(t)};
  Stack stack_copy = stack;
  CHECK(&std::as_const(stack_copy[0]).tensor() != &t);

  Value m = Value::borrow(t);
  Tensor& owned = m.tensor();  // mutable access: an owning handle, never the caller's
  CHECK(&owned != &t);
  owned = zeros({2});
  CHECK(t.sizes() == IntList{4});
  CHECK(m.tensor().sizes() == IntList{2});

  // Through the dispatcher: borrowed arguments, an in-place op returning its
  // argument (an alias output, which must come back owning).
  Tensor x = ones({3});
  Stack out = call_op(find_op("add_.Tensor"), Stack{Value::borrow(x), Value::borrow(t.slice(0, 0, 3)), 1});
  CHECK(&std::as_const(out[0]).tensor() != &x);
  CHECK(out[0].tensor().storage() == x.storage());
  CHECK(x.to(kFloat64).contiguous().data_ptr<double>()[2] == 3.0);
}
