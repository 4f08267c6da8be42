// axle-plugin-manifest PLUGIN.so OUTPUT.json: loads a plugin at build time, asks
// its descriptor and writes the manifest that lets the core learn the plugin's
// identity later without running its code. Exit 1 with a message on failure.
#include <axle/plugin/axle_plugin.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

std::string quote(const char* s) {
  std::string out = "\"";
  for (const char* p = s; *p; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

int fail(const std::string& msg) {
  std::fprintf(stderr, "axle-plugin-manifest: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: axle-plugin-manifest PLUGIN.so OUTPUT.json");
  const std::filesystem::path lib = std::filesystem::absolute(argv[1]);
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return fail(std::string("cannot load ") + lib.string() + ": " + dlerror());
  auto entry = reinterpret_cast<axle_plugin_entry_fn>(dlsym(handle, AXLE_PLUGIN_ENTRY_SYMBOL));
  if (!entry) return fail(lib.string() + " does not export " AXLE_PLUGIN_ENTRY_SYMBOL);
  const axle_plugin_descriptor* d = entry();
  if (!d || d->struct_size < AXLE_PLUGIN_DESCRIPTOR_SIZE_V1_3 || !d->name || !*d->name)  // 1.0's size
    return fail(lib.string() + ": invalid descriptor");
  std::string out = "{\n  \"axle_plugin_manifest\": 1,\n  \"name\": " + quote(d->name) +
                    ",\n  \"version\": " + quote(d->version ? d->version : "") +
                    ",\n  \"abi_major\": " + std::to_string(d->abi_major) +
                    ",\n  \"abi_minor\": " + std::to_string(d->abi_minor) + ",\n  \"device_types\": [";
  for (int i = 0; i < d->num_device_types; ++i) out += (i ? ", " : "") + quote(d->device_types[i]);
  out += "],\n  \"rank\": " + std::to_string(d->default_rank) + ",\n  \"library\": " + quote(lib.filename().c_str()) +
         "\n}\n";
  std::ofstream f(argv[2]);
  f << out;
  return f.good() ? 0 : fail(std::string("cannot write ") + argv[2]);
}
