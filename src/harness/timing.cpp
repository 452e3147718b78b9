#include <algorithm>
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

std::pair<Stats, Stats> time_interleaved(const std::function<void(int)>& f, const std::function<void(int)>& g,
                                         int sets, cudaStream_t stream, const TimingOptions& opt) {
  // Warm-up (module load, cuBLAS heuristics, clocks), and a first estimate of one pair's cost.
  Events probe(2);
  int set = 0, warm = 0;
  float elapsed = 0;
  cuda_check(cudaEventRecord(probe.ev[0], stream), "record");
  do {
    for (int i = 0; i < 4; ++i, ++warm, set = (set + 1) % sets) {
      f(set);
      g(set);
    }
    cuda_check(cudaEventRecord(probe.ev[1], stream), "record");
    cuda_check(cudaEventSynchronize(probe.ev[1]), "sync");
    cuda_check(cudaEventElapsedTime(&elapsed, probe.ev[0], probe.ev[1]), "elapsed");
  } while (elapsed < opt.warmup_ms && warm < 4000);
  const double per_pair = std::max(1e-3, static_cast<double>(elapsed) / warm);
  // A sample is `inner` back-to-back launches (>= ~1 ms), so host launch overhead cannot open gaps
  // inside short kernels' samples; long kernels are timed one launch per sample.
  const int inner = std::clamp(static_cast<int>(std::ceil(1.0 / per_pair)), 1, 64);
  const int reps = std::clamp(static_cast<int>(2 * opt.target_ms / (per_pair * inner)), opt.min_reps, opt.max_reps);

  // Timed: f-sample, g-sample, f-sample, … on the same rotated input sets.
  Events ev(3 * static_cast<size_t>(reps));
  for (int r = 0; r < reps; ++r) {
    const int first = set;
    cuda_check(cudaEventRecord(ev.ev[3 * r], stream), "record");
    for (int i = 0; i < inner; ++i) f((first + i) % sets);
    cuda_check(cudaEventRecord(ev.ev[3 * r + 1], stream), "record");
    for (int i = 0; i < inner; ++i) g((first + i) % sets);
    cuda_check(cudaEventRecord(ev.ev[3 * r + 2], stream), "record");
    set = (first + inner) % sets;
  }
  cuda_check(cudaStreamSynchronize(stream), "timing sync");
  std::vector<float> tf(reps), tg(reps);
  for (int r = 0; r < reps; ++r) {
    cuda_check(cudaEventElapsedTime(&tf[r], ev.ev[3 * r], ev.ev[3 * r + 1]), "elapsed");
    cuda_check(cudaEventElapsedTime(&tg[r], ev.ev[3 * r + 1], ev.ev[3 * r + 2]), "elapsed");
    tf[r] /= inner;
    tg[r] /= inner;
  }
  return {summarize(tf), summarize(tg)};
}

}  // namespace ladder::harness
