// Internal to libaxle (core/internal: the core's headers the dispatcher may
// include, and nothing outside libaxle): a shared read-only snapshot of the effective
// configuration for paths that read it often (plugins' get_option, the host
// fallback), and listeners for settings that live outside it (trace mode).
#pragma once

#include <axle/config.h>

#include <memory>

namespace axle::detail {

// The effective configuration, without copying it (replaced, never mutated, on
// every configure() / reload_config()).
std::shared_ptr<const Config> config_snapshot();

// `fn` runs after every configure() / reload_config(), without the config lock held.
void add_config_listener(void (*fn)());

// Whether the process runs in secure-execution mode (AT_SECURE, or the check
// that set_secure_execution_check installed). Plugins learn it as
// get_option(NULL, "secure_execution") == "true".
bool secure_execution();

}  // namespace axle::detail
