// PluginFilterGuard: the calling thread's restriction of which plugins' kernels
// may serve a call (dispatch_impl reads t_plugin_filter for each candidate).
#include "call_internal.h"

#include <algorithm>

namespace axle {

constinit thread_local const PluginFilterGuard* t_plugin_filter = nullptr;

PluginFilterGuard::PluginFilterGuard(Mode mode, std::vector<std::string> plugins)
    : mode_(mode), plugins_(std::move(plugins)), previous_(t_plugin_filter) {
  t_plugin_filter = this;
}
PluginFilterGuard::~PluginFilterGuard() { t_plugin_filter = previous_; }
bool PluginFilterGuard::allows(const std::string& plugin) const {
  const bool listed = std::find(plugins_.begin(), plugins_.end(), plugin) != plugins_.end();
  return mode_ == Mode::Only ? listed : !listed;
}

}  // namespace axle
