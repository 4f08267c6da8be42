// Trains a small MLP with autograd and plain SGD, in C++ with libaxle alone:
// y = sin(3 x0) + x1^2 learned from 256 random points. Usage:
//   axle-train-mlp [DEVICE] [STEPS]     (DEVICE: cpu, or any plugin device; default cpu)
// Prints the loss every 50 steps; exits 1 if it did not fall below a quarter of the first.
#include <axle/axle.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  try {
    const axle::Device device(argc > 1 ? argv[1] : "cpu");
    const int steps = argc > 2 ? std::atoi(argv[2]) : 300;
    axle::manual_seed(0);
    // Data on the host, then moved: every device draws the same points.
    axle::Tensor x = axle::rand({256, 2}) * 2.0 - 1.0;
    axle::Tensor y = (axle::sin(x.select(1, 0) * 3.0) + x.select(1, 1) * x.select(1, 1)).unsqueeze(1);
    x = x.to(device);
    y = y.to(device);
    auto param = [&](axle::Tensor t) { return t.to(device).requires_grad_(); };
    std::vector<axle::Tensor> params = {param(axle::randn({2, 32}) * 0.7),   param(axle::zeros({32})),
                                        param(axle::randn({32, 32}) * 0.25), param(axle::zeros({32})),
                                        param(axle::randn({32, 1}) * 0.25),  param(axle::zeros({1}))};
    double first = 0, last = 0;
    for (int step = 0; step < steps; ++step) {
      axle::Tensor h = axle::tanh(axle::matmul(x, params[0]) + params[1]);
      h = axle::tanh(axle::matmul(h, params[2]) + params[3]);
      axle::Tensor diff = axle::matmul(h, params[4]) + params[5] - y;
      axle::Tensor loss = axle::mean(diff * diff);
      loss.backward();
      {
        axle::NoGradGuard no_grad;  // the update is not part of the graph
        for (axle::Tensor& p : params) {
          p.add_(p.grad(), -0.1);
          p.set_grad(axle::Tensor());
        }
      }
      last = loss.item<double>();
      if (step == 0) first = last;
      if (step % 50 == 0 || step == steps - 1) std::printf("step %4d  loss %.6f\n", step, last);
    }
    std::printf("%s: loss %.6f -> %.6f\n", device.str().c_str(), first, last);
    return last < first / 4 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "axle-train-mlp: %s\n", e.what());
    return 2;
  }
}
