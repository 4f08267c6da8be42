// The conformance engine: every sample of every op, run on the device under
// test and on the host reference, outputs compared with dtype tolerances.
#include "samples/samples.h"

#include <axle/autograd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>

namespace axle::conformance {

namespace {

struct Outcome {
  std::vector<Tensor> tensors;  // every tensor output, flattened
  std::string error_class;      // non-empty when the call threw
  std::string message;
};

Outcome execute(const OpHandle& op, const Sample& s) {
  Outcome o;
  auto add = [&](const Value& v) {
    if (v.is_tensor())
      o.tensors.push_back(v.tensor());
    else if (v.tag() == Value::Tag::TensorList)
      for (const Tensor& t : v.tensors()) o.tensors.push_back(t);
  };
  try {
    for (const Value& v : call_op(op, s.args)) add(v);
    // Arguments the op writes (in place, out=, the fused optimizer updates) are
    // compared too: for an op returning nothing they are its only results.
    const std::vector<Argument>& params = op.schema().arguments;
    for (size_t i = 0; i < params.size() && i < s.args.size(); ++i)
      if (params[i].is_write) add(s.args[i]);
  } catch (const std::exception& e) {
    o.error_class = error_class(e);
    o.message = e.what();
  }
  return o;
}

std::vector<Sample> generate(const OpSamples& spec, const Device& device, DType dtype, uint64_t seed) {
  SampleContext ctx(device, dtype, seed);
  return spec.samples(ctx);
}

// "" when `got` matches `want`; otherwise what differs.
std::string check_case(const OpSamples& spec, const Sample& sample, DType dtype, const Outcome& got,
                       const Outcome& want) {
  if (!sample.error.empty()) {
    if (want.error_class != sample.error)
      return "sample expects " + sample.error + " but the reference " +
             (want.error_class.empty() ? std::string("succeeded") : "raised " + want.error_class + ": " + want.message);
    if (got.error_class != sample.error)
      return "expected " + sample.error + ", got " +
             (got.error_class.empty() ? std::string("success") : got.error_class + ": " + got.message);
    return "";
  }
  if (!want.error_class.empty()) return "the reference raised " + want.error_class + ": " + want.message;
  if (!got.error_class.empty()) return "raised " + got.error_class + ": " + got.message;
  if (got.tensors.size() != want.tensors.size())
    return detail::concat(got.tensors.size(), " outputs, expected ", want.tensors.size());
  auto [rtol, atol] = default_tolerance(dtype);
  rtol *= spec.rtol_scale;
  atol *= spec.rtol_scale;
  if (sample.rtol > 0) rtol = sample.rtol;
  if (sample.atol > 0) atol = sample.atol;
  for (size_t i = 0; i < got.tensors.size(); ++i) {
    const Tensor& g = got.tensors[i];
    const Tensor& w = want.tensors[i];
    // An output left undefined (output_mask of the backward ops) must be undefined on both.
    if (!g.defined() || !w.defined()) {
      if (g.defined() != w.defined())
        return detail::concat("output ", i, (g.defined() ? " is defined" : " is undefined"), ", expected the opposite");
      continue;
    }
    std::string diff;
    if (spec.values) {
      // Output tolerances follow the output's dtype when it is less precise.
      auto [ortol, oatol] = default_tolerance(w.dtype());
      const double output_atol = std::max(atol, oatol * spec.rtol_scale);
      diff = compare(g, w, std::max(rtol, ortol * spec.rtol_scale),
                     spec.accumulates ? std::max(output_atol, accumulation_atol(w)) : output_atol);
    } else if (g.sizes() != w.sizes() || g.dtype() != w.dtype()) {
      diff = detail::concat(dtype_name(g.dtype()), shape_string(g.sizes()), " != expected ", dtype_name(w.dtype()),
                            shape_string(w.sizes()));
    }
    if (!diff.empty()) return detail::concat("output ", i, ": ", diff);
  }
  return "";
}

// Whether `plugin` served or declined the sample's call (the last top-level
// call the sample made).
void count_outcome(OpReport& r, const std::string& plugin, const std::vector<CallOutcome>& outcomes) {
  if (outcomes.empty()) return;
  const CallOutcome& o = outcomes.back();
  if (!o.raised && o.plugin == plugin && (o.kind == "kernel" || o.kind == "boxed fallback")) {
    ++r.served;
  } else if (auto it = std::find(o.declined.begin(), o.declined.end(), plugin); it != o.declined.end()) {
    ++r.declined;
    const size_t i = static_cast<size_t>(it - o.declined.begin());
    ++r.decline_reasons[i < o.decline_reasons.size() ? o.decline_reasons[i] : std::string()];
  }
}

// ---- gradients
// Whether the op's gradients can be compared: differentiable, writes nothing
// (in-place variants share their functional op's formula), draws no random
// numbers. Per op; the float32/float64 dtype test is the caller's.
bool gradient_comparable(const OpHandle& op) {
  const std::string name = op.schema().full_name();
  const std::string kind = autograd::derivative_of(name);
  if (kind != "formula" && kind != "decomposes") return false;
  for (const Argument& a : op.schema().arguments)
    if (a.is_write) return false;
  return name != "dropout";
}

// A fixed cotangent for an output: cos(0), cos(1), ... in its shape, dtype and device.
Tensor cotangent(const Tensor& like) {
  const Tensor k =
      arange(0, static_cast<double>(std::max<int64_t>(like.numel(), 1)), 1, TensorOptions().dtype(kFloat64));
  return narrow(cos(k), 0, 0, like.numel()).reshape(like.sizes()).to(like.device(), like.dtype());
}

// The gradients of sum(output * v) with respect to the sample's floating tensor
// arguments (`only` >= 0: the only-th of them alone; the others then get none),
// on the host (undefined where none flows); empty when nothing is
// differentiable. Throws what the call throws.
std::vector<Tensor> gradients_of(const OpHandle& op, const Sample& sample, int only = -1) {
  Stack args = sample.args;
  std::vector<Tensor> leaves;
  int index = 0;
  auto leaf = [&](const Tensor& t) {
    if (!t.defined() || !is_floating_point(t.dtype())) return t;
    if (only >= 0 && index++ != only) return t;
    Tensor l = t.detach();
    l.requires_grad_();
    leaves.push_back(l);
    return l;
  };
  for (Value& v : args) {
    if (v.is_tensor()) {
      v = leaf(static_cast<const Value&>(v).tensor());
    } else if (v.tag() == Value::Tag::TensorList) {
      std::vector<Tensor> list = v.tensors();
      for (Tensor& t : list) t = leaf(t);
      v = Value(std::move(list));
    }
  }
  if (leaves.empty()) return {};
  std::vector<Tensor> outputs, cotangents;
  for (const Value& v : call_op(op, args))
    if (v.is_tensor() && v.tensor().defined() && v.tensor().requires_grad()) {
      outputs.push_back(v.tensor());
      cotangents.push_back(cotangent(v.tensor()));
    }
  if (outputs.empty()) return {};
  std::vector<Tensor> grads = autograd::grad(outputs, leaves, cotangents, std::nullopt, false, true);
  for (Tensor& g : grads)
    if (g.defined()) g = g.to(Device("cpu"), kFloat64);
  return grads;
}

// gradients_of, where the op has no derivative for some arguments (its backward
// raises NotImplementedError, as torch's igamma for the shape parameter): those
// arguments' gradients are left undefined, the others computed one by one.
std::vector<Tensor> gradients_where_defined(const OpHandle& op, const Sample& sample) {
  try {
    return gradients_of(op, sample);
  } catch (const NotImplementedError&) {
  }
  std::vector<Tensor> grads;
  for (int k = 0;; ++k) {
    std::vector<Tensor> g;
    try {
      g = gradients_of(op, sample, k);
    } catch (const NotImplementedError&) {
      g = {Tensor()};
    }
    if (g.empty()) return grads;  // no k-th floating argument
    grads.push_back(g[0]);
  }
}

// "" when the gradients agree (a missing gradient equals zeros).
std::string compare_gradients(const std::vector<Tensor>& got, const std::vector<Tensor>& want, double rtol,
                              double atol) {
  if (got.size() != want.size()) return detail::concat(got.size(), " gradients, expected ", want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (!got[i].defined() && !want[i].defined()) continue;
    const Tensor& ref = want[i].defined() ? want[i] : zeros(got[i].sizes(), TensorOptions().dtype(kFloat64));
    const Tensor& dev = got[i].defined() ? got[i] : zeros(want[i].sizes(), TensorOptions().dtype(kFloat64));
    if (std::string diff = compare(dev, ref, rtol, atol); !diff.empty())
      return detail::concat("argument ", i, ": ", diff);
  }
  return "";
}

}  // namespace

std::vector<OpReport> run(const Device& device, const RunOptions& options) {
  const Device host("cpu");
  const bool self_check = device.type() == host.type() && options.plugin.empty();
  using Filter = PluginFilterGuard;
  // The oracle: the reference plugin alone (composites and host fallback as usual).
  auto oracle = [] { return std::make_unique<Filter>(Filter::Mode::Only, std::vector<std::string>{"reference"}); };
  // Under test: the named plugin with the reference below it (its declines land
  // there, other plugins of the type are kept out), the reference alone on a self
  // check, otherwise everything as a user gets it.
  auto under_test = [&]() -> std::unique_ptr<Filter> {
    if (!options.plugin.empty())
      return std::make_unique<Filter>(Filter::Mode::Only, std::vector<std::string>{options.plugin, "reference"});
    return self_check ? oracle() : std::unique_ptr<Filter>();
  };
  std::vector<OpReport> reports;
  for (const OpSamples& spec : all_samples()) {
    if (!options.ops.empty() && std::find(options.ops.begin(), options.ops.end(), spec.op) == options.ops.end())
      continue;
    OpReport r;
    r.op = spec.op;
    for (const auto& [op, reason] : options.skip)
      if (op == spec.op) r.skip_reason = reason;
    if (!r.skip_reason.empty()) {
      r.skipped = 1;
      reports.push_back(r);
      continue;
    }
    const OpHandle handle = find_op(spec.op);
    const bool gradients = options.gradients && gradient_comparable(handle);
    const std::vector<DType>& dtypes = spec.dtypes.empty() ? kEveryDType : spec.dtypes;
    for (DType dtype : dtypes) {
      auto failure = [&](const std::string& note, const std::string& message) {
        ++r.failed;
        r.failures.push_back({spec.op, std::string(dtype_name(dtype)), note, message});
      };
      std::vector<Sample> ref, dev;
      try {
        {
          const auto guard = oracle();
          ref = generate(spec, host, dtype, options.seed);
        }
        const auto guard = under_test();
        dev = generate(spec, device, dtype, options.seed);
      } catch (const std::exception& e) {
        failure("(generator)", std::string("the sample generator threw: ") + e.what());
        continue;
      }
      if (ref.size() != dev.size()) {
        failure("(generator)", "the generator gives a different number of samples per device");
        continue;
      }
      for (size_t i = 0; i < ref.size(); ++i) {
        Outcome want, got;
        {
          const auto guard = oracle();
          want = execute(handle, ref[i]);
        }
        {
          const auto guard = under_test();
          if (options.plugin.empty()) {
            got = execute(handle, dev[i]);
          } else {
            CallOutcomeScope outcomes;
            got = execute(handle, dev[i]);
            count_outcome(r, options.plugin, outcomes.take());
          }
        }
        std::string diff = check_case(spec, ref[i], dtype, got, want);
        if (diff.empty() && self_check && ref[i].error.empty()) {
          for (const Tensor& t : got.tensors)
            if (t.defined() && t.device() != device)
              diff = detail::concat("output on ", t.device(), ", expected ", device);
        }
        if (diff.empty())
          ++r.passed;
        else
          failure(ref[i].note, diff);
        if (gradients && (dtype == kFloat32 || dtype == kFloat64) && diff.empty() && ref[i].error.empty()) {
          std::string gdiff;
          try {
            std::vector<Tensor> gwant, ggot;
            {
              const auto guard = oracle();
              gwant = gradients_where_defined(handle, ref[i]);
            }
            {
              const auto guard = under_test();
              ggot = gradients_where_defined(handle, dev[i]);
            }
            auto [rtol, atol] = default_tolerance(dtype);
            gdiff = compare_gradients(ggot, gwant, rtol * spec.rtol_scale * 10, atol * spec.rtol_scale * 10);
          } catch (const std::exception& e) {
            gdiff = detail::concat("backward raised ", error_class(e), ": ", e.what());
          }
          if (gdiff.empty()) {
            ++r.grad_passed;
          } else {
            ++r.grad_failed;
            failure("gradient: " + ref[i].note, gdiff);
          }
        }
      }
    }
    reports.push_back(std::move(r));
  }
  return reports;
}

std::string format_report(const std::vector<OpReport>& reports) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof line, "%-28s %7s %7s %7s\n", "op", "passed", "failed", "skipped");
  os << line;
  int passed = 0, failed = 0, skipped = 0;
  for (const OpReport& r : reports) {
    std::snprintf(line, sizeof line, "%-28s %7d %7d %7d%s%s\n", r.op.c_str(), r.passed, r.failed, r.skipped,
                  r.skip_reason.empty() ? "" : "  skipped: ", r.skip_reason.c_str());
    os << line;
    passed += r.passed;
    failed += r.failed;
    skipped += r.skipped;
  }
  std::snprintf(line, sizeof line, "%-28s %7d %7d %7d\n", "total", passed, failed, skipped);
  os << line;
  for (const OpReport& r : reports)
    for (const CaseFailure& f : r.failures)
      os << "FAIL " << f.op << " [" << f.dtype << "] " << f.note << ": " << f.message << "\n";
  return os.str();
}

}  // namespace axle::conformance
