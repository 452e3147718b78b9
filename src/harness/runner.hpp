// Checking and benchmarking one step on one shape: what `ladder check`, `ladder bench` and the GPU tests run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/harness.hpp"
#include "runtime/tuning.hpp"

namespace ladder::harness {

enum class Status { pass, fail, skip };
const char* to_string(Status s);

struct CheckResult {
  Status status = Status::skip;
  std::string reason;           // why skipped / failed
  Verdict vs_cublas;            // the step against cuBLAS (fp32 output)
  bool cpu_checked = false;     // small problems: also against a CPU double reference
  Verdict step_vs_cpu, cublas_vs_cpu;
  bool deterministic = true;    // a second run on the same input gave identical bits
};

// `fault`: run the step's deliberately broken variant instead (Step::faults); the verifier should fail it.
CheckResult check_step(const std::string& step, int64_t M, int64_t N, int64_t K, uint64_t seed,
                       const std::string& fault = {});

struct BenchResult {
  Status status = Status::skip;
  std::string reason;
  std::string step;             // the resolved step ("best" → its pick)
  Stats step_ms, cublas_ms;
  double tflops = 0, cublas_tflops = 0, ratio = 0;  // ratio = step / cuBLAS throughput
  double rel_err = 0;
  int input_sets = 0;           // rotated to keep the working set >= 2× L2
  std::string kernel;           // what the step launched (Step::describe), when it says
  double bytes = 0;             // 2·(MK + NK + MN): each operand read once, D written once
  Stats floor_ms;               // a streaming read of `bytes`, timed in the same run (harness::read_floor)
  double gbps = 0, floor_gbps = 0, pct_floor = 0;  // bytes / time; pct_floor = floor time / step time
};

// Back to back, the GPU cannot run a call faster than the host launches it: where the host's time a call is within
// 10 % of the GPU's, the step's samples may have timed its launch path, not its kernel.
inline bool host_paced(const BenchResult& b) {
  return b.step_ms.median_ms > 0 && b.step_ms.host_us >= 0.9e3 * b.step_ms.median_ms;
}

BenchResult bench_step(const std::string& step, int64_t M, int64_t N, int64_t K, uint64_t seed,
                       const TimingOptions& opt = {});

// The step under each of `tunings` (LADDER_TUNE settings), on the same data, each verified first, then all timed in
// ONE interleaved run with cuBLAS and the read floor (candidate 0's sample, candidate 1's, ..., cuBLAS's, the
// floor's, then again): drift between candidates (clocks, memory placement) cannot pass for a difference between
// them. The tuning in force is switched before each launch and restored at the end. One result per tuning; the
// cuBLAS and floor figures are shared.
std::vector<BenchResult> bench_candidates(const std::string& step, int64_t M, int64_t N, int64_t K, uint64_t seed,
                                          const std::vector<detail::Tuning>& tunings, const TimingOptions& opt = {});

inline constexpr int64_t kCpuReferenceMaxMNK = int64_t{1} << 27;

}  // namespace ladder::harness
