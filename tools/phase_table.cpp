#include "phase_table.hpp"

#include <cstdio>
#include <iostream>
#include <string>

namespace ladder::cli {

void print_phase_table(std::ostream& os, const model::PhaseTable& t, bool forget_toggle) {
  os << "phase-flip table: a K-loop of " << t.rows.size() << " K-tiles on one reused mma_bar (count 1), "
     << (forget_toggle ? "phase NOT toggled (--forget-toggle)" : "phase ^= 1 after every wait") << "\n"
     << "host model of mbarrier semantics (src/device/mbarrier_model.hpp): try_wait.parity(phase) returns once the\n"
     << "phase with that parity has completed; the waiter is assumed faster than the tensor core.\n\n";
  char line[160];
  std::snprintf(line, sizeof line, "%4s  %-10s  %9s  %14s  %13s  %s\n", "iter", "accumulate", "phase reg",
                "bar bit before", "bar bit after", "wait");
  os << line;
  int early = 0;
  for (const model::PhaseRow& r : t.rows) {
    std::string wait;
    if (r.early) {
      ++early;
      wait = "RETURNED EARLY: MMA " + std::to_string(r.iteration) + " still in flight  <-- BUG";
    } else {
      wait = r.blocked ? "blocked until MMA " + std::to_string(r.completed_during_wait) + " completed"
                       : "returned at once (MMA already complete)";
    }
    std::snprintf(line, sizeof line, "%4d  %-10s  %9u  %14u  %13u  %s\n", r.iteration, r.accumulate ? "true" : "false",
                  r.phase_register, r.bit_at_wait, r.bit_after_mma, wait.c_str());
    os << line;
  }
  os << "\n";
  if (early == 0) {
    os << "every wait blocked until its own MMA completed; the epilogue reads a complete accumulator.\n";
    return;
  }
  os << early << " of " << t.rows.size() << " waits returned early (iteration 1 on): the loop overwrote SMEM under "
     << "running MMAs, and " << t.in_flight_at_epilogue << " MMA(s) were still in flight when the epilogue read TMEM."
     << "\nNothing fails loudly: the result is silently wrong.\n"
     << "On a GPU, the verifier catches it: ladder check --steps h04 --inject forget-phase-toggle\n";
}

int cmd_phase_table(int k_tiles, bool forget_toggle) {
  if (k_tiles < 1 || k_tiles > 4096) {
    std::cerr << "ladder phase-table: --k-tiles must be in [1, 4096] (got " << k_tiles << ")\n";
    return 2;
  }
  print_phase_table(std::cout, model::simulate_k_loop(k_tiles, forget_toggle), forget_toggle);
  return 0;
}

}  // namespace ladder::cli
