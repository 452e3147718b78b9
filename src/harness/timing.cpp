#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "harness/harness.hpp"

namespace ladder::harness {
namespace {

Stats summarize(std::vector<float> ms) {
  std::sort(ms.begin(), ms.end());
  Stats s;
  s.reps = static_cast<int>(ms.size());
  s.min_ms = ms.front();
  s.max_ms = ms.back();
  const size_t n = ms.size();
  s.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  return s;
}

struct Events {
  std::vector<cudaEvent_t> ev;
  explicit Events(size_t n) : ev(n) {
    for (auto& e : ev) cuda_check(cudaEventCreate(&e), "cudaEventCreate");
  }
  ~Events() {
    for (auto& e : ev) cudaEventDestroy(e);
  }
};

}  // namespace

std::vector<Stats> time_interleaved(const std::vector<std::function<void(int)>>& fs, int sets, cudaStream_t stream,
                                    const TimingOptions& opt) {
  const size_t nf = fs.size();
  // Warm-up (module load, cuBLAS heuristics, clocks), and a first estimate of one round's cost.
  Events probe(2);
  int set = 0, warm = 0;
  float elapsed = 0;
  cuda_check(cudaEventRecord(probe.ev[0], stream), "record");
  do {
    for (int i = 0; i < 4; ++i, ++warm, set = (set + 1) % sets)
      for (const auto& f : fs) f(set);
    cuda_check(cudaEventRecord(probe.ev[1], stream), "record");
    cuda_check(cudaEventSynchronize(probe.ev[1]), "sync");
    cuda_check(cudaEventElapsedTime(&elapsed, probe.ev[0], probe.ev[1]), "elapsed");
  } while (elapsed < opt.warmup_ms && warm < 4000);
  const double per_call = std::max(1e-3, static_cast<double>(elapsed) / warm / static_cast<double>(nf));
  // A sample is `inner` back-to-back launches (>= ~0.5 ms), so host launch overhead cannot open gaps
  // inside short kernels' samples; long kernels are timed one launch per sample.
  const int inner = std::clamp(static_cast<int>(std::ceil(0.5 / per_call)), 1, 64);
  const int reps = std::clamp(static_cast<int>(opt.target_ms / (per_call * inner)), opt.min_reps, opt.max_reps);

  // The host's cost a call: `inner` calls of each function timed on the host clock from an idle stream (the launch
  // queue has room for them all, so no call waits for the GPU), median of kHostProbes. Back to back, the GPU's
  // time a call is at least this; where the two meet, the samples below measure the host.
  constexpr int kHostProbes = 5;
  std::vector<std::vector<double>> host_us(nf);
  for (int r = 0; r < kHostProbes; ++r)
    for (size_t j = 0; j < nf; ++j) {
      cuda_check(cudaStreamSynchronize(stream), "host probe sync");
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < inner; ++i, set = (set + 1) % sets) fs[j](set);
      const std::chrono::duration<double, std::micro> dt = std::chrono::steady_clock::now() - t0;
      host_us[j].push_back(dt.count() / inner);
    }
  cuda_check(cudaStreamSynchronize(stream), "host probe sync");

  // Timed: f0-sample, f1-sample, …, f0-sample, …, the input sets rotated by one running counter across all launches.
  // (Until 2026-12-02 every function's sample started at the same set: the function after another then began on sets
  // that one had just left in L2, and f0, after the read floor, never did. Small shapes measured f0 up to 7 % slower
  // than an identical f1: docs/notes.md, thirteenth session.)
  Events ev((nf + 1) * static_cast<size_t>(reps));
  for (int r = 0; r < reps; ++r) {
    for (size_t j = 0; j < nf; ++j) {
      cuda_check(cudaEventRecord(ev.ev[(nf + 1) * r + j], stream), "record");
      for (int i = 0; i < inner; ++i, set = (set + 1) % sets) fs[j](set);
    }
    cuda_check(cudaEventRecord(ev.ev[(nf + 1) * r + nf], stream), "record");
  }
  cuda_check(cudaStreamSynchronize(stream), "timing sync");
  std::vector<Stats> out;
  for (size_t j = 0; j < nf; ++j) {
    std::vector<float> t(reps);
    for (int r = 0; r < reps; ++r) {
      cuda_check(cudaEventElapsedTime(&t[r], ev.ev[(nf + 1) * r + j], ev.ev[(nf + 1) * r + j + 1]), "elapsed");
      t[r] /= inner;
    }
    out.push_back(summarize(std::move(t)));
    std::sort(host_us[j].begin(), host_us[j].end());
    out.back().host_us = host_us[j][kHostProbes / 2];
  }
  return out;
}

}  // namespace ladder::harness
