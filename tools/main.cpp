// ladder — the command-line tool: list the steps, check them against cuBLAS and a CPU reference,
// benchmark them against cuBLAS.  Exit codes: 0 ok · 1 a check failed · 2 cannot run here (no GPU,
// unsupported GPU) or bad usage.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "harness/runner.hpp"
#include "ladder/ladder.hpp"
#include "ladder_version.hpp"
#include "phase_table.hpp"
#include "report.hpp"
#include "runtime/runtime.hpp"
#include "step.hpp"
#include "runtime/tuning.hpp"

namespace {

using namespace ladder;
using harness::Status;

constexpr int kExitFail = 1, kExitCannotRun = 2;

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

struct ShapeArgs {
  std::string m, n, k, shapes, suite_name;
  std::vector<cli::Shape> resolve(const std::string& default_suite) const {
    if (!shapes.empty()) return cli::parse_shapes(shapes);
    if (!suite_name.empty()) return cli::suite(suite_name);
    if (m.empty() && (!n.empty() || !k.empty())) throw std::invalid_argument("--n/--k need --m");
    if (!m.empty())
      return cli::make_shapes(cli::parse_list(m), n.empty() ? std::vector<int64_t>{} : cli::parse_list(n),
                              k.empty() ? std::vector<int64_t>{} : cli::parse_list(k));
    return cli::suite(default_suite);
  }
};

void add_shape_options(CLI::App* cmd, ShapeArgs& a) {
  cmd->add_option("--m", a.m, "M values: list and ranges, e.g. 128,256 or 1024:8192:1024");
  cmd->add_option("--n", a.n, "N values (default: square shapes from --m)");
  cmd->add_option("--k", a.k, "K values (default: square shapes from --m)");
  cmd->add_option("--shapes", a.shapes, "explicit shapes, e.g. 4096x4096x4096,8191x8191x8191");
  cmd->add_option("--suite", a.suite_name, "a named shape set: check, bench, standard, sweep, decode, fewtile, prefill, smallm");
}

// Progress on a terminal only; CI logs stay clean.
bool show_progress() { return isatty(fileno(stderr)) && std::getenv("CI") == nullptr; }
void progress(size_t done, size_t total, const std::string& what) {
  if (!show_progress()) return;
  std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, what.c_str());
  if (done == total) std::fprintf(stderr, "\r\033[K");
}

// Returns 0 when some selected step can run here; prints why not and returns 2 otherwise.
int require_runnable(const std::vector<std::string>& ids, const char* verb) {
  const detail::DeviceInfo dev = detail::current_device();
  if (!dev.present) {
    std::cerr << "ladder " << verb << ": needs an NVIDIA GPU: Hopper (sm_90, e.g. H100/H200) for the h-steps, "
              << "Blackwell (sm_100, e.g. B200) for the b-steps.\n"
              << "This machine has none (" << dev.error << ").\n"
              << "Everything is built; run the same command on a machine with such a GPU.\n";
    return kExitCannotRun;
  }
  for (const std::string& id : ids) {
    const detail::Step* s = detail::find_step(id);
    if (id == "best" || (s && detail::arch_support(s->arch).empty())) return 0;
  }
  std::cerr << "ladder " << verb << ": none of the selected steps can run on " << detail::describe(dev) << ": "
            << detail::arch_support(detail::find_step(ids.front()) ? detail::find_step(ids.front())->arch
                                                                    : detail::Arch::hopper)
            << "\n";
  return kExitCannotRun;
}

int cmd_list() {
  const detail::DeviceInfo dev = detail::current_device();
  std::printf("GPU: %s\n\n", detail::describe(dev).c_str());
  std::printf("%-5s %-9s %-8s %-20s %s\n", "id", "arch", "target", "title", "runs here");
  for (const detail::Step* s : detail::registry()) {
    const std::string why = detail::arch_support(s->arch);
    const std::string here = why.empty() ? "yes" : (dev.present ? "no: " + why : "no GPU");
    std::printf("%-5s %-9s %-8s %-20s %s\n", std::string(s->id).c_str(), std::string(detail::arch_name(s->arch)).c_str(),
                std::string(detail::arch_target(s->arch)).c_str(), std::string(s->title).c_str(), here.c_str());
    std::printf("      change: %s\n", std::string(s->change).c_str());
    std::printf("      shapes: %s\n", std::string(s->shapes).c_str());
  }
  return 0;
}

int cmd_check(const std::string& step_text, const ShapeArgs& sa, const std::string& seeds_text,
              const std::string& fault) {
  const std::vector<std::string> ids = cli::select_steps(step_text);
  const std::vector<cli::Shape> shapes = sa.resolve("check");
  std::vector<int64_t> seeds = cli::parse_list(seeds_text);
  if (int rc = require_runnable(ids, "check")) return rc;

  int passed = 0, failed = 0, skipped = 0;
  const size_t total = ids.size() * shapes.size() * seeds.size();
  size_t done = 0;
  std::printf("%-5s %6s %6s %6s %5s  %-6s %s\n", "step", "M", "N", "K", "seed", "status", "detail");
  for (const std::string& id : ids)
    for (const cli::Shape& sh : shapes)
      for (int64_t seed : seeds) {
        progress(done++, total, id + " " + std::to_string(sh.M) + "x" + std::to_string(sh.N) + "x" + std::to_string(sh.K));
        harness::CheckResult r;
        try {
          r = harness::check_step(id, sh.M, sh.N, sh.K, static_cast<uint64_t>(seed), fault);
        } catch (const std::exception& e) {
          r.status = Status::fail;
          r.reason = e.what();
        }
        if (r.status == Status::skip) {
          ++skipped;
          continue;  // not accepted / not runnable here: counted, not listed
        }
        std::string detail = r.status == Status::pass ? r.vs_cublas.detail() : r.reason;
        if (r.status == Status::pass && r.cpu_checked)
          detail += "; vs CPU double: step " + sci(r.step_vs_cpu.rel_err) + ", cuBLAS " + sci(r.cublas_vs_cpu.rel_err);
        std::printf("%-5s %6lld %6lld %6lld %5lld  %-6s %s\n", id.c_str(), static_cast<long long>(sh.M),
                    static_cast<long long>(sh.N), static_cast<long long>(sh.K), static_cast<long long>(seed),
                    harness::to_string(r.status), detail.c_str());
        std::fflush(stdout);
        (r.status == Status::pass ? passed : failed)++;
      }
  progress(total, total, "");
  if (!fault.empty()) {
    // A fault-injection run succeeds when the verifier catches every injected run.
    std::printf("\nfault '%s' injected: %d runs caught by the verifier (FAIL above is the expected outcome), "
                "%d not caught\n", fault.c_str(), failed, passed);
    return passed == 0 && failed > 0 ? 0 : kExitFail;
  }
  std::printf("\n%d passed, %d failed, %d skipped (shape not accepted or step not runnable on this GPU)\n", passed,
              failed, skipped);
  return failed ? kExitFail : 0;
}

// "spec;spec;…" → the tuning settings to run under, in order ("" = the library's own choice).
std::vector<std::string> split_tunes(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    const size_t end = text.find(';', pos);
    out.push_back(text.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  for (const std::string& t : out) {  // a bad spec fails before anything runs (bad usage: exit 2)
    try {
      detail::parse_tuning(t);
    } catch (const Error& e) {
      throw std::invalid_argument(e.what());
    }
  }
  return out;
}

int cmd_bench(const std::string& step_text, const ShapeArgs& sa, uint64_t seed, const std::string& csv,
              const std::string& tune_text, const harness::TimingOptions& opt) {
  const std::vector<std::string> ids = cli::select_steps(step_text);
  const std::vector<cli::Shape> shapes = sa.resolve("bench");
  const std::vector<std::string> tunes = split_tunes(tune_text);
  if (int rc = require_runnable(ids, "bench")) return rc;

  const detail::DeviceInfo dev = detail::current_device();
  const cli::RunInfo info{dev.name, LADDER_GIT_COMMIT, cli::utc_now()};
  std::optional<cli::CsvWriter> csv_out;  // written shape by shape (a run cut short keeps what it measured)
  if (!csv.empty()) csv_out.emplace(csv, info);
  std::printf("ladder bench · %s · commit %s · %s\n", detail::describe(dev).c_str(), info.commit.c_str(),
              info.date.c_str());
  std::printf("cuBLAS cublasGemmEx (fp16 in/out, fp32 compute) timed in this process, interleaved, same data, "
              "inputs rotated over >= 2.5x L2; median of CUDA-event samples.\n\n");
  // NOTE: a run's first row measured slow, its read floor with it (2026-12-01: 1×4096×4096 took 15.4 µs first,
  // then 11.9 µs three times; docs/results/dev/2026-12-01-s4-first-row/). One untimed pass of the first row
  // brings the GPU to its working state before anything is recorded.
  if (!shapes.empty() && !ids.empty()) {
    harness::TimingOptions warm = opt;
    warm.target_ms = std::max(opt.target_ms, 200.0);
    try {
      harness::bench_step(ids[0], shapes[0].M, shapes[0].N, shapes[0].K, seed, warm);
    } catch (const std::exception&) {  // the row itself reports its error below
    }
  }
  std::vector<cli::BenchRow> rows;
  const size_t total = ids.size() * shapes.size() * tunes.size();
  size_t done = 0;
  // The --tune candidates of a shape run interleaved in one timing (harness::bench_candidates), not one after another.
  const detail::Tuning initial = detail::tuning();
  std::vector<detail::Tuning> tunings;
  for (const std::string& tune : tunes) {
    detail::Tuning t = tune.empty() ? initial : detail::parse_tuning(tune);
    t.trace = t.trace || initial.trace;  // LADDER_TRACE=1 traces every candidate, not only the empty one
    tunings.push_back(t);
  }
  for (const cli::Shape& sh : shapes)
    for (const std::string& id : ids) {
      progress(done, total, id + " " + std::to_string(sh.M) + "x" + std::to_string(sh.N) + "x" + std::to_string(sh.K));
      done += tunes.size();
      const detail::Step* s = detail::find_step(id);
      std::vector<harness::BenchResult> results(tunes.size());
      try {
        results = harness::bench_candidates(id, sh.M, sh.N, sh.K, seed, tunings, opt);
      } catch (const std::exception& e) {
        for (harness::BenchResult& r : results) r.status = Status::fail, r.reason = e.what();
      }
      const size_t first = rows.size();
      for (size_t j = 0; j < tunes.size(); ++j)
        rows.push_back({id, s ? std::string(detail::arch_name(s->arch)) : "auto", sh, results[j], tunes[j]});
      if (csv_out) csv_out->append({rows.begin() + static_cast<std::ptrdiff_t>(first), rows.end()});
    }
  progress(total, total, "");
  cli::print_bench_table(std::cout, rows);
  if (!csv.empty()) std::printf("\nwrote %s\n", csv.c_str());
  for (const cli::BenchRow& r : rows)
    if (r.result.status == Status::fail) return kExitFail;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ladder: a half-precision GEMM on tensor cores, built as a ladder of small verified steps"};
  app.require_subcommand(1);

  app.add_subcommand("list", "list the steps: architecture, the change each makes, the shapes it accepts");

  std::string check_steps = "all", check_seeds = "1,2";
  ShapeArgs check_shapes;
  auto* check = app.add_subcommand("check", "verify steps against cuBLAS (and a CPU double reference when small)");
  check->add_option("--steps", check_steps, "steps: all, hopper, blackwell, ids or ranges (h01,h03 / h01-h03), best");
  check->add_option("--seeds", check_seeds, "random seeds (list)");
  add_shape_options(check, check_shapes);
  std::string check_fault;
  check->add_option("--inject", check_fault,
                    "run a deliberately broken variant (e.g. forget-phase-toggle on h04): the verifier must catch it");

  std::string bench_steps = "hopper", csv;
  uint64_t bench_seed = 1;
  ShapeArgs bench_shapes;
  auto* bench = app.add_subcommand("bench", "time steps against cuBLAS in the same process");
  bench->add_option("--steps", bench_steps, "steps (default: the Hopper ladder)");
  bench->add_option("--seed", bench_seed, "random seed");
  bench->add_option("--csv", csv, "write the results as CSV");
  std::string bench_tune;
  harness::TimingOptions bench_opt;
  bench->add_option("--tune", bench_tune,
                    "tuning settings to compare, ';'-separated (e.g. 'split=4;split=8'; '' = the cost model): "
                    "each runs as its own row");
  bench->add_option("--target-ms", bench_opt.target_ms, "timed milliseconds per candidate (sets the repetitions)");
  bench->add_option("--warmup-ms", bench_opt.warmup_ms, "warm-up milliseconds before timing");
  add_shape_options(bench, bench_shapes);

  int phase_k_tiles = 4;
  bool phase_forget = false;
  auto* phase = app.add_subcommand("phase-table", "print the seed's phase-flip table (host mbarrier model, no GPU)");
  phase->add_option("--k-tiles", phase_k_tiles, "K-loop iterations");
  phase->add_flag("--forget-toggle", phase_forget, "leave out phase ^= 1: the waits return early");

  CLI11_PARSE(app, argc, argv);
  try {
    if (app.got_subcommand("list")) return cmd_list();
    if (app.got_subcommand("check")) return cmd_check(check_steps, check_shapes, check_seeds, check_fault);
    if (app.got_subcommand("bench")) return cmd_bench(bench_steps, bench_shapes, bench_seed, csv, bench_tune, bench_opt);
    if (app.got_subcommand("phase-table")) return cli::cmd_phase_table(phase_k_tiles, phase_forget);
  } catch (const std::invalid_argument& e) {
    std::cerr << "ladder: " << e.what() << "\n";
    return kExitCannotRun;
  } catch (const std::exception& e) {
    std::cerr << "ladder: " << e.what() << "\n";
    return kExitFail;
  }
  return 0;
}
