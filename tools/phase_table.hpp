// `ladder phase-table`: the seed's phase-flip table for the step-02 K-loop, from the host mbarrier model.
#pragma once
#include <ostream>

#include "device/mbarrier_model.hpp"

namespace ladder::cli {

void print_phase_table(std::ostream& os, const model::PhaseTable& table, bool forget_toggle);

// Prints the table for `k_tiles` iterations; returns the exit code (2 for a bad --k-tiles).
int cmd_phase_table(int k_tiles, bool forget_toggle);

}  // namespace ladder::cli
