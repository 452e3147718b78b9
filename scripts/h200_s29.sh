#!/usr/bin/env bash
# The twenty-ninth session's device calls (docs/notes.md, "Twenty-ninth session"); other groups run through
# h200_s28.sh (GROUPS_ as there, one at a time):
#   GROUPS_=pctx   the prefill's short linears in the model's context (prefill_gemms.py --context model, call 2 of this
#                  session reproduced the model's profile there: k/v 17.6 against cuBLAS's 12.3 µs, q/o 30.8 against
#                  28.2 on an H100) under each LADDER_TUNE in $PCTX (";"-separated; "" = best's pick), one process each
set -uo pipefail
source "$(dirname "$0")/h200_env.sh"
mkdir -p "$L/csv"
session_group() {
  case $1 in
    pctx)
      local t i=0
      IFS=';' read -ra tunes <<< "${PCTX:-}"
      for t in "${tunes[@]}"; do
        i=$((i + 1))
        LADDER_TUNE=$t T 60 python3 scripts/prefill_gemms.py --context model --layers "${PLAYERS:-q/o,k/v}" \
          --out "$L/csv/pctx-$i.csv" > "$L/pctx-$i.log" 2>&1
        grep -E "model" "$L/pctx-$i.log" | sed "s/^/[${t:-auto}] /" | cut -c1-120
      done ;;
    *) GROUPS_=$1 bash "$(dirname "$0")/h200_s28.sh" | grep -v "^== $1" ;;
  esac
}
run_groups
