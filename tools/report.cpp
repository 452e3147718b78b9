#include "report.hpp"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "ladder/ladder.hpp"

namespace ladder::cli {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

int64_t parse_int(const std::string& s) {
  size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty()) throw std::invalid_argument("not an integer: '" + s + "'");
  return v;
}

}  // namespace

std::vector<int64_t> parse_list(const std::string& text) {
  std::vector<int64_t> out;
  for (const std::string& item : split(text, ',')) {
    const std::vector<std::string> r = split(item, ':');
    if (r.size() == 1) {
      out.push_back(parse_int(r[0]));
    } else if (r.size() == 2 || r.size() == 3) {
      const int64_t lo = parse_int(r[0]), hi = parse_int(r[1]), step = r.size() == 3 ? parse_int(r[2]) : 1;
      if (step <= 0 || hi < lo) throw std::invalid_argument("bad range '" + item + "' (want start:stop[:step])");
      if ((hi - lo) / step > 10000) throw std::invalid_argument("range '" + item + "' has too many values");
      for (int64_t v = lo; v <= hi; v += step) out.push_back(v);
    } else {
      throw std::invalid_argument("bad list item '" + item + "'");
    }
  }
  if (out.empty()) throw std::invalid_argument("empty list '" + text + "'");
  return out;
}

std::vector<Shape> parse_shapes(const std::string& text) {
  std::vector<Shape> out;
  for (const std::string& item : split(text, ',')) {
    const std::vector<std::string> d = split(item, 'x');
    if (d.size() != 3) throw std::invalid_argument("bad shape '" + item + "' (want MxNxK)");
    out.push_back({parse_int(d[0]), parse_int(d[1]), parse_int(d[2])});
  }
  if (out.empty()) throw std::invalid_argument("empty shape list");
  return out;
}

std::vector<Shape> make_shapes(const std::vector<int64_t>& m, const std::vector<int64_t>& n,
                               const std::vector<int64_t>& k) {
  std::vector<Shape> out;
  if (n.empty() && k.empty()) {
    for (int64_t v : m) out.push_back({v, v, v});
    return out;
  }
  const std::vector<int64_t>& nn = n.empty() ? m : n;
  const std::vector<int64_t>& kk = k.empty() ? m : k;
  for (int64_t a : m)
    for (int64_t b : nn)
      for (int64_t c : kk) out.push_back({a, b, c});
  return out;
}

namespace {
// The suites' fixed shape generator (xorshift64): the same seed gives the same shapes on every machine.
struct ShapeRng {
  uint64_t x;
  int64_t next(int64_t lo, int64_t hi) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return lo + static_cast<int64_t>(x % static_cast<uint64_t>(hi - lo + 1));
  }
};

// Every layer (N×K) at every token count M, M outermost.
std::vector<Shape> at_tokens(std::initializer_list<int64_t> ms, const std::vector<std::pair<int64_t, int64_t>>& layers) {
  std::vector<Shape> out;
  for (int64_t m : ms)
    for (const auto& [n, k] : layers) out.push_back({m, n, k});
  return out;
}
}  // namespace

std::vector<Shape> suite(const std::string& name) {
  if (name == "check")
    return {{128, 128, 64},    {128, 128, 1024},  {256, 384, 512},   {384, 256, 192},  {1024, 1024, 1024},
            {2048, 1024, 4096}, {1920, 640, 320}, {4096, 4096, 4096}, {8192, 8192, 8192},
            {3072, 3072, 4096}, {3000, 3000, 4000},  // h10's 192-wide cooperative tile
            {1536, 1536, 16384}};                    // h10 splits every tile (stream-K, fewer tiles than SMs)
  if (name == "bench") return {{4096, 4096, 4096}, {8192, 8192, 8192}};
  if (name == "sweep") {
    // 240 shapes from a fixed generator: primes, M or N < 128, K < 64, K % 8 != 0, very skinny, large.
    std::vector<Shape> out;
    ShapeRng rng{0x9E3779B97F4A7C15ull};
    auto next = [&](int64_t lo, int64_t hi) { return rng.next(lo, hi); };
    const int64_t primes[] = {1, 2, 3, 5, 7, 13, 31, 61, 127, 257, 509, 1021, 2039, 4093};
    for (int i = 0; i < 240; ++i) {
      switch (i % 6) {
        case 0: out.push_back({primes[next(0, 13)], primes[next(0, 13)], primes[next(0, 13)]}); break;
        case 1: out.push_back({next(1, 127), next(1, 2048), next(1, 2048)}); break;    // M < 128
        case 2: out.push_back({next(1, 2048), next(1, 127), next(1, 2048)}); break;    // N < 128
        case 3: out.push_back({next(1, 1024), next(1, 1024), next(1, 63)}); break;     // K < 64
        case 4: out.push_back({next(1, 3000), next(1, 3000), next(1, 400) * 8 + next(1, 7)}); break;  // K % 8 != 0
        case 5: out.push_back({next(1, 8), next(2048, 8192), next(64, 4096)}); break;  // very skinny
      }
    }
    return out;
  }
  if (name == "standard")
    return {{1024, 1024, 1024},   {2048, 2048, 2048},  {4096, 4096, 4096},   {6144, 6144, 6144},
            {8192, 8192, 8192},   {16384, 16384, 16384}, {8192, 4096, 4096}, {8192, 14336, 4096},
            {8192, 4096, 14336},  {8192, 28672, 8192}, {4095, 4097, 4099},   {8191, 8191, 8191},
            {3000, 5000, 2000}};
  if (name == "decode") {
    // Decode: M tokens × the linear layers (N×K) of Llama-3-8B and Llama-3-70B.
    const std::vector<std::pair<int64_t, int64_t>> layers = {
        {4096, 4096}, {1024, 4096}, {14336, 4096}, {4096, 14336}, {128256, 4096},   // 8B: q/o, k/v, gate/up, down, lm_head
        {8192, 8192}, {1024, 8192}, {28672, 8192}, {8192, 28672}};                   // 70B
    return at_tokens({1, 2, 4, 8, 16, 32, 64, 128, 256, 512}, layers);
  }
  if (name == "fewtile")  // fewer tiles than about two waves
    return {{256, 8192, 8192}, {1536, 1536, 4096}, {2560, 2560, 2560}, {512, 4096, 4096}, {512, 14336, 4096}};
  if (name == "prefill") {
    // Other models' layers (N×K) at 128-512 tokens: where best was weakest off the Llama-3 suites (eighteenth and
    // thirty-second sessions: 0.67-0.83× at 384 tokens). Llama-3.2-1B, Llama-3.2-3B, Qwen2.5-7B, Phi-3-mini.
    const std::vector<std::pair<int64_t, int64_t>> layers = {
        {2048, 2048}, {512, 2048},  {8192, 2048},  {2048, 8192},    // 1B: q/o, k/v, gate/up, down
        {3072, 3072}, {1024, 3072}, {8192, 3072},  {3072, 8192},    // 3B
        {3584, 3584}, {512, 3584},  {18944, 3584}, {3584, 18944},   // Qwen2.5-7B
        {9216, 3072}, {16384, 3072}};                               // Phi-3-mini: fused q/k/v, fused gate+up
    return at_tokens({128, 256, 384, 512}, layers);
  }
  if (name == "smallm") {
    // ≥ 300 shapes with M from 1 to 512 for the small-M kernels: primes, odd N and K, K % 8 != 0 (best pads).
    std::vector<Shape> out;
    ShapeRng rng{0xD1B54A32D192ED03ull};
    auto next = [&](int64_t lo, int64_t hi) { return rng.next(lo, hi); };
    const int64_t primes[] = {1, 2, 3, 5, 7, 11, 13, 17, 31, 61, 127, 257, 509};
    for (int i = 0; i < 320; ++i) {
      switch (i % 5) {
        case 0: out.push_back({primes[next(0, 12)], next(1, 3000), next(1, 512) * 8}); break;  // K % 8 == 0
        case 1: out.push_back({next(1, 64), next(1, 5000), next(1, 5000)}); break;              // any K
        case 2: out.push_back({next(1, 512), next(1, 2048) * 2 + 1, next(1, 300) * 8}); break;  // odd N
        case 3: out.push_back({next(1, 16), next(64, 8192), next(1, 64) * 64}); break;          // decode-like
        case 4: out.push_back({next(65, 512), next(1, 4096), next(1, 4096)}); break;            // the crossover
      }
    }
    return out;
  }
  throw std::invalid_argument("unknown suite '" + name + "' (check, bench, standard, sweep, decode, fewtile, prefill, smallm)");
}

std::vector<std::string> select_steps(const std::string& text) {
  std::vector<std::string> all;
  for (const StepInfo& s : steps()) all.push_back(s.id);
  std::vector<std::string> out;
  auto known = [&](const std::string& id) {
    for (const std::string& a : all)
      if (a == id) return true;
    return false;
  };
  for (const std::string& item : split(text, ',')) {
    if (item == "all") {
      out.insert(out.end(), all.begin(), all.end());
    } else if (item == "hopper" || item == "blackwell") {
      for (const StepInfo& s : steps())
        if (s.arch == item) out.push_back(s.id);
    } else if (const auto dash = item.find('-'); dash != std::string::npos) {
      const std::string lo = item.substr(0, dash), hi = item.substr(dash + 1);
      if (!known(lo) || !known(hi)) throw std::invalid_argument("unknown step in range '" + item + "'");
      bool in = false;
      for (const std::string& a : all) {
        if (a == lo) in = true;
        if (in) out.push_back(a);
        if (a == hi) in = false;
      }
    } else {
      if (!known(item)) {
        std::string list;
        for (const std::string& a : all) list += a + " ";
        throw std::invalid_argument("unknown step '" + item + "'; known: " + list);
      }
      out.push_back(item);
    }
  }
  if (out.empty()) throw std::invalid_argument("no steps selected by '" + text + "'");
  return out;
}

std::string csv_header() {
  return "step,arch,m,n,k,median_ms,tflops,cublas_tflops,ratio_to_cublas,rel_err,status,"
         "min_ms,max_ms,cublas_median_ms,reps,input_sets,resolved_step,gpu,commit,date,"
         "bytes,gbps,cublas_gbps,floor_ms,floor_gbps,pct_floor,host_us,cublas_host_us,tune,kernel";
}

std::string csv_row(const BenchRow& r, const RunInfo& info) {
  const harness::BenchResult& b = r.result;
  std::string status = harness::to_string(b.status);
  for (char& c : status) c = static_cast<char>(std::tolower(c));
  char buf[1024];
  std::snprintf(buf, sizeof buf, "%s,%s,%lld,%lld,%lld,%.5f,%.1f,%.1f,%.3f,%.3e,%s,%.5f,%.5f,%.5f,%d,%d,%s,%s,%s,%s",
                r.step.c_str(), r.arch.c_str(), static_cast<long long>(r.shape.M), static_cast<long long>(r.shape.N),
                static_cast<long long>(r.shape.K), b.step_ms.median_ms, b.tflops, b.cublas_tflops, b.ratio, b.rel_err,
                status.c_str(), b.step_ms.min_ms, b.step_ms.max_ms, b.cublas_ms.median_ms, b.step_ms.reps,
                b.input_sets, b.step.c_str(), info.gpu.c_str(), info.commit.c_str(), info.date.c_str());
  const double cublas_gbps = b.cublas_ms.median_ms > 0 ? b.bytes / (b.cublas_ms.median_ms * 1e-3) / 1e9 : 0;
  char more[256];
  std::snprintf(more, sizeof more, ",%.0f,%.1f,%.1f,%.5f,%.1f,%.3f,%.2f,%.2f,", b.bytes, b.gbps, cublas_gbps,
                b.floor_ms.median_ms, b.floor_gbps, b.pct_floor, b.step_ms.host_us, b.cublas_ms.host_us);
  // Free text last, quoted (the kernel description has commas).
  auto quoted = [](const std::string& t) {
    std::string q = "\"";
    for (char c : t) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  return std::string(buf) + more + quoted(r.tune) + "," + quoted(b.kernel);
}

CsvWriter::CsvWriter(const std::string& path, RunInfo info) : path_(path), info_(std::move(info)), f_(path) {
  if (!f_) throw std::runtime_error("cannot write " + path);
  f_ << csv_header() << '\n' << std::flush;
  if (!f_) throw std::runtime_error("error writing " + path_);
}

void CsvWriter::append(const std::vector<BenchRow>& rows) {
  for (const BenchRow& r : rows) f_ << csv_row(r, info_) << '\n';
  f_ << std::flush;
  if (!f_) throw std::runtime_error("error writing " + path_);
}

void print_bench_table(std::ostream& os, const std::vector<BenchRow>& rows) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-5s %-9s %6s %6s %6s %10s %8s %8s %7s %7s %7s %7s %10s  %s\n", "step", "arch", "M", "N",
                "K", "median_ms", "TFLOP/s", "cuBLAS", "ratio", "GB/s", "%floor", "host_us", "rel_err", "status");
  os << buf;
  for (const BenchRow& r : rows) {
    const harness::BenchResult& b = r.result;
    if (b.status == harness::Status::pass)
      std::snprintf(buf, sizeof buf,
                    "%-5s %-9s %6lld %6lld %6lld %10.4f %8.1f %8.1f %6.1f%% %7.0f %6.1f%% %7.1f %10.2e  pass%s%s%s\n",
                    r.step.c_str(), r.arch.c_str(), static_cast<long long>(r.shape.M),
                    static_cast<long long>(r.shape.N), static_cast<long long>(r.shape.K), b.step_ms.median_ms,
                    b.tflops, b.cublas_tflops, 100 * b.ratio, b.gbps, 100 * b.pct_floor, b.step_ms.host_us, b.rel_err,
                    harness::host_paced(b) ? "  host-paced" : "", r.tune.empty() ? "" : "  tune ", r.tune.c_str());
    else
      std::snprintf(buf, sizeof buf, "%-5s %-9s %6lld %6lld %6lld %10s %8s %8s %7s %7s %7s %7s %10s  %s: %s\n",
                    r.step.c_str(), r.arch.c_str(), static_cast<long long>(r.shape.M),
                    static_cast<long long>(r.shape.N), static_cast<long long>(r.shape.K), "-", "-", "-", "-", "-", "-",
                    "-", "-", harness::to_string(b.status), b.reason.c_str());
    os << buf;
  }
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace ladder::cli
