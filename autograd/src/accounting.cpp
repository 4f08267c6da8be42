// What each op declares about its gradient: the accounting the tests read
// (tests/python/test_autograd_samples.py lists the ops still without any).
#include "internal.h"
#include "registry.h"

namespace axle::autograd {

std::vector<std::string> ops_without_derivative() {
  std::vector<std::string> names;
  const Registry& r = Registry::get();
  for (size_t i = 0; i < r.op_count(); ++i) {
    if (!r.at(i).builtin) continue;  // an application's op may leave it out (NotImplementedError when needed)
    const Derivative& d = *r.at(i).derivative;
    if (!d.vjp && !d.none && !d.decomposes) names.push_back(r.at(i).name);
  }
  return names;
}

std::string derivative_of(std::string_view name) {
  const OpEntry* e = Registry::get().find(name);
  AXLE_CHECK(e != nullptr, NotImplementedError, "unknown operator '", name, "'");
  const Derivative& d = *e->derivative;
  if (d.vjp) return "formula";
  if (d.decomposes) return "decomposes";
  if (d.none) return std::string("none: ") + d.none;
  return "";
}

}  // namespace axle::autograd
