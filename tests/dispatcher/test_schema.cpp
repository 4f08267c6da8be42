// Schema parsing: PyTorch's grammar, and malformed schemas naming the column.
#include <axle/error.h>
#include <axle/schema.h>

#include <doctest/doctest.h>

using namespace axle;

TEST_CASE("PyTorch schemas parse") {
  const auto s = FunctionSchema::parse("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  CHECK(s.name == "add");
  CHECK(s.overload == "Tensor");
  CHECK(s.full_name() == "add.Tensor");
  REQUIRE(s.arguments.size() == 3);
  CHECK(s.arguments[2].kwarg_only);
  CHECK(s.arguments[2].type.kind == ArgKind::Scalar);
  CHECK(s.arguments[2].default_value->to_int() == 1);
  CHECK(s.returns.size() == 1);

  const auto w = FunctionSchema::parse("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  CHECK(w.arguments[0].is_write);
  CHECK(*w.arguments[0].alias == "a");

  const auto m =
      FunctionSchema::parse("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  CHECK(m.returns.size() == 2);
  CHECK(m.returns[1].name == "indices");

  const auto c = FunctionSchema::parse(
      "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, "
      "int groups=1) -> Tensor");
  CHECK(c.arguments[2].type.optional);
  CHECK(c.arguments[3].default_value->int_list() == IntList{1, 1});
  CHECK(c.arguments[3].type.fixed_size == 2);

  const auto l = FunctionSchema::parse("cat(Tensor[] tensors, int dim=0) -> Tensor");
  CHECK(l.arguments[0].type.kind == ArgKind::TensorList);
  const auto ix = FunctionSchema::parse("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
  CHECK(ix.arguments[1].type.kind == ArgKind::TensorList);
  CHECK(ix.arguments[1].type.optional_elements);
  CHECK_FALSE(ix.arguments[1].type.optional);
  CHECK(ix.arguments[1].type.str() == "Tensor?[]");
  CHECK_FALSE(l.arguments[0].type.optional_elements);
  const auto d = FunctionSchema::parse("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor");
  CHECK(d.arguments[2].type.kind == ArgKind::Str);
  const auto v = FunctionSchema::parse("myapp::scale(Tensor x, float s) -> Tensor");
  CHECK(v.ns == "myapp");
  CHECK(v.full_name() == "myapp::scale");
  const auto e = FunctionSchema::parse(
      "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
  CHECK(e.arguments[1].type.optional);
  CHECK(e.arguments[3].default_value->is_none());
  CHECK(FunctionSchema::parse("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]").arguments.size() == 2);
  CHECK(FunctionSchema::parse("foo() -> ()").returns.empty());
  CHECK(FunctionSchema::parse("gelu(Tensor self, *, str approximate='none') -> Tensor")
            .arguments[1]
            .default_value->str() == "none");
}

TEST_CASE("malformed schemas are SchemaErrors naming the column") {
  const char* bad[] = {
      "",                                         // no name
      "add(Tensor self",                          // unterminated
      "add(Tensor self) Tensor",                  // missing ->
      "add(Tensr self) -> Tensor",                // unknown type
      "add(Tensor self, Tensor self) -> Tensor",  // duplicate name
      "add(Tensor self, int x=abc) -> Tensor",    // bad default
      "add(Tensor self, bool b=1) -> Tensor",     // bad bool default
      "add(Tensor self, int x=None) -> Tensor",   // None for non-optional
      "add(Tensor self) -> Tensor trailing junk",
      "add(Tensor(a self) -> Tensor",
      "add(Tensor self, *, *, int x) -> Tensor",
      "add(float[] x) -> Tensor",
      "f(int[99999999999999999999] x) -> Tensor",  // a list size too large to allocate (was std::bad_alloc)
      "f(int[65] x=1) -> Tensor",
  };
  for (const char* s : bad) {
    CAPTURE(s);
    CHECK_THROWS_AS(FunctionSchema::parse(s), SchemaError);
  }
  try {
    FunctionSchema::parse("add(Tensr self) -> Tensor");
  } catch (const SchemaError& e) {
    CHECK(std::string(e.what()).find("column 5") != std::string::npos);
    CHECK(std::string(e.what()).find("unknown type 'Tensr'") != std::string::npos);
  }
}
