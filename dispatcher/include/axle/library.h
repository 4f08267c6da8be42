// Applications declare their own operators and bind kernels in-process, as with
// PyTorch's TORCH_LIBRARY m.def / m.impl:
//   axle::Library m("myapp");
//   m.def("scale(Tensor x, float s) -> Tensor");
//   m.impl("scale", "cpu", [](const axle::Stack& a) -> axle::Stack { ... });
//   axle::call_op("myapp::scale", {x, 2.0});
#pragma once

#include <axle/derivative.h>
#include <axle/dispatcher.h>

namespace axle {

class AXLE_API Library {
 public:
  explicit Library(std::string ns);
  // Declares an op by schema (the namespace is added when missing). Throws SchemaError.
  Library& def(const std::string& schema, ShapeFn shape = nullptr, CompositeFn composite = nullptr);
  // The same with the op's gradient (axle/derivative.h): a formula written with
  // axle ops, `.decomposes = true` for a composite of differentiable ops, or
  // `.none` and why. An op declared without one raises NotImplementedError
  // when a gradient is needed through it.
  Library& def(const std::string& schema, ShapeFn shape, CompositeFn composite, const Derivative& derivative);
  // Binds a kernel for (op, device type). `rank` orders it among plugin kernels
  // of that device (higher wins; the default puts it above every plugin).
  Library& impl(const std::string& op, const std::string& device_type, CppKernel kernel, int rank = 1 << 20);

 private:
  std::string ns_;
};

}  // namespace axle
