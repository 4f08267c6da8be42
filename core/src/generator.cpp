// Generators: (seed, offset) pairs behind a mutex; default ones per device type.
#include <axle/generator.h>

#include <map>
#include <random>

namespace axle {

Generator::Generator(const Device& device) : impl_(std::make_shared<Impl>()) { impl_->device = device; }

Generator& Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->seed = seed;
  impl_->offset = 0;
  return *this;
}

uint64_t Generator::seed() {
  std::random_device rd;
  const uint64_t s = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  manual_seed(s);
  return s;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->seed;
}

uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->offset;
}

void Generator::set_offset(uint64_t offset) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->offset = offset;
}

std::pair<uint64_t, uint64_t> Generator::reserve(uint64_t count) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const uint64_t first = impl_->offset;
  impl_->offset += count;
  return {impl_->seed, first};
}

namespace {
struct Defaults {
  std::mutex mutex;
  std::map<std::string, Generator> by_type;
};
Defaults& defaults() {
  static Defaults* d = new Defaults();  // never destroyed: usable from static destructors
  return *d;
}
}  // namespace

Generator default_generator(const Device& device) {
  Defaults& d = defaults();
  std::lock_guard<std::mutex> lock(d.mutex);
  const std::string type(device.type().name());
  auto it = d.by_type.find(type);
  if (it == d.by_type.end()) it = d.by_type.emplace(type, Generator(Device(type))).first;
  return it->second;
}

void manual_seed(uint64_t seed) {
  Defaults& d = defaults();
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    if (d.by_type.find("cpu") == d.by_type.end()) d.by_type.emplace("cpu", Generator(Device("cpu")));
  }
  std::lock_guard<std::mutex> lock(d.mutex);
  for (auto& [type, g] : d.by_type) g.manual_seed(seed);
}

}  // namespace axle
