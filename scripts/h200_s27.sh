#!/usr/bin/env bash
# The twenty-seventh session's device calls (docs/notes.md, "Twenty-seventh session"):
#   GROUPS_="final model"  publish the defaults of c2175a5 on the H200 (check suites, the three suites benched, the model)
#   GROUPS_=pdl            the PDL and small-M GPU tests (the chain's push trace check and 32-token case, unrun on a GPU
#                          until now) and the rewritten probe's push variant, plain
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
session_group() {
  case $1 in
    pdl)
      T 120 "$B/tests/ladder_tests" --gtest_filter='SmallM.*:Pdl.*' > "$L/tests-pdl.log" 2>&1
      grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$L/tests-pdl.log" | head -8
      T 30 "$B/ladder_cluster_probe" --sizes 1,2,4,8 --variants dsmem,push > "$L/probe-plain.log" 2>&1
      echo "probe: $(grep -c "result=ok" "$L/probe-plain.log") ok, $(grep -c "result=WRONG" "$L/probe-plain.log") wrong"; grep "result=" "$L/probe-plain.log" | cut -c1-80 | head -8 ;;
    *) common_group "$1" ;;
  esac
}
run_groups
