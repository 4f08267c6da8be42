// Autograd from C++ (libtorch's names): requires_grad_, backward, grad,
// autograd::grad, NoGradGuard, hooks; and training on a plugin device: a small
// MLP trained with plain SGD on the arena test device (partial kernels, the
// rest through the host fallback) follows the host's losses, since backward
// runs the same formulas through the dispatcher wherever the tensors live.
// Run with AXLE_PLUGIN_PATH = the arena plugin folder.
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace axle;

namespace {
std::vector<double> values(const Tensor& t) {
  Tensor h = t.detach().to(Device("cpu"), kFloat64).contiguous();
  return std::vector<double>(h.data_ptr<double>(), h.data_ptr<double>() + h.numel());
}
const TensorOptions kF64 = TensorOptions().dtype(kFloat64);
}  // namespace

TEST_CASE("backward of a small expression, as libtorch") {
  Tensor x = arange(1, 4, 1, kF64).requires_grad_();
  Tensor w = full({3}, 2.0, kF64).requires_grad_();
  CHECK(x.requires_grad());
  CHECK(x.is_leaf());
  Tensor y = sum(exp(x * w));
  CHECK_FALSE(y.is_leaf());
  REQUIRE(y.grad_fn() != nullptr);
  CHECK(y.grad_fn()->name() == "SumBackward0");
  y.backward();
  const std::vector<double> gx = values(x.grad()), gw = values(w.grad());
  for (int i = 0; i < 3; ++i) {
    const double xi = i + 1.0;
    CHECK(gx[i] == doctest::Approx(2.0 * std::exp(2.0 * xi)));
    CHECK(gw[i] == doctest::Approx(xi * std::exp(2.0 * xi)));
  }
}

TEST_CASE("writes through views rebase the base's history (CopySlices), as libtorch") {
  // out[0] = 2y; out[1].slice(0, 1) *= y[0:2]: d/dy of sum(out * c), c = [[1,2,3],[4,5,6]].
  Tensor y = arange(1, 4, 1, kF64).requires_grad_();
  Tensor out = zeros({2, 3}, kF64);
  out.select(0, 0).copy_(y * 2);
  out.select(0, 1).fill_(1.0);
  Tensor part = out.select(0, 1).slice(0, 1);
  part.mul_(y.slice(0, 0, 2));
  REQUIRE(out.grad_fn() != nullptr);
  CHECK(out.grad_fn()->name() == "CopySlices");
  CHECK(part.grad_fn()->name() == "AsStridedBackward0");
  sum(out * arange(1, 7, 1, kF64).view({2, 3})).backward();
  // out[0] = 2y -> 2 * [1, 2, 3]; out[1][1:] = y[0:2] -> [5, 6] on y[0], y[1].
  CHECK(values(y.grad()) == std::vector<double>{2 + 5, 4 + 6, 6});
  // The view of a leaf that requires grad is refused, as torch.
  Tensor first = y.slice(0, 0, 1);
  CHECK_THROWS_AS(first.mul_(full({1}, 2.0, kF64)), AutogradError);
}

TEST_CASE("NoGradGuard and autograd::grad with create_graph") {
  Tensor x = full({2}, 3.0, kF64).requires_grad_();
  {
    NoGradGuard guard;
    CHECK_FALSE((x * 2).requires_grad());
  }
  CHECK((x * 2).requires_grad());
  Tensor y = sum(x * x * x);
  std::vector<Tensor> g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  CHECK(values(g[0]) == std::vector<double>{27.0, 27.0});
  std::vector<Tensor> h = autograd::grad({sum(g[0])}, {x});
  CHECK(values(h[0]) == std::vector<double>{18.0, 18.0});
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("misuse is a typed error") {
  Tensor x = ones({2}, kF64).requires_grad_();
  CHECK_THROWS_AS(x.add_(x), AutogradError);             // a leaf written in place
  CHECK_THROWS_AS((x * 2).backward(), AutogradError);    // not a scalar
  CHECK_THROWS_AS(ones({2}).backward(), AutogradError);  // nothing requires grad
  CHECK_THROWS_AS(ones({2}, TensorOptions().dtype(kInt64)).requires_grad_(), DTypeError);
  Tensor y = sum(x * x);
  y.backward();
  CHECK_THROWS_AS(y.backward(), AutogradError);  // the graph was freed
}

TEST_CASE("hooks see and replace gradients") {
  Tensor x = ones({2}, kF64).requires_grad_();
  int calls = 0;
  autograd::register_hook(x, [&](const Tensor& g) {
    ++calls;
    return g * 10;
  });
  sum(x * 3).backward();
  CHECK(calls == 1);
  CHECK(values(x.grad()) == std::vector<double>{30.0, 30.0});
}

namespace {
// SGD for `steps` on `device`: `params` and `data` (host tensors) move there,
// `loss` maps the data to a scalar; returns the losses. The graph and its saved
// tensors are gone after each step: the device's allocated bytes come back to
// what the data and parameters hold.
template <typename Loss>
std::vector<double> sgd(const Device& device, std::vector<Tensor*> params, std::vector<Tensor*> data, double lr,
                        int steps, Loss&& loss) {
  for (Tensor* d : data) *d = d->to(device);
  for (Tensor* p : params) *p = p->to(device).requires_grad_();
  std::vector<double> losses;
  int64_t baseline = -1;
  for (int step = 0; step < steps; ++step) {
    Tensor l = loss();
    losses.push_back(l.item<double>());
    l.backward();
    NoGradGuard no_grad;
    for (Tensor* p : params) {
      p->add_(p->grad(), -lr);
      p->set_grad(Tensor());
    }
    const int64_t now = static_cast<int64_t>(memory_stats(device).allocated_bytes);
    if (baseline < 0) baseline = now;
    CHECK(now == baseline);
  }
  return losses;
}

// y = relu(x W1 + b1) W2 + b2.
std::vector<double> train_mlp(const Device& device, int steps) {
  manual_seed(7);
  const TensorOptions host = TensorOptions().dtype(kFloat32);
  Tensor x = randn({32, 4}, host);
  Tensor target = sum(x * x, {1}, true) - x.select(1, 0).unsqueeze(1);
  Tensor w1 = randn({4, 16}, host) * 0.5, b1 = zeros({16}, host);
  Tensor w2 = randn({16, 1}, host) * 0.5, b2 = zeros({1}, host);
  return sgd(device, {&w1, &b1, &w2, &b2}, {&x, &target}, 0.05, steps, [&] {
    Tensor diff = matmul(relu(matmul(x, w1) + b1), w2) + b2 - target;
    return mean(diff * diff);
  });
}

// conv3x3 -> relu -> max_pool 2 -> linear.
std::vector<double> train_cnn(const Device& device, int steps) {
  manual_seed(11);
  const TensorOptions host = TensorOptions().dtype(kFloat32);
  Tensor x = randn({6, 2, 8, 8}, host);
  Tensor target = mean(x, {2, 3}).sum({1}, true);
  Tensor w = randn({4, 2, 3, 3}, host) * 0.3, b = zeros({4}, host);
  Tensor fw = randn({1, 4 * 4 * 4}, host) * 0.2, fb = zeros({1}, host);
  return sgd(device, {&w, &b, &fw, &fb}, {&x, &target}, 0.02, steps, [&] {
    Tensor h = max_pool2d(relu(conv2d(x, w, b, {1}, {1})), {2, 2});
    Tensor diff = linear(h.reshape({6, 64}), fw, fb) - target;
    return mean(diff * diff);
  });
}
}  // namespace

TEST_CASE("a CNN trains on the arena device as on the host") {
  // The arena device has no convolution or pooling kernels: they and their
  // backward ops reach it through the host fallback and composites.
  const std::vector<double> host = train_cnn(Device("cpu"), 20);
  const std::vector<double> arena = train_cnn(Device("arena"), 20);
  CHECK(host.back() < 0.5 * host.front());  // it learns
  REQUIRE(arena.size() == host.size());
  for (size_t i = 0; i < host.size(); ++i) CHECK(arena[i] == doctest::Approx(host[i]).epsilon(1e-4));
}

TEST_CASE("an MLP trains on the arena device as on the host") {
  const std::vector<double> host = train_mlp(Device("cpu"), 30);
  const std::vector<double> arena = train_mlp(Device("arena"), 30);
  CHECK(host.back() < 0.5 * host.front());  // it learns
  REQUIRE(arena.size() == host.size());
  for (size_t i = 0; i < host.size(); ++i) CHECK(arena[i] == doctest::Approx(host[i]).epsilon(1e-4));
}

TEST_CASE("the no-grad path records nothing and every op is accounted for") {
  Tensor a = ones({2});
  CHECK((a + a).grad_fn() == nullptr);
  CHECK(autograd::ops_without_derivative().empty());
  CHECK(autograd::derivative_of("mul.Tensor") == "formula");
  CHECK(autograd::derivative_of("narrow") == "decomposes");
  CHECK(autograd::derivative_of("argmax").rfind("none: ", 0) == 0);
}

namespace {
struct ScaledCube : autograd::Function<ScaledCube> {
  static std::vector<Tensor> forward(autograd::AutogradContext* ctx, const std::vector<Tensor>& in) {
    ctx->save_for_backward({in[0]});
    ctx->saved_data["k"] = Value(2.0);
    return {in[0] * in[0] * in[0] * 2.0};
  }
  static std::vector<Tensor> backward(autograd::AutogradContext* ctx, const std::vector<Tensor>& g) {
    const Tensor x = ctx->get_saved_variables()[0];
    return {g[0] * x * x * (3.0 * ctx->saved_data["k"].to_double())};
  }
};

// An application op with its own formula: myapp::twice(x) = 2x.
void twice_vjp(VjpContext& c) { c.set(0, c.grad(0) * 2.0); }
void twice_shape(ShapeContext& c) {
  const Tensor& x = c.arg(0).tensor();
  c.outputs.push_back({.sizes = x.sizes(), .dtype = x.dtype()});
}
}  // namespace

TEST_CASE("custom functions (autograd::Function) and application ops get gradients") {
  Tensor x = full({2}, 2.0, kF64).requires_grad_();
  Tensor y = ScaledCube::apply({x}, "ScaledCubeBackward")[0];
  CHECK(y.grad_fn()->name() == "ScaledCubeBackward");
  sum(y).backward();
  CHECK(values(x.grad()) == std::vector<double>{24.0, 24.0});

  Library m("gradapp");
  m.def("twice(Tensor x) -> Tensor", &twice_shape, nullptr, Derivative{.vjp = &twice_vjp});
  m.impl("twice", "cpu", [](const Stack& a) -> Stack { return {a[0].tensor() * 2.0}; });
  m.def("opaque(Tensor x) -> Tensor", &twice_shape);
  m.impl("opaque", "cpu", [](const Stack& a) -> Stack { return {a[0].tensor() * 2.0}; });
  Tensor z = ones({3}, kF64).requires_grad_();
  sum(call_op("gradapp::twice", {z})[0].tensor()).backward();
  CHECK(values(z.grad()) == std::vector<double>{2.0, 2.0, 2.0});
  CHECK_THROWS_AS(call_op("gradapp::opaque", {z}), NotImplementedError);  // no derivative declared
  NoGradGuard no_grad;
  CHECK(values(call_op("gradapp::opaque", {z})[0].tensor()) == std::vector<double>{2.0, 2.0, 2.0});
}
