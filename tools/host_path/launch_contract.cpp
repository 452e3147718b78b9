// The launch contract of ladder's host path, checked on a machine without a GPU: libladder runs against the fake
// runtime (fake_cudart.cpp), which records what it is asked to launch, and each call through the C ABI
// (ladder_gemm_v2) is checked against CUDA's limits and against the caller's buffers:
//   • a descriptor with one bad field is refused with a code and a message, and nothing is launched, set or
//     allocated (the error comes before anything launches);
//   • a good descriptor through `best` (any M, N, K < 2^31, any leading dimension, element-aligned pointers) is
//     accepted; through a step it may be refused, and then nothing is launched;
//   • an accepted call launches ≥ 1 kernel, each with a grid, block, dynamic SMEM (≤ the limit it raised), cluster
//     shape and occupancy the GPU can run;
//   • every tensor map it encodes is one the driver takes (address, dims, strides, box, swizzle), rows that do not
//     overlap, and a region inside one buffer: A, B, C, D, the bias, or a workspace block allocated in the call.
//     TMA reads and writes only inside the map, so no kernel's TMA leaves the caller's buffers;
//   • every memset lies inside a workspace block; every block is freed by the end of the call;
//   • ladder_gemm_plan launches nothing, and the same call twice launches the same kernels with the same shapes;
//     ladder_gemm and ladder_gemm_ld launch what ladder_gemm_v2 does for the same plain fp16 GEMM;
//   • best's plan names the kernel that runs (family, tile, writeback, split, CTAs, PDL) and small-M's reduction as
//     LADDER_TUNE post asks (pushed or pulled), small-M's grid covers D exactly, and h09-h13 launch their own
//     family's kernel (PDL at h13 only).
// What it cannot check: what the kernels do with plain loads and stores (the pad copy, the register writeback, the
// small-M kernel's stores): the GPU tests do.
//
//   launch_contract [--cases N] [--seed S] [--threads T] [--verbose]   exit 0: every case kept the contract
//   launch_contract --shrink-buffers                         the checker's own test: each buffer is registered one
//                                                            element short, so the maps that reach its end must fail
//   LADDER_TUNE=kernel=K launch_contract --forced            best with a kernel forced: it may refuse a good
//                                                            descriptor that kernel cannot run, with its message, but
//                                                            before anything launches and with no plan
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "fake_cudart.h"
#include "ladder/ladder.h"

namespace {

using RecordFn = void (*)(int);
using RecordedFn = FakeRecord (*)();
using ClustersFn = cudaError_t (*)(int*, const void*, const cudaLaunchConfig_t*);
RecordFn g_record = nullptr;
RecordedFn g_recorded = nullptr;
ClustersFn g_max_clusters = nullptr;  // the fake's occupancy: does a launch's cluster fit the GPU at all?
bool g_blackwell = false;             // FAKE_CUDART_CC=100: the fake answers as a B200
bool g_shrink = false;  // --shrink-buffers: the checker's own test (every buffer one element short must be caught)
bool g_forced = false;  // --forced: LADDER_TUNE forces best's kernel, which may refuse what it cannot run

struct Region {
  const char* what;
  uintptr_t lo, hi;  // [lo, hi)
  uint64_t rows = 0, cols = 0, stride = 0;  // the matrix in it (bytes a row): a map over it must cover all of it
};

std::string show(const ladder_gemm_desc& d) {
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "step=%s M=%" PRId64 " N=%" PRId64 " K=%" PRId64 " A=%#" PRIxPTR " lda=%" PRId64 " B=%#" PRIxPTR
                " ldb=%" PRId64 " D=%#" PRIxPTR " ldd=%" PRId64 " ab=%d d=%d alpha=%g beta=%g C=%#" PRIxPTR " ldc=%" PRId64
                " bias=%#" PRIxPTR " bias_dtype=%d act=%d epilogue=%d flags=%d",
                d.step ? d.step : "(null)", d.M, d.N, d.K, reinterpret_cast<uintptr_t>(d.A), d.lda,
                reinterpret_cast<uintptr_t>(d.B), d.ldb, reinterpret_cast<uintptr_t>(d.D), d.ldd, d.ab_dtype, d.d_dtype,
                d.alpha, d.beta, reinterpret_cast<uintptr_t>(d.C), d.ldc, reinterpret_cast<uintptr_t>(d.bias),
                d.bias_dtype, d.activation, d.epilogue, d.flags);
  return buf;
}

size_t dtype_bytes(int32_t t) { return t == LADDER_DTYPE_F32 ? 4 : 2; }

// A good descriptor and the buffers it names, laid out one after another from 2^40 with gaps between them, so that
// a region that leaves its buffer lands in none (the fake's workspace blocks live from 2^60).
struct Case {
  ladder_gemm_desc d;
  std::vector<Region> buffers;
};

class Generator {
 public:
  // Each case's buffers start at a base of its own (thread salt from the seed, then a counter), so that the library's
  // tensor-map cache never serves a map encoded for an earlier case: every map of every case is seen and checked.
  explicit Generator(uint64_t seed) : rng_(seed), first_base_((uintptr_t{1} << 40) + ((seed & 0xff) << 33)) {}

  int64_t log_uniform(int64_t lo, int64_t hi) {
    std::uniform_real_distribution<double> u(std::log(static_cast<double>(lo)), std::log(static_cast<double>(hi) + 1));
    return std::min<int64_t>(hi, std::max<int64_t>(lo, static_cast<int64_t>(std::exp(u(rng_)))));
  }
  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  Case make(const std::vector<std::string>& steps) {
    static const int64_t kModel[] = {1024, 4096, 8192, 14336, 28672, 128256};
    Case c{};
    ladder_gemm_desc& d = c.d;
    ladder_gemm_desc_init(&d);
    const int regime = pick(10);
    d.M = regime < 4 ? log_uniform(1, 64) : regime < 8 ? log_uniform(65, 20000) : log_uniform(1, INT32_MAX);
    d.N = chance(0.4) ? kModel[pick(6)] : log_uniform(1, regime == 9 ? INT32_MAX : 70000);
    d.K = chance(0.4) ? kModel[pick(5)] : log_uniform(1, regime == 9 ? INT32_MAX : 70000);
    if (chance(0.2)) d.K += pick(7) + 1;  // K % 8 != 0 often
    d.K = std::min<int64_t>(d.K, INT32_MAX - 8);
    // Each matrix under 2^37 elements, 256 GB in fp16: more than a GPU holds (the extreme regime keeps one long side).
    constexpr double kMaxElems = 137438953472.0;
    while (static_cast<double>(d.M) * d.K > kMaxElems || static_cast<double>(d.N) * d.K > kMaxElems ||
           static_cast<double>(d.M) * d.N > kMaxElems)
      (d.K > 64 ? d.K : d.M > d.N ? d.M : d.N) /= 4;
    d.ab_dtype = chance(0.5) ? LADDER_DTYPE_F16 : LADDER_DTYPE_BF16;
    d.d_dtype = chance(0.2) ? LADDER_DTYPE_F32 : d.ab_dtype;
    if (chance(0.5)) {  // the epilogue
      if (chance(0.25)) {
        d.epilogue = LADDER_EPILOGUE_SWIGLU;
        d.N += d.N % 2;
      } else {
        d.activation = pick(5);
      }
      if (chance(0.3)) d.alpha = 0.5f;
      if (chance(0.4)) {
        d.bias_dtype = pick(3);
        d.bias = reinterpret_cast<void*>(1);  // placed below
      }
      if (chance(0.4)) d.beta = chance(0.5) ? 1.0f : -0.25f;
    }
    const int64_t cols = d.epilogue == LADDER_EPILOGUE_SWIGLU ? d.N / 2 : d.N;
    auto pad = [&](int64_t n) { return chance(0.7) ? (chance(0.5) ? 0 : n) : n + log_uniform(1, 300); };
    d.lda = pad(d.K), d.ldb = pad(d.K), d.ldd = pad(cols);
    c_is_d_ = d.beta != 0.0f && chance(0.4);
    if (d.beta != 0.0f && !c_is_d_) d.ldc = pad(cols);
    if (chance(0.3)) d.flags = LADDER_FLAG_B_STATIC;
    d.step = steps[chance(0.6) ? 0 : pick(static_cast<int>(steps.size()))].c_str();
    // A step other than best mostly gets a problem in its domain, so that its launches are checked too.
    const bool conform = std::strcmp(d.step, "best") != 0 && chance(0.85);
    if (conform) conform_to(d, d.step);
    const int64_t out = d.epilogue == LADDER_EPILOGUE_SWIGLU ? d.N / 2 : d.N;
    if (conform) {  // the leading dimensions too: dense for h01-h03 and b01-b03, multiples of 8 elsewhere
      const bool dense = std::atoi(d.step + 1) <= 3;
      auto ld8 = [&](int64_t ld, int64_t n) -> int64_t {
        return dense || (ld == 0 && n % 8 == 0) ? 0 : (std::max(ld, n) + 7) / 8 * 8;
      };
      d.lda = ld8(d.lda, d.K), d.ldb = ld8(d.ldb, d.K), d.ldd = ld8(d.ldd, out);
      if (d.beta != 0.0f && d.ldc) d.ldc = ld8(d.ldc, out);
    }

    // Buffers: base 256-aligned, moved by whole elements now and then (TMA needs 16 bytes; best pads).
    uintptr_t next = first_base_ + (uintptr_t{cases_++} << 12);
    auto place = [&](const char* what, int64_t rows, int64_t row_len, int64_t ld, size_t elem) -> void* {
      const int64_t ld_used = ld ? ld : row_len;
      const size_t bytes = (static_cast<size_t>(rows - 1) * static_cast<size_t>(ld_used) + row_len) * elem;
      const uintptr_t base = next + (!conform && chance(0.15) ? elem * (1 + pick(7)) : 0);
      c.buffers.push_back({what, base, base + bytes - (g_shrink ? elem : 0), static_cast<uint64_t>(rows),
                           static_cast<uint64_t>(row_len), static_cast<uint64_t>(ld_used) * elem});
      next = (base + bytes + (uintptr_t{1} << 20) + 255) / 256 * 256 + 256 * static_cast<uintptr_t>(pick(4096));
      return reinterpret_cast<void*>(base);
    };
    d.A = place("A", d.M, d.K, d.lda, 2);
    d.B = place("B", d.N, d.K, d.ldb, 2);
    d.D = place("D", d.M, out, d.ldd, dtype_bytes(d.d_dtype));
    // ldc 0: D's leading dimension (itself 0: dense).
    if (d.beta != 0.0f) d.C = c_is_d_ ? d.D : place("C", d.M, out, d.ldc ? d.ldc : d.ldd, dtype_bytes(d.d_dtype));
    if (d.bias) d.bias = place("bias", 1, d.N, 0, dtype_bytes(d.bias_dtype));
    return c;
  }

  // The problem moved into a step's domain (its `shapes` rules): h01/b01 one 128×128×64 tile, h02/b02 a K loop,
  // h03/b03 whole 128×128 tiles, dense rows; K % 8 == 0 elsewhere (and N % 8 == 0 for b04+); the teaching steps
  // (h01-h08, b-steps) take a plain fp16 GEMM, h09-h11 an fp16/bf16 D.
  void conform_to(ladder_gemm_desc& d, const char* step) {
    const int n = std::atoi(step + 1);
    const bool fused = step[0] == 'h' && n >= 9;
    if (n == 1) d.M = 128, d.N = 128, d.K = 64;
    if (n == 2) d.M = 128, d.N = 128, d.K = 64 * (1 + pick(64));
    if (n == 3) d.M = 128 * (1 + pick(32)), d.N = 128 * (1 + pick(64)), d.K = 64 * (1 + pick(64));
    d.K = std::min<int64_t>((d.K + 7) / 8 * 8, 65536);
    if (step[0] == 'b') d.N = (d.N + 7) / 8 * 8;
    if (!fused) {
      d.ab_dtype = d.d_dtype = LADDER_DTYPE_F16, d.alpha = 1.0f, d.beta = 0.0f, d.bias = nullptr;
      d.activation = 0, d.epilogue = 0;
    } else if (n <= 11 && d.d_dtype == LADDER_DTYPE_F32) {
      d.d_dtype = d.ab_dtype;
    }
    if (d.epilogue == LADDER_EPILOGUE_SWIGLU) d.N += d.N % 16 ? 16 - d.N % 16 : 0;  // N/2 % 8 == 0
  }

  // One field made bad; the call must be refused before anything launches, with that field's code and message.
  struct Bad {
    const char* field;
    int code;
    const char* message;  // a part of the message that names it
    bool pointer;         // checked after the step's shape rules: a step may refuse the shape first
  };
  Bad break_one(ladder_gemm_desc& d) {
    constexpr int kInvalid = LADDER_ERROR_INVALID_ARGUMENT, kMisaligned = LADDER_ERROR_MISALIGNED;
    switch (pick(15)) {
      case 0: d.M = -d.M; return {"M <= 0", kInvalid, "M, N and K must be positive", false};
      case 1: d.N = 0; return {"N = 0", kInvalid, "M, N and K must be positive", false};
      case 2: d.K = -1; return {"K < 0", kInvalid, "M, N and K must be positive", false};
      case 3: d.lda = d.K - 1 ? d.K - 1 : -1; return {"lda < K", kInvalid, "lda must be >= K", false};
      case 4: d.ldb = -5; return {"ldb < 0", kInvalid, "ldb must be >= K", false};
      case 5: d.ab_dtype = 7; return {"ab_dtype unknown", kInvalid, "ab_dtype must be", false};
      case 6:
        d.d_dtype = d.ab_dtype == LADDER_DTYPE_F16 ? LADDER_DTYPE_BF16 : LADDER_DTYPE_F16;
        return {"d_dtype mixed", kInvalid, "d_dtype must be ab_dtype", false};
      case 7: d.activation = 9; return {"activation unknown", kInvalid, "activation must be one of", false};
      case 8: d.beta = 1.0f, d.C = nullptr; return {"beta without C", kInvalid, "beta != 0 needs C", false};
      case 9: d.alpha = std::nanf(""); return {"alpha NaN", kInvalid, "alpha and beta must be finite", false};
      case 10: d.struct_size -= 8; return {"struct_size", kInvalid, "struct_size must be", false};
      case 11: d.A = nullptr; return {"A null", kInvalid, "non-null device pointers", true};
      case 12: d.flags = 0x40; return {"unknown flag", kInvalid, "unknown bits in flags", false};
      case 13:
        d.epilogue = LADDER_EPILOGUE_SWIGLU, d.activation = 0, d.N |= 1;
        return {"odd N for SwiGLU", kInvalid, "SwiGLU needs an even N", false};
      default: d.D = reinterpret_cast<char*>(d.D) + 1; return {"D not element-aligned", kMisaligned, "aligned", true};
    }
  }

 private:
  std::mt19937_64 rng_;
  uintptr_t first_base_;
  uint64_t cases_ = 0;
  bool c_is_d_ = false;
};

struct Checker {
  const ladder_gemm_desc& d;
  const std::vector<Region>& buffers;
  std::vector<std::string> broken;

  void fail(const std::string& why) { broken.push_back(why); }

  const Region* region_of(uintptr_t lo, uintptr_t hi, const FakeRecord& r) const {
    static thread_local Region ws{"workspace", 0, 0};
    for (const Region& b : buffers)
      if (lo >= b.lo && hi <= b.hi) return &b;
    for (size_t i = 0; i < r.n_allocations; ++i)
      if (lo >= r.allocations[i].base && hi <= r.allocations[i].base + r.allocations[i].bytes)
        return ws = {"workspace", r.allocations[i].base, r.allocations[i].base + r.allocations[i].bytes}, &ws;
    return nullptr;
  }

  void launch(const FakeLaunch& l, size_t i) {
    const std::string at = "launch " + std::to_string(i) + ": ";
    if (l.grid[0] < 1 || l.grid[0] > 0x7fffffffu || l.grid[1] < 1 || l.grid[1] > 65535 || l.grid[2] < 1 || l.grid[2] > 65535)
      fail(at + "grid out of range (" + std::to_string(l.grid[0]) + "," + std::to_string(l.grid[1]) + "," +
           std::to_string(l.grid[2]) + ")");
    const uint64_t threads = uint64_t{l.block[0]} * l.block[1] * l.block[2];
    if (threads < 1 || threads > 1024 || l.block[2] > 64) fail(at + "block out of range");
    if (l.smem > 227 * 1024) fail(at + "dynamic SMEM " + std::to_string(l.smem) + " over the 227 KB an SM gives a CTA");
    // Dynamic SMEM up to the kernel's attribute (48 KB until raised; its static SMEM is not seen here).
    if (l.smem > (l.smem_attribute >= 0 ? static_cast<size_t>(l.smem_attribute) : 48 * 1024))
      fail(at + "dynamic SMEM " + std::to_string(l.smem) + " over the kernel's limit (attribute " +
           std::to_string(l.smem_attribute) + ")");
    if (l.cluster[0] || l.cluster[1] || l.cluster[2]) {
      const uint64_t size = uint64_t{l.cluster[0]} * l.cluster[1] * l.cluster[2];
      for (int a = 0; a < 3; ++a)
        if (l.cluster[a] == 0 || l.grid[a] % l.cluster[a] != 0) fail(at + "the cluster does not divide the grid");
      if (size > (l.nonportable ? 16u : 8u)) fail(at + "cluster of " + std::to_string(size) + " CTAs");
      // The cluster must fit the GPU at once (the runtime's occupancy, here the fake's GPCs).
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim = {l.cluster[0], l.cluster[1], l.cluster[2]};
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(l.cluster[0], l.cluster[1], l.cluster[2]);
      config.blockDim = dim3(l.block[0], l.block[1], l.block[2]);
      config.dynamicSmemBytes = l.smem;
      config.attrs = &attr, config.numAttrs = 1;
      int clusters = 0;
      if (size && (g_max_clusters(&clusters, l.kernel, &config) != cudaSuccess || clusters < 1))
        fail(at + "a cluster of " + std::to_string(size) + " CTAs with " + std::to_string(l.smem) + " B of SMEM fits no GPC");
    }
  }

  void map(const FakeMap& m, size_t i, const FakeRecord& r) {
    const std::string at = "map " + std::to_string(i) + ": ";
    if (m.base % 16) fail(at + "global address not 16-byte aligned");
    for (unsigned a = 0; a < m.rank; ++a) {
      if (m.dims[a] == 0 || m.dims[a] > (uint64_t{1} << 32)) fail(at + "global dim " + std::to_string(a) + " out of range");
      if (m.box[a] == 0 || m.box[a] > 256) fail(at + "box dim " + std::to_string(a) + " out of range");
      if (m.elem_strides[a] == 0 || m.elem_strides[a] > 8) fail(at + "element stride out of range");
    }
    for (unsigned a = 0; a + 1 < m.rank; ++a)
      if (m.strides[a] % 16 || m.strides[a] >= (uint64_t{1} << 40)) fail(at + "global stride not a multiple of 16 below 2^40");
    if (m.box[0] * m.elem_bytes % 16) fail(at + "the box's inner extent is not a multiple of 16 bytes");
    if (m.swizzle_bytes && m.box[0] * m.elem_bytes > m.swizzle_bytes) fail(at + "the box's inner extent exceeds the swizzle span");
    // Rows must not overlap (a row longer than the stride would read the next row where it should read zeros).
    uint64_t extent = m.dims[0] * m.elem_bytes;
    for (unsigned a = 1; a < m.rank; ++a) {
      if (m.strides[a - 1] < extent) fail(at + "dim " + std::to_string(a - 1) + " is longer than the stride after it");
      extent = (m.dims[a] - 1) * m.strides[a - 1] + extent;
    }
    // A map over a caller's matrix covers all of it, no more: a map short of K, of the rows or of the columns would
    // leave part of the product out, and TMA reads zeros (or stores nothing) past the map.
    const Region* in = region_of(m.base, m.base + extent, r);
    if (in && in->rows && m.rank == 2 &&
        (m.base != in->lo || m.dims[0] != in->cols || m.dims[1] != in->rows || m.strides[0] != in->stride)) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "map %zu over %s: %" PRIu64 "x%" PRIu64 " (row %" PRIu64 " B) at +%" PRIuPTR
                    ", not its %" PRIu64 "x%" PRIu64 " (row %" PRIu64 " B)", i, in->what, m.dims[1], m.dims[0],
                    m.strides[0], m.base - in->lo, in->rows, in->cols, in->stride);
      fail(buf);
    }
    // A workspace block must outlive the kernel that reads it: freed (in stream order) after that kernel's launch.
    if (in && !std::strcmp(in->what, "workspace")) {
      bool live = false;  // (a block freed and allocated again within the call appears twice)
      for (size_t a = 0; a < r.n_allocations; ++a)
        live |= r.allocations[a].base == in->lo && r.allocations[a].freed_at > m.launches_before;
      if (!live) fail(at + "its workspace block is freed before the kernel that reads it is launched");
    }
    if (!in) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "map %zu: [%#" PRIxPTR ", %#" PRIxPTR ") lies in no buffer of the call", i, m.base,
                    static_cast<uintptr_t>(m.base + extent));
      fail(buf);
    }
  }

  void record(const FakeRecord& r) {
    if (r.n_launches == 0) fail("accepted, but nothing launched");
    for (size_t i = 0; i < r.n_launches; ++i) launch(r.launches[i], i);
    for (size_t i = 0; i < r.n_maps; ++i) map(r.maps[i], i, r);
    for (size_t i = 0; i < r.n_memsets; ++i) {
      const Region* g = region_of(r.memsets[i].base, r.memsets[i].base + r.memsets[i].bytes, r);
      if (!g || std::strcmp(g->what, "workspace") != 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "memset %zu: [%#" PRIxPTR ", %#" PRIxPTR ") outside the workspace", i,
                      r.memsets[i].base, static_cast<uintptr_t>(r.memsets[i].base + r.memsets[i].bytes));
        fail(buf);
        for (size_t a = 0; a < r.n_allocations; ++a)
          std::printf("    allocation [%#" PRIxPTR ", +%zu)\n", r.allocations[a].base, r.allocations[a].bytes);
      }
    }
  }
};

// The small-M kernel's Config<T, CONSUMERS, N_TOK, NACC, MCAST> in its mangled name: consumers (64 weight rows each),
// N_TOK, NACC, and MCAST (token tiles a cluster, the weights multicast to them).
const std::regex kSmallMName(R"(small_m_kernel.*?6ConfigI(?:6__half|13__nv_bfloat16)Li(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E)");

// small-M's `post` in force: LADDER_TUNE's last post=, else the default (4). Read once, as the library reads it.
int small_m_post() {
  static const int post = [] {
    const char* tune = std::getenv("LADDER_TUNE");
    const std::string t = tune ? tune : "";
    const size_t at = t.rfind("post=");
    return at == std::string::npos ? 4 : std::atoi(t.c_str() + at + 5);
  }();
  return post;
}

// best's plan names what runs: its family, tile, writeback, split and CTAs against the kernel of the call's last
// launch (the GEMM; the pad copies come first), read from the kernel's mangled name (its Config's template arguments)
// and the launch. Empty if they agree.
std::string plan_mismatch(const std::string& plan, const FakeLaunch& l) {
  static const std::regex small_m_plan(R"(small-M: .* (\d+) weight rows x (\d+) tokens per tile, K split (\d+) .* (\d+) CTAs)");
  // CLUSTER_M, STAGES, TILE_M, TILE_N, GROUP_M, DTILES
  static const std::regex pingpong_name(R"(pingpong_kernel.*?6ConfigILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E)");
  static const std::regex coop_name(
      R"(cooperative_kernel.*?6ConfigILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELb([01])EEE(?:6__half|13__nv_bfloat16)Lb([01]))");
  static const std::regex fit_plan(R"(coop_fit 128x(\d+) cluster (\d+))");
  const std::string name = l.name ? l.name : "", family = plan.substr(0, plan.find_first_of(" ,:"));
  std::smatch pm, km;
  auto said = [&](const std::string& what) { return "the plan says " + what + " but the kernel is " + name; };
  if ((plan.find("programmatic dependent launch") != std::string::npos) != l.pdl)
    return l.pdl ? "launched with PDL, which the plan does not say" : "the plan says PDL, the launch has none";
  if (family == "small-M") {
    if (!std::regex_search(plan, pm, small_m_plan) || !std::regex_search(name, km, kSmallMName)) return said("small-M");
    if (64 * std::stoi(km[1]) != std::stoi(pm[1]) || std::stoi(km[2]) != std::stoi(pm[2]))
      return said(pm[1].str() + " weight rows x " + pm[2].str() + " tokens");
    const unsigned mcast = plan.find("multicast to 2 token tiles") != std::string::npos ? 2 : 1;
    if (l.cluster[0] != mcast * std::stoul(pm[3]))
      return "the plan says K split " + pm[3].str() + (mcast > 1 ? " of 2 token tiles" : "") + ", the cluster is " +
             std::to_string(l.cluster[0]);
    if (mcast != std::stoul(km[4])) return said(mcast > 1 ? "the weights multicast" : "no multicast");
    if (mcast > 1 && ((std::stoi(km[1]) != 2 && std::stoi(km[2]) != 64) || l.grid[0] % (2 * std::stoul(pm[3])) != 0))
      return "the plan multicasts the weights of a tile that cannot (one consumer below 64 tokens, or an odd number "
             "of token tiles)";
    if (uint64_t{l.grid[0]} * l.grid[1] * l.grid[2] != std::stoull(pm[4])) return "the plan says " + pm[4].str() + " CTAs, the grid differs";
    // The split's reduction: pushed by bulk copy where post=3 or 4 asks for it and the plan splits K, for the tiles of
    // up to 16 tokens always (their receive slots fit any ring: 16 × 68 × 4 B of partial plus ≤ 16 × 272 B of slots
    // against one 10-KB stage); pulled under post=0-2, at split 1, and under post=4 above 16 tokens.
    const bool pushed = plan.find("pushed to their owners") != std::string::npos;
    const int post = small_m_post(), tokens = std::stoi(pm[2]);
    const bool split = std::stoul(pm[3]) > 1;
    if (pushed && (!split || post < 3 || (post == 4 && tokens > 16)))
      return "the plan pushes the partials where post=" + std::to_string(post) + " at split " + pm[3].str() + ", " +
             pm[2].str() + " tokens does not";
    if (!pushed && split && post >= 3 && tokens <= 16)
      return "the plan pulls the partials of a " + pm[2].str() + "-token tile at split " + pm[3].str() + " under post=" +
             std::to_string(post);
    return {};
  }
  if (family.rfind("pingpong", 0) == 0) {
    // Each ping-pong copy best names: its tile (TILE_M × TILE_N), writeback tiles (2: one a consumer; 1: shared) and
    // CTAs a cluster (along M), against the kernel's Config.
    struct PingpongCopy {
      const char* family;
      int tile_m, tile_n, dtiles, cluster_m;
    };
    static constexpr PingpongCopy kCopies[] = {{"pingpong", 128, 128, 2, 2}, {"pingpong_narrow", 128, 64, 2, 2},
                                               {"pingpong_deep", 128, 128, 1, 2}, {"pingpong_deep64", 64, 64, 1, 2}};
    const PingpongCopy* copy = nullptr;
    for (const PingpongCopy& c : kCopies)
      if (family == c.family) copy = &c;
    if (copy == nullptr) return "unknown ping-pong copy in the plan";
    if (!std::regex_search(name, km, pingpong_name)) return said(family);
    if (std::stoi(km[3]) != copy->tile_m || std::stoi(km[4]) != copy->tile_n || std::stoi(km[6]) != copy->dtiles ||
        std::stoi(km[1]) != copy->cluster_m)
      return said(family);
    return {};  // (its cluster is compiled in, __cluster_dims__: the launch carries no cluster attribute to check)
  }
  if (family.rfind("coop", 0) != 0) return "unknown family in the plan";
  if (!std::regex_search(name, km, coop_name)) return said(family);
  const int tile_n = std::stoi(km[4]), cluster = std::stoi(km[5]);
  const bool defer = km[6] == "1", tma = km[7] == "1";
  if (plan.find("TMA-store writeback") != std::string::npos && !tma) return said("a TMA-store writeback");
  if (plan.find("register writeback") != std::string::npos && tma) return said("a register writeback");
  if ((plan.find("deferred") != std::string::npos) != defer) return said(defer ? "no deferred activation" : "a deferred activation");
  if (family == "coop_fit") {
    if (!std::regex_search(plan, pm, fit_plan) || tile_n != std::stoi(pm[1]) || cluster != std::stoi(pm[2])) return said("this fitted tile");
  } else if (family == "coop1") {
    if (tile_n != 256 || cluster != 1) return said("coop1");
  } else if (family == "coop192") {
    if (tile_n != 192 || cluster != 2) return said("coop192");
  } else if (tile_n != 256 || cluster != 2) {
    return said(family);
  }
  return {};
}

// The small-M kernel's grid is the output's tiles, one CTA a tile and K slice: its token tiles must cover M and its
// weight-row blocks D's columns, with none empty (an uncovered part of D would never be written).
std::string small_m_coverage(const ladder_gemm_desc& d, const FakeLaunch& l) {
  std::smatch km;
  const std::string name = l.name ? l.name : "";
  if (name.find("small_m_kernel") == std::string::npos) return {};
  if (!std::regex_search(name, km, kSmallMName)) return "a small-M kernel whose Config cannot be read: " + name;
  const bool swiglu = d.epilogue == LADDER_EPILOGUE_SWIGLU;
  const int64_t n_tok = std::stoi(km[2]), out_tile = 64 * std::stoi(km[1]) / (swiglu ? 2 : 1);
  const int64_t out_cols = swiglu ? d.N / 2 : d.N, cluster = l.cluster[0] ? l.cluster[0] : 1;
  if (l.grid[0] % cluster) return "small-M: the grid's x is not a whole number of clusters";
  // A cluster is one token tile's K split, or two token tiles' (the weights multicast): an even number of them.
  const int64_t want = (d.M + n_tok - 1) / n_tok, tok_tiles = l.grid[0] / cluster;
  if (tok_tiles != want && !(want % 2 == 0 && cluster % 2 == 0 && 2 * tok_tiles == want))
    return "small-M: " + std::to_string(l.grid[0]) + " CTAs in clusters of " + std::to_string(cluster) +
           " are not the token tiles of " + std::to_string(n_tok) + " for M = " + std::to_string(d.M);
  if (l.grid[1] * out_tile < out_cols || (l.grid[1] - 1) * out_tile >= out_cols)
    return "small-M: " + std::to_string(l.grid[1]) + " blocks of " + std::to_string(out_tile) + " columns for " +
           std::to_string(out_cols);
  return {};
}

// The top of the Hopper ladder launches the families' kernels: each step its own kernel, and PDL only from h13 (h13
// is h12 with PDL; best launches with it too, checked against its plan).
std::string step_mismatch(const char* step, const FakeLaunch& l) {
  struct Want {
    const char* step;
    const char* kernel;
    bool pdl;
  };
  static const Want kWant[] = {{"h09", "cooperative_kernel", false}, {"h10", "pingpong_kernel", false},
                               {"h11", "cooperative_kernel", false}, {"h12", "small_m_kernel", false},
                               {"h13", "small_m_kernel", true}};
  const std::string name = l.name ? l.name : "";
  for (const Want& w : kWant)
    if (!std::strcmp(step, w.step) && (name.find(w.kernel) == std::string::npos || l.pdl != w.pdl))
      return std::string(step) + " should launch " + w.kernel + (w.pdl ? " with" : " without") + " PDL; launched " +
             name + (l.pdl ? " with PDL" : "");
  return {};
}

bool same_launches(const FakeRecord& a, const std::vector<FakeLaunch>& b) {
  if (a.n_launches != b.size()) return false;
  for (size_t i = 0; i < b.size(); ++i) {
    const FakeLaunch &x = a.launches[i], &y = b[i];
    if (x.kernel != y.kernel || std::memcmp(x.grid, y.grid, sizeof x.grid) || std::memcmp(x.block, y.block, sizeof x.block) ||
        std::memcmp(x.cluster, y.cluster, sizeof x.cluster) || x.smem != y.smem || x.pdl != y.pdl)
      return false;
  }
  return true;
}

struct Totals {
  std::atomic<long> accepted{0}, refused_good{0}, refused_bad{0}, launches{0}, maps{0}, failures{0};
  std::atomic<long> shrink_cases{0}, shrink_caught{0};  // --shrink-buffers: cases with a map over a caller's buffer
  std::mutex mu;
  std::map<std::string, long> accepted_by_step;
};
std::mutex g_print;

// `cases` descriptors from `seed`, checked one by one on this thread (the fake runtime records per thread).
void run(uint64_t seed, long cases, bool verbose, const std::vector<std::string>& steps, Totals& t) {
  Generator gen(seed);
  std::map<std::string, long> accepted_by_step;
  for (long n = 0; n < cases && (g_shrink || t.failures < 20); ++n) {
    Case c = gen.make(steps);
    const bool bad = gen.chance(0.25);
    const Generator::Bad broken = bad ? gen.break_one(c.d) : Generator::Bad{};
    const bool best = std::strcmp(c.d.step, "best") == 0;
    std::vector<std::string> why;

    g_record(1);
    const char* plan = ladder_gemm_plan(&c.d);
    const std::string plan_text = plan ? plan : "";
    {
      const FakeRecord p = g_recorded();
      if (p.n_launches || p.n_allocations || p.n_maps || p.n_memsets) why.push_back("ladder_gemm_plan launched, encoded or allocated");
    }

    g_record(1);
    const int rc = ladder_gemm_v2(&c.d, nullptr);
    const std::string message = ladder_last_error();
    const FakeRecord r = g_recorded();
    if (r.live_allocations) why.push_back(std::to_string(r.live_allocations) + " workspace blocks left allocated");
    if (rc != LADDER_OK) {
      if (message.empty()) why.push_back("refused (code " + std::to_string(rc) + ") without a message");
      if (r.n_launches || r.n_memsets || r.n_maps || r.n_allocations)
        why.push_back("refused after launching, encoding or allocating: " + message);
      // A good descriptor: only a step's shape or alignment rules, or the device, may refuse it (best: only the device,
      // and only on the Blackwell stand-in, where every h-step and best are for another GPU).
      const bool device = rc == LADDER_ERROR_UNSUPPORTED_DEVICE;
      const bool forced = g_forced && best && rc == LADDER_ERROR_INVALID_ARGUMENT &&
                          message.find("LADDER_TUNE kernel=") != std::string::npos;
      if (!bad && best && !(g_blackwell && device) && !forced) why.push_back("best refused a good descriptor: " + message);
      if (!bad && rc != LADDER_ERROR_UNSUPPORTED_SHAPE && rc != LADDER_ERROR_MISALIGNED && !device && !forced)
        why.push_back("a good descriptor refused with code " + std::to_string(rc) + ": " + message);
      // A bad one: with its field's code and message (a step may refuse the shape before the pointers are checked).
      if (bad && !(rc == broken.code && message.find(broken.message) != std::string::npos) &&
          !(broken.pointer && !best && (rc == LADDER_ERROR_UNSUPPORTED_SHAPE || device)))
        why.push_back(std::string("refused for another reason than ") + broken.field + " (code " + std::to_string(rc) + ")");
      // The plan needs no pointers: it may describe a call refused for its pointers only.
      if (plan && rc != LADDER_ERROR_MISALIGNED && !(bad && broken.pointer)) why.push_back("the plan was given for a refused call");
      ++(bad ? t.refused_bad : t.refused_good);
    } else {
      if (bad) why.push_back(std::string("accepted a descriptor with ") + broken.field);
      if (plan_text.empty()) why.push_back("accepted, but ladder_gemm_plan failed: " + message);
      Checker k{c.d, c.buffers, {}};
      k.record(r);
      why.insert(why.end(), k.broken.begin(), k.broken.end());
      if (r.n_launches) {
        const FakeLaunch& gemm = r.launches[r.n_launches - 1];
        if (std::string e = small_m_coverage(c.d, gemm); !e.empty()) why.push_back(e);
        if (std::string e = step_mismatch(c.d.step, gemm); !e.empty()) why.push_back(e);
      }
      if (best) {
        if (plan_text.rfind("best -> ", 0) != 0) {
          why.push_back("best's plan does not start with 'best -> '");
        } else if (r.n_launches) {
          if (std::string e = plan_mismatch(plan_text.substr(8), r.launches[r.n_launches - 1]); !e.empty())
            why.push_back("plan: " + e);
        }
        // B static: its first weight stages before the wait, never where B is the pad kernel's fresh copy.
        const bool padded = plan_text.find("rows padded") != std::string::npos;
        const bool says_static = plan_text.find("(B static)") != std::string::npos;
        if (padded && says_static) why.push_back("B's zero-padded copy loaded before the wait for the pad kernel");
        if (!padded && (c.d.flags & LADDER_FLAG_B_STATIC) && plan_text.find("best -> small-M") == 0 &&
            plan_text.find("programmatic dependent launch") != std::string::npos && !says_static)
          why.push_back("B static, but the plan does not load it before the wait");
      }
      t.launches += static_cast<long>(r.n_launches), t.maps += static_cast<long>(r.n_maps);
      const std::vector<FakeLaunch> first(r.launches, r.launches + r.n_launches);
      g_record(1);
      if (ladder_gemm_v2(&c.d, nullptr) != LADDER_OK || !same_launches(g_recorded(), first))
        why.push_back("a second call launched something else");
      // The first two entry points take the plain fp16 GEMM: they must launch what the descriptor does.
      const ladder_gemm_desc& d = c.d;
      if (d.ab_dtype == LADDER_DTYPE_F16 && d.d_dtype == LADDER_DTYPE_F16 && d.epilogue == 0 && d.activation == 0 &&
          d.alpha == 1.0f && d.beta == 0.0f && !d.bias && !d.flags) {
        g_record(1);
        const int64_t ldd = d.ldd ? d.ldd : d.N;
        if (ladder_gemm_ld(d.A, d.lda ? d.lda : d.K, d.B, d.ldb ? d.ldb : d.K, d.D, ldd, d.M, d.N, d.K, d.step, nullptr) !=
                LADDER_OK || !same_launches(g_recorded(), first))
          why.push_back("ladder_gemm_ld launched something else than ladder_gemm_v2");
        if (!d.lda && !d.ldb && !d.ldd) {
          g_record(1);
          if (ladder_gemm(d.A, d.B, d.D, d.M, d.N, d.K, d.step, nullptr) != LADDER_OK || !same_launches(g_recorded(), first))
            why.push_back("ladder_gemm launched something else than ladder_gemm_v2");
        }
      }
      if (g_shrink) {  // every map over a caller's buffer reaches its end: each such case must be caught
        bool over_caller = false;
        for (size_t i = 0; i < r.n_maps; ++i)
          for (const Region& b : c.buffers) over_caller |= r.maps[i].base == b.lo;
        t.shrink_cases += over_caller, t.shrink_caught += over_caller && !why.empty();
      }
      ++t.accepted, ++accepted_by_step[c.d.step];
    }
    g_record(0);
    if (!g_shrink && (verbose || !why.empty())) {
      std::lock_guard lock(g_print);
      std::printf("%s case %" PRIu64 "/%ld: %s%s%s\n  -> %s\n", why.empty() ? "ok" : "FAIL", seed, n, show(c.d).c_str(),
                  bad ? "  [bad: " : "", bad ? (std::string(broken.field) + "]").c_str() : "",
                  rc == LADDER_OK ? plan_text.c_str() : message.c_str());
      for (const std::string& w : why) std::printf("  ! %s\n", w.c_str());
    }
    if (!g_shrink) t.failures += !why.empty();
  }
  std::lock_guard lock(t.mu);
  for (const auto& [step, n] : accepted_by_step) t.accepted_by_step[step] += n;
}

}  // namespace

int main(int argc, char** argv) {
  long cases = 20000;
  uint64_t seed = 20261205;
  int threads = 1;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--cases") && i + 1 < argc) cases = std::atol(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 0);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--verbose")) verbose = true;
    else if (!std::strcmp(argv[i], "--shrink-buffers")) g_shrink = true;
    else if (!std::strcmp(argv[i], "--forced")) g_forced = true;
    else
      return std::fprintf(stderr, "usage: launch_contract [--cases N] [--seed S] [--threads T] [--verbose] "
                                  "[--shrink-buffers] [--forced]\n"), 2;
  }
  g_record = reinterpret_cast<RecordFn>(dlsym(RTLD_DEFAULT, "fake_cudart_record"));
  g_recorded = reinterpret_cast<RecordedFn>(dlsym(RTLD_DEFAULT, "fake_cudart_recorded"));
  g_max_clusters = reinterpret_cast<ClustersFn>(dlsym(RTLD_DEFAULT, "cudaOccupancyMaxActiveClusters"));
  const char* cc = std::getenv("FAKE_CUDART_CC");
  g_blackwell = cc && std::atoi(cc) >= 100;
  if (!g_record || !g_recorded || !g_max_clusters) {
    std::fprintf(stderr, "launch_contract: the fake runtime is not loaded (LD_LIBRARY_PATH must name its libcudart.so.13)\n");
    return 2;
  }
  std::vector<std::string> steps = {"best"};
  for (int i = 0; i < ladder_step_count(); ++i)
    if (std::strcmp(ladder_step_id(i), "best") != 0) steps.push_back(ladder_step_id(i));

  // Several threads call the library at once, each with its own descriptors (seed, seed + 1, ...): the library's
  // caches (tensor maps, occupancy, attributes, the pool) are shared; each thread's calls are checked on their own.
  Totals t;
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k)
    pool.emplace_back(run, seed + static_cast<uint64_t>(k), cases / threads + (k < cases % threads), verbose,
                      std::cref(steps), std::ref(t));
  for (std::thread& th : pool) th.join();
  std::printf("launch_contract: seed %" PRIu64 ", %d thread%s%s: %ld accepted (%ld launches, %ld tensor maps checked), "
              "%ld good descriptors refused by a step, %ld bad ones refused; %ld cases broke the contract\n",
              seed, threads, threads == 1 ? "" : "s", g_blackwell ? ", as a B200" : "", t.accepted.load(),
              t.launches.load(), t.maps.load(), t.refused_good.load(), t.refused_bad.load(), t.failures.load());
  if (g_shrink) {  // the checker's own test: passes only if it caught every case it could
    std::printf("shrunk buffers: %ld of %ld accepted cases with a map over a caller's buffer caught\n",
                t.shrink_caught.load(), t.shrink_cases.load());
    return t.shrink_cases > 0 && t.shrink_caught == t.shrink_cases ? 0 : 1;
  }
  // Every step of this GPU's ladder must have been accepted and checked a few times: no check is vacuous by omission.
  std::string unchecked;
  std::printf("accepted by step:");
  for (const std::string& step : steps) {
    const bool here = (step[0] == 'b') == g_blackwell;
    const long n = t.accepted_by_step.count(step) ? t.accepted_by_step[step] : 0;
    std::printf(" %s %ld", step.c_str(), n);
    if (here && !(g_blackwell && step == "best") && n < std::min<long>(5, cases / 1000)) unchecked += " " + step;
  }
  std::printf("\n");
  if (!unchecked.empty()) std::printf("launch_contract: too few accepted cases to check:%s\n", unchecked.c_str());
  return t.failures || !unchecked.empty() ? 1 : 0;
}
