// Library: operators and kernels declared by the embedding application.
#include "registry.h"

#include <axle/library.h>

#include <list>

namespace axle {

namespace {
// Schemas defined by applications must outlive the OpDecl that points at them.
std::list<std::string>& schema_storage() {
  static auto* s = new std::list<std::string>;
  return *s;
}
std::mutex g_storage_mutex;
}  // namespace

Library::Library(std::string ns) : ns_(std::move(ns)) {
  AXLE_CHECK(!ns_.empty() && ns_ != "aten", ValueError, "Library namespace must be non-empty and not 'aten'");
}

Library& Library::def(const std::string& schema, ShapeFn shape, CompositeFn composite) {
  return def(schema, shape, composite, Derivative{});
}

Library& Library::def(const std::string& schema, ShapeFn shape, CompositeFn composite, const Derivative& derivative) {
  AXLE_CHECK(!derivative.decomposes || composite != nullptr, ValueError, "Library::def(", schema,
             "): a derivative that decomposes needs a composite");
  const std::string full = schema.find("::") == std::string::npos ? ns_ + "::" + schema : schema;
  const char* text;
  {
    std::lock_guard lock(g_storage_mutex);
    text = schema_storage().emplace_back(full).c_str();
  }
  OpDecl decl;
  decl.schema = text;
  decl.shape = shape;
  decl.composite = composite;
  decl.derivative = derivative;
  Registry::get().define(decl, false);
  return *this;
}

Library& Library::impl(const std::string& op, const std::string& device_type, CppKernel kernel, int rank) {
  const std::string name = op.find("::") == std::string::npos ? ns_ + "::" + op : op;
  const OpEntry* e = Registry::get().find(name);
  if (!e) e = Registry::get().find(op);  // binding an application kernel to a built-in op
  AXLE_CHECK(e != nullptr, NotImplementedError, "Library::impl: unknown operator '", name, "'");
  KernelRecord k;
  k.op = e->name;
  k.device_type = DeviceType(device_type).name();
  k.app = std::make_shared<const CppKernel>(std::move(kernel));
  k.plugin = "application (" + ns_ + ")";
  k.rank = rank;
  k.provenance = "Library(\"" + ns_ + "\").impl(\"" + op + "\")";
  Registry::get().add_kernels({k}, {});
  return *this;
}

}  // namespace axle
