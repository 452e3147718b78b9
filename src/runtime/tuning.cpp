#include "runtime/tuning.hpp"

#include <cstdlib>
#include <mutex>
#include <string>

#include "ladder/ladder.hpp"

namespace ladder::detail {
namespace {

[[noreturn]] void bad(std::string_view spec, const std::string& why) {
  throw Error(LADDER_ERROR_INVALID_ARGUMENT, "bad tuning setting '" + std::string(spec) + "': " + why +
                                                 " (keys: kernel=<name>, split=<1..16>, fixup=<K-tiles >= 0>, cps=<1..8>, stages=<2..32>, wg=<1..2>, tok=64|96|128, width=<16..256>, fitcl=1|2, xbox=0|1, post=0|1|2|3|4, defer=0|1|2, wb=0|1, pdl=0|1, l2promo=0|64|128|256, wbox=1|2, l2evict=0|1, relax=0|1, mc=1|2, resc=0|1, bstatic=0|1, trace=0|1)");
}

int parse_int(std::string_view spec, std::string_view v, int lo, int hi) {
  const std::string s(v);
  char* end = nullptr;
  const long x = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || x < lo || x > hi)
    bad(spec, "'" + s + "' is not an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<int>(x);
}

std::mutex mu;
Tuning current;
bool loaded = false;

}  // namespace

Tuning parse_tuning(std::string_view spec) {
  Tuning t;
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string_view::npos) end = spec.size();
    const std::string_view item = spec.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) bad(spec, "'" + std::string(item) + "' has no '='");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "kernel") {
      if (value.empty()) bad(spec, "empty kernel name");
      t.kernel = std::string(value);
    } else if (key == "split") {
      t.split = parse_int(spec, value, 1, 16);
    } else if (key == "fixup") {
      t.fixup = parse_int(spec, value, 0, 1 << 20);
    } else if (key == "cps") {
      t.ctas_per_sm = parse_int(spec, value, 1, 8);
    } else if (key == "stages") {
      t.stages = parse_int(spec, value, 2, 32);
    } else if (key == "wg") {
      t.consumers = parse_int(spec, value, 1, 2);
    } else if (key == "tok") {
      t.tokens = parse_int(spec, value, 64, 128);
      if (t.tokens != 64 && t.tokens != 96 && t.tokens != 128) bad(spec, "tok is 64, 96 or 128");
    } else if (key == "width") {
      t.width = parse_int(spec, value, 16, 256);
      if (t.width % 16 != 0) bad(spec, "width is a multiple of 16");
    } else if (key == "fitcl") {
      t.fit_cluster = parse_int(spec, value, 1, 2);
    } else if (key == "xbox") {
      t.xbox = parse_int(spec, value, 0, 1);
    } else if (key == "post") {
      t.post = parse_int(spec, value, 0, 4);
    } else if (key == "defer") {
      t.defer = parse_int(spec, value, 0, 2);
    } else if (key == "wb") {
      t.wb = parse_int(spec, value, 0, 1);
    } else if (key == "pdl") {
      t.pdl = parse_int(spec, value, 0, 1);
    } else if (key == "l2evict") {
      t.l2evict = parse_int(spec, value, 0, 1);
    } else if (key == "l2promo") {
      t.l2promo = parse_int(spec, value, 0, 256);
      if (t.l2promo != 0 && t.l2promo != 64 && t.l2promo != 128 && t.l2promo != 256) bad(spec, "l2promo is 0, 64, 128 or 256");
    } else if (key == "wbox") {
      t.wbox = parse_int(spec, value, 1, 2);
    } else if (key == "relax") {
      t.relax = parse_int(spec, value, 0, 1);
    } else if (key == "mc") {
      t.mcast = parse_int(spec, value, 1, 2);
    } else if (key == "resc") {
      t.resc = parse_int(spec, value, 0, 1);
    } else if (key == "bstatic") {
      t.bstatic = parse_int(spec, value, 0, 1);
    } else if (key == "trace") {
      t.trace = parse_int(spec, value, 0, 1) == 1;
    } else {
      bad(spec, "unknown key '" + std::string(key) + "'");
    }
  }
  return t;
}

const Tuning& tuning() {
  std::lock_guard lock(mu);
  if (!loaded) {
    const char* spec = std::getenv("LADDER_TUNE");
    Tuning t = spec ? parse_tuning(spec) : Tuning{};  // throws: the first GEMM call reports the bad setting
    if (const char* tr = std::getenv("LADDER_TRACE"); tr && *tr) {
      if (std::string_view(tr) != "0" && std::string_view(tr) != "1")
        throw Error(LADDER_ERROR_INVALID_ARGUMENT, "LADDER_TRACE must be 0 or 1 (got '" + std::string(tr) + "')");
      t.trace = t.trace || *tr == '1';
    }
    current = t;
    loaded = true;
  }
  return current;
}

void set_tuning(const Tuning& t) {
  std::lock_guard lock(mu);
  current = t;
  loaded = true;
}

}  // namespace ladder::detail
