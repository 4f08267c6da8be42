// Internal to libaxle: settings that live outside the config snapshot (trace
// mode) re-read it when the configuration changes (configure, reload_config).
#pragma once

namespace axle::detail {

// `fn` runs after every configure() / reload_config(), without the config lock held.
void add_config_listener(void (*fn)());

}  // namespace axle::detail
