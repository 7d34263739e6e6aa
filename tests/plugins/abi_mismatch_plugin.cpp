// A library claiming another SDK ABI: the host must refuse it before calling anything else.
#include "migrate/sdk/plugin.hpp"

extern "C" MIGRATE_SDK_VISIBLE const MigratePluginHandshake* migrate_plugin_handshake() {
  static const MigratePluginHandshake handshake{999, "gcc-1/libstdc++-old", "9.9.9"};
  return &handshake;
}
extern "C" MIGRATE_SDK_VISIBLE migrate::sdk::Plugin* migrate_plugin_create() {
  return nullptr;
}
