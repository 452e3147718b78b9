// The CLI's plumbing: parsing step and shape lists, the standard shape suites, CSV and table output.
#pragma once
#include <cstdint>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "harness/runner.hpp"

namespace ladder::cli {

struct Shape {
  int64_t M, N, K;
};

// "128,256,1024:4096:1024" → {128, 256, 1024, 2048, 3072, 4096}. Throws std::invalid_argument.
std::vector<int64_t> parse_list(const std::string& text);
// "4096x4096x4096,8191x8191x8191" → shapes. Throws std::invalid_argument.
std::vector<Shape> parse_shapes(const std::string& text);
// Only m given: squares. Otherwise the product of the lists (a missing list follows m).
std::vector<Shape> make_shapes(const std::vector<int64_t>& m, const std::vector<int64_t>& n,
                               const std::vector<int64_t>& k);
// "check" (small, every step's accepted shapes), "bench" (4096³, 8192³), "standard" (docs/design.md's set).
// Throws std::invalid_argument for an unknown name.
std::vector<Shape> suite(const std::string& name);

// "all", "hopper", "blackwell", or ids "h01,h03" (ranges "h01-h03"). Throws std::invalid_argument.
std::vector<std::string> select_steps(const std::string& text);

struct RunInfo {
  std::string gpu, commit, date;
};

struct BenchRow {
  std::string step, arch;
  Shape shape;
  harness::BenchResult result;
  std::string tune = {};  // the LADDER_TUNE-style setting this row ran under ("" = the cost model's choice)
};

std::string csv_header();
std::string csv_row(const BenchRow& row, const RunInfo& info);
// The bench's CSV written as it goes: the header when opened (a bad path fails before anything runs), then each
// shape's rows as they are measured, flushed, so a run cut short (a timeout, a stall) leaves what it measured and
// shows where it stopped. Throws std::runtime_error when the file cannot be written.
class CsvWriter {
 public:
  CsvWriter(const std::string& path, RunInfo info);
  void append(const std::vector<BenchRow>& rows);

 private:
  std::string path_;
  RunInfo info_;
  std::ofstream f_;
};
void print_bench_table(std::ostream& os, const std::vector<BenchRow>& rows);

std::string utc_now();  // "2026-11-29T12:34:56Z"

}  // namespace ladder::cli
