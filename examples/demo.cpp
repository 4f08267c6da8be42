// axle demo: run a small CNN classifier on every available device and compare
// each result with the reference plugin's (the portable oracle, run alone with a
// PluginFilterGuard; "cpu" itself is served by the faster plugins, e.g. oneDNN).
#include <axle/axle.h>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace {

// Deterministic weights: a smooth function of the index, scaled to keep values small.
axle::Tensor weights(int64_t rows, int64_t cols, double phase) {
  axle::Tensor idx = axle::arange(0, rows * cols, 1, axle::TensorOptions().dtype(axle::kFloat32));
  axle::Tensor w = idx.reshape({rows, cols});
  float* p = w.data_ptr<float>();
  for (int64_t i = 0; i < rows * cols; ++i) p[i] = static_cast<float>(std::sin(0.37 * i + phase) / std::sqrt(rows));
  return w;
}

// conv 3x3 (3 -> 8 channels) -> relu -> 2x2 max pool -> flatten -> layer norm
// -> linear (128 -> 10) -> softmax.
struct Model {
  axle::Tensor conv_w, conv_b, ln_w, ln_b, fc_w, fc_b;
  axle::Tensor forward(const axle::Tensor& x) const {
    axle::Tensor h = axle::relu(axle::conv2d(x, conv_w, conv_b, {1}, {1}));
    h = axle::flatten(axle::max_pool2d(h, {2, 2}), 1);
    h = axle::layer_norm(h, {h.size(1)}, ln_w, ln_b);
    return axle::softmax(axle::linear(h, fc_w, fc_b), -1);
  }
  Model to(const axle::Device& d) const {
    return {conv_w.to(d), conv_b.to(d), ln_w.to(d), ln_b.to(d), fc_w.to(d), fc_b.to(d)};
  }
};

}  // namespace

int main() {
  try {
    std::printf(
        "axle %s: a small CNN (conv 3x3, relu, max pool, layer norm, linear, softmax) on a batch of 4\n"
        "8x8 RGB images, on every device\n\n",
        axle::version().c_str());
    const Model host{
        weights(8, 27, 0.0).reshape({8, 3, 3, 3}), weights(1, 8, 1.0).reshape({8}), weights(1, 128, 2.0).reshape({128}),
        weights(1, 128, 3.0).reshape({128}),       weights(10, 128, 4.0),           weights(1, 10, 5.0).reshape({10})};
    const axle::Tensor x = weights(4, 192, 6.0).reshape({4, 3, 8, 8});
    axle::Tensor reference;
    {
      const axle::PluginFilterGuard only_reference(axle::PluginFilterGuard::Mode::Only, {"reference"});
      reference = host.forward(x);
    }

    int failures = 0;
    std::printf("%-10s %-28s %-14s %12s  %s\n", "device", "name", "max |diff|", "time", "result");
    for (const auto& dev : axle::devices()) {
      if (dev.count == 0)
        std::printf("%-10s %-28s %-14s %12s  skipped: %s\n", dev.type.c_str(), "-", "-", "-", dev.note.c_str());
      for (int i = 0; i < dev.count; ++i) {
        const axle::Device d(axle::DeviceType(dev.type), i);
        const Model m = host.to(d);
        const axle::Tensor xd = x.to(d);
        const auto t0 = std::chrono::steady_clock::now();
        const axle::Tensor y = m.forward(xd);
        const axle::Tensor yh = y.cpu();
        const auto t1 = std::chrono::steady_clock::now();
        const axle::Tensor diff = yh - reference;
        double max_diff = 0;
        const axle::Tensor dd = diff.contiguous();
        for (int64_t k = 0; k < dd.numel(); ++k)
          max_diff = std::max(max_diff, std::fabs(double(dd.data_ptr<float>()[k])));
        const bool ok = axle::allclose(yh, reference, 1e-4, 1e-5);
        failures += ok ? 0 : 1;
        std::printf("%-10s %-28s %-14.3g %9.1f us  %s\n", d.str().c_str(), dev.names[i].c_str(), max_diff,
                    std::chrono::duration<double, std::micro>(t1 - t0).count(), ok ? "matches reference" : "DIFFERS");
      }
    }
    const auto fb = axle::fallback_stats();
    if (!fb.empty()) {
      std::printf("\nops that ran through the host fallback:\n");
      for (const auto& f : fb)
        std::printf("  %-22s on %-8s %llu call(s)\n", f.op.c_str(), f.device.c_str(),
                    static_cast<unsigned long long>(f.count));
    }
    std::printf("\n%s\n", failures == 0 ? "all devices match the reference" : "some devices differ");
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "demo failed: %s\n", e.what());
    return 1;
  }
}
