// The CLI's parsing and CSV output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ladder/ladder.hpp"
#include "report.hpp"

using namespace ladder::cli;

TEST(CliParse, ListsAndRanges) {
  EXPECT_EQ(parse_list("128"), (std::vector<int64_t>{128}));
  EXPECT_EQ(parse_list("128,256"), (std::vector<int64_t>{128, 256}));
  EXPECT_EQ(parse_list("1024:4096:1024,8192"), (std::vector<int64_t>{1024, 2048, 3072, 4096, 8192}));
  EXPECT_EQ(parse_list("1:3"), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_THROW(parse_list("abc"), std::invalid_argument);
  EXPECT_THROW(parse_list("12x"), std::invalid_argument);
  EXPECT_THROW(parse_list("4096:1024"), std::invalid_argument);
  EXPECT_THROW(parse_list("1:10:0"), std::invalid_argument);
  EXPECT_THROW(parse_list(""), std::invalid_argument);
}

TEST(CliParse, Shapes) {
  const auto s = parse_shapes("4096x4096x4096,8191x1x7");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].M, 8191);
  EXPECT_EQ(s[1].N, 1);
  EXPECT_EQ(s[1].K, 7);
  EXPECT_THROW(parse_shapes("4096x4096"), std::invalid_argument);
  auto sq = make_shapes({128, 256}, {}, {});
  ASSERT_EQ(sq.size(), 2u);
  EXPECT_EQ(sq[1].K, 256);
  auto prod = make_shapes({128, 256}, {384}, {64, 128});
  EXPECT_EQ(prod.size(), 4u);
  EXPECT_EQ(suite("standard").size(), 13u);
  const auto prefill = suite("prefill");  // 14 layers × 128, 256, 384, 512 tokens, none of them in the decode suite
  EXPECT_EQ(prefill.size(), 56u);
  for (const Shape& s : prefill)
    for (const Shape& d : suite("decode")) EXPECT_FALSE(s.M == d.M && s.N == d.N && s.K == d.K) << s.M << "x" << s.N << "x" << s.K;
  const auto sweep = suite("sweep");
  EXPECT_GE(sweep.size(), 200u);
  for (const Shape& s : sweep) EXPECT_TRUE(s.M >= 1 && s.N >= 1 && s.K >= 1);
  EXPECT_THROW(suite("nope"), std::invalid_argument);
}

TEST(CliParse, StepSelection) {
  EXPECT_EQ(select_steps("h01"), (std::vector<std::string>{"h01"}));
  EXPECT_EQ(select_steps("h01-h03"), (std::vector<std::string>{"h01", "h02", "h03"}));
  EXPECT_EQ(select_steps("h03,best"), (std::vector<std::string>{"h03", "best"}));
  // The architectures select their whole ladder in ladder order, "all" both: hopper's ends with best.
  std::vector<std::string> hopper, blackwell, all;
  for (const ladder::StepInfo& s : ladder::steps()) {
    all.push_back(s.id);
    (s.arch == "hopper" ? hopper : blackwell).push_back(s.id);
  }
  EXPECT_EQ(select_steps("hopper"), hopper);
  EXPECT_EQ(select_steps("blackwell"), blackwell);
  EXPECT_EQ(select_steps("all"), all);
  EXPECT_EQ(select_steps("hopper,blackwell"), all);
  ASSERT_GE(hopper.size(), 11u);
  EXPECT_EQ(hopper.front(), "h01");
  EXPECT_EQ(hopper.back(), "best");
  ASSERT_GE(blackwell.size(), 10u);
  EXPECT_EQ(blackwell.front(), "b01");
  EXPECT_EQ(select_steps("h09-best"), (std::vector<std::string>(hopper.begin() + 8, hopper.end())));
  EXPECT_EQ(select_steps("best,b01"), (std::vector<std::string>{"best", "b01"}));
  EXPECT_THROW(select_steps("h42"), std::invalid_argument);
  EXPECT_THROW(select_steps("h01-h42"), std::invalid_argument);
}

TEST(CliCsv, HostPacedWhereTheHostTakesNinetyPercentOfTheGpuTime) {
  ladder::harness::BenchResult b;
  b.step_ms.median_ms = 0.010;  // 10 µs a call on the GPU
  b.step_ms.host_us = 8.8;
  EXPECT_FALSE(ladder::harness::host_paced(b));
  b.step_ms.host_us = 9.2;
  EXPECT_TRUE(ladder::harness::host_paced(b));
  b.step_ms.median_ms = 0;  // not timed
  EXPECT_FALSE(ladder::harness::host_paced(b));
}

TEST(CliCsv, TheTableShowsTheHostTimeAndMarksHostPacedRows) {
  BenchRow fast{"best", "hopper", {1, 1024, 4096}, {}}, paced{"best", "hopper", {1, 1024, 4096}, {}};
  for (BenchRow* r : {&fast, &paced}) {
    r->result.status = ladder::harness::Status::pass;
    r->result.step_ms = {0.010, 0.009, 0.011, 100};  // 10 µs a call on the GPU
  }
  fast.result.step_ms.host_us = 4.0;
  paced.result.step_ms.host_us = 9.5;
  std::ostringstream os;
  print_bench_table(os, {fast, paced});
  const std::string table = os.str();
  EXPECT_NE(table.find("host_us"), std::string::npos) << table;
  EXPECT_NE(table.find("    4.0 "), std::string::npos) << table;
  EXPECT_NE(table.find("    9.5 "), std::string::npos) << table;
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3) << table;
  const size_t second = table.find('\n', table.find('\n') + 1);  // the paced row is the last line
  EXPECT_EQ(table.find("host-paced"), table.find("host-paced", second)) << table;
  EXPECT_NE(table.find("host-paced"), std::string::npos) << table;
}

// The bench's CSV as it goes: the header when opened, each shape's rows when appended, on disk before the file is
// closed (a run killed by a timeout keeps what it measured).
TEST(CliCsv, WriterFlushesEachAppend) {
  const std::string path = ::testing::TempDir() + "ladder_csv_writer_test.csv";
  auto lines = [&] {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  };
  BenchRow row{"best", "hopper", {16, 1024, 4096}, {}};
  row.result.step = "best";
  const RunInfo info{"NVIDIA H200", "abc123", "2026-12-05T00:00:00Z"};
  {
    CsvWriter w(path, info);
    ASSERT_EQ(lines(), std::vector<std::string>{csv_header()});
    w.append({row, row});
    row.shape = {32, 1024, 4096};
    w.append({row});
    const std::vector<std::string> got = lines();  // still open
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[1], csv_row(BenchRow{"best", "hopper", {16, 1024, 4096}, row.result}, info));
    EXPECT_EQ(got[3], csv_row(row, info));
  }
  EXPECT_EQ(lines().size(), 4u);
  std::remove(path.c_str());
  EXPECT_THROW(CsvWriter("/nonexistent-dir/x.csv", info), std::runtime_error);
}

TEST(CliCsv, HeaderHasTheAgreedColumnsFirst) {
  EXPECT_EQ(csv_header().rfind("step,arch,m,n,k,median_ms,tflops,cublas_tflops,ratio_to_cublas,rel_err,status", 0), 0u);
}

TEST(CliCsv, RowFormatsEveryColumn) {
  BenchRow row{"h03", "hopper", {4096, 4096, 4096}, {}};
  row.result.status = ladder::harness::Status::pass;
  row.result.step = "h03";
  row.result.step_ms = {0.5, 0.4, 0.6, 100, 6.25};
  row.result.cublas_ms = {0.25, 0.2, 0.3, 100, 3.5};
  row.result.tflops = 274.9;
  row.result.cublas_tflops = 549.8;
  row.result.ratio = 0.5;
  row.result.rel_err = 2.5e-4;
  row.result.input_sets = 3;
  row.result.bytes = 1e8;
  row.result.gbps = 200.0;
  row.result.floor_ms = {0.1, 0.09, 0.11, 100};
  row.result.floor_gbps = 1000.0;
  row.result.pct_floor = 0.2;
  row.result.kernel = "h03 grid";
  const std::string line = csv_row(row, {"NVIDIA H200", "abc123", "2026-11-29T00:00:00Z"});
  EXPECT_EQ(line,
            "h03,hopper,4096,4096,4096,0.50000,274.9,549.8,0.500,2.500e-04,pass,0.40000,0.60000,0.25000,100,3,h03,"
            "NVIDIA H200,abc123,2026-11-29T00:00:00Z,100000000,200.0,400.0,0.10000,1000.0,0.200,6.25,3.50,\"\",\"h03 grid\"");
  // Same number of fields as the header.
  auto count = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
  EXPECT_EQ(count(line), count(csv_header()));
  // Free text is quoted, its quotes doubled: a kernel description with commas stays one field.
  row.tune = "split=4";
  row.result.kernel = "small-M: 64 rows, split 4 \"dsmem\"";
  const std::string quoted = csv_row(row, {"NVIDIA H200", "abc123", "2026-11-29T00:00:00Z"});
  EXPECT_NE(quoted.find(",\"split=4\",\"small-M: 64 rows, split 4 \"\"dsmem\"\"\""), std::string::npos) << quoted;
}
