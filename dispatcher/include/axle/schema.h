// Operator schemas in PyTorch's grammar:
//   add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
// Types: Tensor, Tensor?, Tensor[], Tensor?[], int, int[], int[N], float, bool, Scalar,
// ScalarType, str, Device, Layout, MemoryFormat (each optionally '?'), alias
// annotations like Tensor(a!), defaults, keyword-only marker '*'.
#pragma once

#include <axle/export.h>
#include <axle/value.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace axle {

enum class ArgKind {
  Tensor,
  TensorList,
  Int,
  IntList,
  Float,
  Bool,
  Scalar,
  ScalarType,
  Str,
  Device,
  Layout,
  MemoryFormat,
  Generator
};

struct AXLE_API ArgType {
  ArgKind kind = ArgKind::Tensor;
  bool optional = false;
  int64_t fixed_size = -1;         // int[2]
  bool optional_elements = false;  // Tensor?[]: items may be None (undefined Tensors in the list)
  std::string str() const;
};

struct Argument {
  std::string name;
  ArgType type;
  std::optional<std::string> alias;  // "a" in Tensor(a!)
  bool is_write = false;             // the '!' in Tensor(a!)
  bool kwarg_only = false;
  std::optional<Value> default_value;
  std::string default_text;
};

struct AXLE_API FunctionSchema {
  std::string ns;        // "aten" when absent, "myapp" in "myapp::scale"
  std::string name;      // "add"
  std::string overload;  // "Tensor", may be empty
  std::vector<Argument> arguments;
  std::vector<Argument> returns;
  std::string text;

  // "add.Tensor", or "myapp::scale" for non-aten namespaces.
  std::string full_name() const;
  // Throws SchemaError naming the position (column) and what was expected.
  static FunctionSchema parse(std::string_view text);
  // Index of the argument called `name`, or -1.
  int find_argument(std::string_view name) const;
  // Fills defaults for missing trailing arguments and checks the count; throws
  // ValueError naming the op and the argument.
  void complete_arguments(Stack& args) const;
};

}  // namespace axle
