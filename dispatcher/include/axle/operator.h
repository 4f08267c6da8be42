// Operator declarations: each operator is declared once with its schema, its
// shape function (the "meta" step shared by all backends), an optional
// composite implementation, and a doc line. See dispatcher/src/ops/.
#pragma once

#include <axle/derivative.h>
#include <axle/export.h>
#include <axle/schema.h>
#include <axle/value.h>

#include <functional>
#include <string>
#include <vector>

namespace axle {

// What the shape function decides about one output.
struct OutputSpec {
  IntList sizes;
  DType dtype = kFloat32;
  int alias_arg = -1;                                     // >= 0: the output IS that (in-place / out=) argument
  bool data_dependent = false;                            // the kernel allocates it through the host
  MemoryFormat memory_format = MemoryFormat::Contiguous;  // layout of the allocated output
};

// The shape function's view of a call: arguments (it may normalize them, e.g.
// wrap dims, before kernels see them) and the target device.
struct ShapeContext {
  const char* op;  // "add.Tensor", for messages
  Stack& args;     // shape functions may normalize arguments (wrapped dims...)
  // Read access: a borrowed tensor argument stays borrowed (args[i].tensor()
  // would make it an owning one).
  const Value& arg(size_t i) const { return args[i]; }
  Device device;
  std::vector<OutputSpec> outputs;
};

using ShapeFn = void (*)(ShapeContext&);
// A composite kernel: the op written with other ops, device-agnostic.
using CompositeFn = Stack (*)(const Stack& args);
// An application's kernel bound in-process (unstructured: returns its outputs).
using CppKernel = std::function<Stack(const Stack& args)>;

// Where the Python binding exposes an op besides axle.<name> / Tensor methods.
enum OpFlags : unsigned {
  kNoFlags = 0,
  kNNFunctional = 1u << 0,  // also axle.nn.functional.<name>, as torch.nn.functional
  kNNOnly = 1u << 1,        // only axle.nn.functional.<name> (torch has no torch.<name>)
  kPointwise = 1u << 2,     // elementwise: new 4-d outputs take the first same-shape input's memory format
};

struct OpDecl {
  const char* schema;
  ShapeFn shape = nullptr;  // required unless the op is composite-only
  CompositeFn composite = nullptr;
  const char* doc = "";
  const char* kernel_op = nullptr;  // in-place/out variants: whose kernels serve them ("add.Tensor")
  unsigned flags = kNoFlags;        // OpFlags
  // The gradient: a formula, a decomposition, or why there is none (derivative.h).
  // In-place variants (kernel_op set) use their kernel op's.
  Derivative derivative = {};
  // Checks on a kernel's results that belong to the op, not to a backend (a
  // linalg `*_ex` op's check_errors reads the info output): called with the
  // arguments and outputs after a kernel or the host fallback succeeded.
  void (*after)(const Stack& args, const Stack& outputs) = nullptr;
};

// Every built-in declaration, in declaration order (used by `axle ops`, bindings).
AXLE_API const std::vector<OpDecl>& builtin_op_decls();

}  // namespace axle
