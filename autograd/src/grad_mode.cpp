// Grad mode: per thread, on by default (torch.is_grad_enabled).
#include <axle/autograd.h>

namespace axle {

namespace {
thread_local bool t_grad_enabled = true;
}  // namespace

bool is_grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool enabled) { t_grad_enabled = enabled; }

}  // namespace axle
