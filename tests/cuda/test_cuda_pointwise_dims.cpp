// The CUDA plugin's host-side index math against naive enumeration, on every
// machine that builds the plugin (no GPU, no CUDA call):
// - collapse_dims (plugins/cuda/pointwise_dims.cpp, compiled into this
//   test): random shapes and strides (contiguous, permuted, stepped, broadcast)
//   with one to four operands visit the same (offset per operand) tuples as a
//   naive indexer, through both the 64-bit and the kernels' 32-bit
//   multiply-shift unravelling.
// - reduction_kernels.h (header-only): make_reduce_shape / make_scan_shape with
//   kept_offsets, reduced_offset and fast_div, on the 32-bit and 64-bit paths.
// The random cases come from fixed seeds: a failure names its iteration and case.
#include "kernels.h"
#include "reduction_kernels.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <ostream>
#include <random>
#include <vector>

using namespace axle::cuda;

namespace {

struct Random {
  std::mt19937_64 gen;
  explicit Random(uint64_t seed) : gen(seed) {}
  int64_t operator()(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); }
};

template <typename T>
void print_list(std::ostream& os, const T* values, int n) {
  os << '[';
  for (int i = 0; i < n; ++i) os << (i ? " " : "") << values[i];
  os << ']';
}

// ---------------------------------------------------------------- collapse_dims, fast_div
// An Indexing and its operand count, printed for CAPTURE.
struct Shown {
  const Indexing& ix;
  int nops;
};
std::ostream& operator<<(std::ostream& os, const Shown& s) {
  os << "sizes ";
  print_list(os, s.ix.sizes, s.ix.ndim);
  for (int k = 0; k < s.nops; ++k) {
    os << ", strides[" << k << "] ";
    print_list(os, s.ix.strides[k], s.ix.ndim);
  }
  return os;
}

using Tuple = std::array<int64_t, kMaxOperands>;  // one element's offset per operand (0 past nops)

// Every element's tuple, row-major over ix's dims, sorted.
void naive_tuples(const Indexing& ix, int nops, std::vector<Tuple>* out) {
  out->clear();
  int64_t n = 1;
  for (int d = 0; d < ix.ndim; ++d) n *= ix.sizes[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i;
    Tuple t{};
    for (int d = ix.ndim - 1; d >= 0; --d) {
      const int64_t idx = rest % ix.sizes[d];
      rest /= ix.sizes[d];
      for (int k = 0; k < nops; ++k) t[static_cast<size_t>(k)] += idx * ix.strides[k][d];
    }
    out->push_back(t);
  }
  std::sort(out->begin(), out->end());
}

// The first n elements as the strided kernels unravel them (kernels.h's
// offsets: 32-bit fast_div over an Index32, or 64-bit division). Sorted.
template <typename Ix>
void kernel_tuples(const Ix& ix, int nops, int64_t n, std::vector<Tuple>* out) {
  out->clear();
  for (int64_t i = 0; i < n; ++i) {
    int64_t off[kMaxOperands];
    offsets(ix, i, off);
    Tuple t{};
    for (int k = 0; k < nops; ++k) t[static_cast<size_t>(k)] = off[k];
    out->push_back(t);
  }
  std::sort(out->begin(), out->end());
}

// ---------------------------------------------------------------- reduction_kernels.h
struct View {
  std::vector<int64_t> sizes, strides;
  axle_tensor_view v() const {
    return {sizeof(axle_tensor_view),
            nullptr,
            AXLE_DTYPE_FLOAT32,
            static_cast<int32_t>(sizes.size()),
            sizes.data(),
            strides.data(),
            0,
            0};
  }
};
std::ostream& operator<<(std::ostream& os, const View& v) {
  os << "sizes ";
  print_list(os, v.sizes.data(), static_cast<int>(v.sizes.size()));
  os << " strides ";
  print_list(os, v.strides.data(), static_cast<int>(v.strides.size()));
  return os;
}

// A random layout of `sizes` (element strides): contiguous in a random dim
// order, from a step of 1 or 2, with gaps between dims and some 0 strides.
std::vector<int64_t> random_strides(Random& rnd, const std::vector<int64_t>& sizes) {
  const size_t n = sizes.size();
  std::vector<size_t> perm(n);
  for (size_t i = 0; i < n; ++i) perm[i] = i;
  if (rnd(0, 1)) std::shuffle(perm.begin(), perm.end(), rnd.gen);
  std::vector<int64_t> st(n);
  int64_t s = rnd(1, 2);
  for (size_t i = n; i-- > 0;) {
    const size_t d = perm[i];
    st[d] = rnd(0, 5) == 0 ? 0 : s;
    s *= sizes[d] * (rnd(0, 3) == 0 ? 2 : 1);
  }
  return st;
}

// Row-major position i over `sizes` as one index per dim.
void unravel(int64_t i, const std::vector<int64_t>& sizes, std::vector<int64_t>* idx) {
  idx->assign(sizes.size(), 0);
  for (size_t d = sizes.size(); d-- > 0;) {
    (*idx)[d] = i % sizes[d];
    i /= sizes[d];
  }
}

// make(d) then div(f, n) == n / d for the given divisors (edges: powers of two
// and their neighbours, the largest allowed) plus random ones up to max_divisor,
// each with dividends at the edges, around multiples of d and random below 2^31.
template <typename Make, typename Divide>
void check_divider(Random& rnd, std::vector<uint32_t> divisors, int64_t max_divisor, Make make, Divide div) {
  for (int i = 0; i < 2000; ++i) divisors.push_back(static_cast<uint32_t>(rnd(1, max_divisor)));
  for (int i = 0; i < 2000; ++i) divisors.push_back(static_cast<uint32_t>(rnd(1, 5000)));
  constexpr uint32_t kLimit = uint32_t{1} << 31;  // dividends are below 2^31
  std::vector<uint32_t> ns;
  for (const uint32_t d : divisors) {
    const auto f = make(d);
    ns = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, kLimit - 1, kLimit - 2};
    for (int i = 0; i < 300; ++i) ns.push_back(static_cast<uint32_t>(rnd(0, kLimit - 1)));
    for (int i = 0; i < 50; ++i) {
      const uint64_t m = static_cast<uint64_t>(rnd(0, 4096)) * d;
      for (const uint64_t v : {m - 1, m, m + 1})
        if (m > 0 && v < kLimit) ns.push_back(static_cast<uint32_t>(v));
    }
    std::erase_if(ns, [](uint32_t n) { return n >= kLimit; });
    // One assertion per divisor: the first wrong quotient, or n = 0 when none is.
    const auto wrong = std::find_if(ns.begin(), ns.end(), [&](uint32_t n) { return div(f, n) != n / d; });
    const uint32_t n = wrong == ns.end() ? 0 : *wrong;
    CAPTURE(d);
    CAPTURE(n);
    CHECK(div(f, n) == n / d);
  }
}

}  // namespace

TEST_CASE("collapse_dims visits the same element tuples as a naive indexer") {
  constexpr int kIterations = 20000;
  constexpr int64_t kMaxElements = 1024;  // per call: the tuples are sorted, this keeps the run short
  Random rnd(7);
  std::vector<Tuple> want, got;
  int one_dim = 0, several_dims = 0;  // the collapsed calls with <= 1 and with more dims
  for (int iter = 0; iter < kIterations; ++iter) {
    Indexing ix;
    ix.ndim = static_cast<int32_t>(rnd(0, 7));
    const int nops = static_cast<int>(rnd(1, kMaxOperands));
    int64_t n;
    do {  // sizes 1 to 5 (1 more often), redrawn while there are more than kMaxElements elements
      n = 1;
      for (int d = 0; d < ix.ndim; ++d) {
        ix.sizes[d] = rnd(0, 9) == 0 ? 1 : rnd(1, 5);
        n *= ix.sizes[d];
      }
    } while (n > kMaxElements);
    // Per operand: a dense layout of a permutation of the dims (maybe stepped), then broadcasts.
    // all_kind 0: a random layout per operand; 1: all contiguous; 2: all one permutation.
    const int all_kind = static_cast<int>(rnd(0, 3));
    std::vector<int> shared_perm(static_cast<size_t>(ix.ndim));
    for (int d = 0; d < ix.ndim; ++d) shared_perm[static_cast<size_t>(d)] = d;
    std::shuffle(shared_perm.begin(), shared_perm.end(), rnd.gen);
    for (int k = 0; k < nops; ++k) {
      std::vector<int> perm(static_cast<size_t>(ix.ndim));
      for (int d = 0; d < ix.ndim; ++d) perm[static_cast<size_t>(d)] = d;
      if (all_kind == 0) std::shuffle(perm.begin(), perm.end(), rnd.gen);
      if (all_kind == 2) perm = shared_perm;
      int64_t step = all_kind == 0 && rnd(0, 3) == 0 ? rnd(2, 3) : 1;
      const int64_t esize = int64_t{1} << rnd(0, 3);
      for (int p = ix.ndim - 1; p >= 0; --p) {
        const int d = perm[static_cast<size_t>(p)];
        ix.strides[k][d] = step * esize;
        step *= ix.sizes[d];
      }
      if (k > 0 && all_kind == 0)
        for (int d = 0; d < ix.ndim; ++d)
          if (rnd(0, 3) == 0) ix.strides[k][d] = 0;  // broadcast
    }
    Indexing c = ix;
    collapse_dims(&c, nops);
    const Shown given{ix, nops}, collapsed{c, nops};
    CAPTURE(iter);
    CAPTURE(given);
    CAPTURE(collapsed);
    int64_t cn = 1;
    for (int d = 0; d < c.ndim; ++d) {
      REQUIRE(c.sizes[d] >= 2);  // no size-1 dim left
      cn *= c.sizes[d];
    }
    REQUIRE(cn == n);
    for (int k = nops; k < kMaxOperands; ++k)
      for (int d = 0; d < c.ndim; ++d) REQUIRE(c.strides[k][d] == 0);
    // Dense operands of one layout merge into a single dim.
    if (all_kind != 0) REQUIRE(c.ndim <= 1);
    (c.ndim <= 1 ? one_dim : several_dims) += 1;
    naive_tuples(ix, nops, &want);
    naive_tuples(c, nops, &got);
    REQUIRE(got == want);
    kernel_tuples(make_index32(c), nops, n, &got);
    REQUIRE(got == want);
    kernel_tuples(c, nops, n, &got);
    REQUIRE(got == want);
  }
  // The random cases reach both outcomes: fully collapsed and several dims left.
  CHECK(one_dim > 1000);
  CHECK(several_dims > 1000);
}

TEST_CASE("fast_div divides every n < 2^31 exactly for divisors below 2^31") {
  Random rnd(8);
  const uint32_t max = (uint32_t{1} << 31) - 1;
  check_divider(rnd, {1, 2, 3, 5, 7, 8, 255, 256, 257, 65535, 65536, 65537, 1u << 30, (1u << 30) + 1, max}, max,
                make_fast_div, [](const FastDiv& f, uint32_t n) { return fast_div(f, n); });
}

TEST_CASE("fast_div divides every n < 2^31 exactly for the divisor 2^31 and around it") {
  Random rnd(12345);
  const uint32_t max = uint32_t{1} << 31;
  check_divider(rnd, {1, 2, 3, 5, 7, 10, 255, 256, 257, 65535, 65536, 65537, 1u << 30, max - 1, max}, max,
                make_fast_div, [](const FastDiv& f, uint32_t n) { return fast_div(f, n); });
}

TEST_CASE("make_reduce_shape: kept_offsets and reduced_offset match naive enumeration") {
  // Both subcases see the same random shapes.
  Random rnd(12345);
  bool force_64bit = false;
  SUBCASE("32-bit index math where it applies") { force_64bit = false; }
  SUBCASE("64-bit index math") { force_64bit = true; }
  std::vector<int64_t> idx;
  std::vector<std::array<int64_t, 3>> want_kept, got_kept;
  std::vector<int64_t> want_red, got_red;
  for (int iter = 0; iter < 10000; ++iter) {
    const int nd = static_cast<int>(rnd(0, 6));
    View x;
    for (int d = 0; d < nd; ++d) x.sizes.push_back(rnd(0, 12) == 0 ? 0 : rnd(1, 4));
    x.strides = random_strides(rnd, x.sizes);
    bool red[8] = {};
    for (int d = 0; d < nd; ++d) red[d] = rnd(0, 1);
    if (nd > 0 && rnd(0, 5) == 0)
      for (int d = 0; d < nd; ++d) red[d] = true;
    const bool keepdim = rnd(0, 1);
    std::vector<int64_t> kept_sizes, red_sizes, red_x;
    View o0, o1;  // o0 contiguous, o1 a random layout (never 0 strides: outputs are not expanded)
    for (int d = 0; d < nd; ++d) {
      if (red[d]) {
        red_sizes.push_back(x.sizes[static_cast<size_t>(d)]);
        red_x.push_back(x.strides[static_cast<size_t>(d)]);
        if (keepdim) o0.sizes.push_back(1);
      } else {
        kept_sizes.push_back(x.sizes[static_cast<size_t>(d)]);
        o0.sizes.push_back(x.sizes[static_cast<size_t>(d)]);
      }
    }
    o1.sizes = o0.sizes;
    o0.strides.assign(o0.sizes.size(), 0);
    for (int64_t s = 1, d = static_cast<int64_t>(o0.sizes.size()) - 1; d >= 0; --d) {
      o0.strides[static_cast<size_t>(d)] = s;
      s *= o0.sizes[static_cast<size_t>(d)];
    }
    o1.strides = random_strides(rnd, o1.sizes);
    for (int64_t& s : o1.strides)
      if (s == 0) s = 7;
    const bool reorder = rnd(0, 1);
    const bool use1 = rnd(0, 1);
    const axle_tensor_view xv = x.v(), v0 = o0.v(), v1 = o1.v();
    CAPTURE(iter);
    CAPTURE(x);
    CAPTURE(o0);
    CAPTURE(o1);
    CAPTURE(use1);
    CAPTURE(reorder);
    ReduceShape s;
    REQUIRE(make_reduce_shape(xv, red, &v0, use1 ? &v1 : nullptr, reorder, &s));
    if (force_64bit) s.small = false;
    int64_t outputs = 1, count = 1;
    for (const int64_t v : kept_sizes) outputs *= v;
    for (const int64_t v : red_sizes) count *= v;
    REQUIRE(s.outputs == outputs);
    REQUIRE(s.count == count);
    if (outputs == 0) continue;
    // Output o: the kept dims in order (with size-1 reduced dims in the outputs when keepdim).
    want_kept.clear();
    got_kept.clear();
    for (int64_t o = 0; o < outputs; ++o) {
      unravel(o, kept_sizes, &idx);
      std::array<int64_t, 3> want{};
      for (size_t d = 0, j = 0, od = 0; d < static_cast<size_t>(nd); ++d) {
        if (red[d]) {
          od += keepdim;
          continue;
        }
        want[0] += idx[j] * x.strides[d];
        want[1] += idx[j] * o0.strides[od];
        want[2] += use1 ? idx[j] * o1.strides[od] : 0;
        ++j;
        ++od;
      }
      want_kept.push_back(want);
      std::array<int64_t, 3> got{};
      kept_offsets(s, o, got.data());
      got_kept.push_back(got);
    }
    REQUIRE(got_kept == want_kept);
    // The reduced elements: row-major over the reduced dims, in any order with reorder.
    want_red.clear();
    got_red.clear();
    for (int64_t k = 0; k < count; ++k) {
      unravel(k, red_sizes, &idx);
      int64_t r = 0;
      for (size_t d = 0; d < red_sizes.size(); ++d) r += idx[d] * red_x[d];
      want_red.push_back(r);
      got_red.push_back(reduced_offset(s, k));
    }
    if (reorder) {
      std::sort(want_red.begin(), want_red.end());
      std::sort(got_red.begin(), got_red.end());
    }
    REQUIRE(got_red == want_red);
  }
}

TEST_CASE("make_scan_shape: each line's start matches naive enumeration") {
  Random rnd(54321);
  bool force_64bit = false;
  SUBCASE("32-bit index math where it applies") { force_64bit = false; }
  SUBCASE("64-bit index math") { force_64bit = true; }
  std::vector<int64_t> idx;
  std::vector<std::array<int64_t, 2>> want, got;
  for (int iter = 0; iter < 10000; ++iter) {
    const int nd = static_cast<int>(rnd(0, 6));
    View x, y;
    for (int d = 0; d < nd; ++d) x.sizes.push_back(rnd(0, 12) == 0 ? 0 : rnd(1, 4));
    x.strides = random_strides(rnd, x.sizes);
    y.sizes = x.sizes;
    y.strides = random_strides(rnd, y.sizes);
    const int64_t dim = nd == 0 ? -1 : rnd(0, nd - 1);
    const axle_tensor_view xv = x.v(), yv = y.v();
    CAPTURE(iter);
    CAPTURE(x);
    CAPTURE(y);
    CAPTURE(dim);
    ScanShape s;
    REQUIRE(make_scan_shape(xv, yv, dim, &s));
    if (force_64bit) s.lines.small = false;
    std::vector<int64_t> line_sizes;
    for (int d = 0; d < nd; ++d)
      if (d != dim) line_sizes.push_back(x.sizes[static_cast<size_t>(d)]);
    int64_t lines = 1;
    for (const int64_t v : line_sizes) lines *= v;
    const size_t sd = static_cast<size_t>(dim);
    REQUIRE(s.lines.outputs == lines);
    REQUIRE(s.length == (nd == 0 ? 1 : x.sizes[sd]));
    REQUIRE(s.in_step == (nd == 0 ? 0 : x.strides[sd]));
    REQUIRE(s.out_step == (nd == 0 ? 0 : y.strides[sd]));
    want.clear();
    got.clear();
    for (int64_t l = 0; l < lines; ++l) {
      unravel(l, line_sizes, &idx);
      std::array<int64_t, 2> w{};
      for (size_t d = 0, j = 0; d < static_cast<size_t>(nd); ++d) {
        if (static_cast<int64_t>(d) == dim) continue;
        w[0] += idx[j] * x.strides[d];
        w[1] += idx[j] * y.strides[d];
        ++j;
      }
      want.push_back(w);
      int64_t off[3];
      kept_offsets(s.lines, l, off);
      got.push_back({off[0], off[1]});
    }
    REQUIRE(got == want);
  }
}
