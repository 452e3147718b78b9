# Runs the real `ladder` binary and checks exit codes and messages. Works with or without a GPU.
function(run expect_rc expect_text)
  execute_process(COMMAND ${LADDER} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "ladder ${ARGN}: exit ${rc}, expected ${expect_rc}\n${out}\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${expect_text}")
    message(FATAL_ERROR "ladder ${ARGN}: output lacks '${expect_text}'\n${out}\n${err}")
  endif()
endfunction()

run(0 "h01" list)
run(2 "unknown step 'h99'" check --steps h99)
run(2 "not an integer" check --steps h01 --m abc)
run(2 "bad shape" bench --shapes 12x12)
run(0 "blocked until MMA 3 completed" phase-table --k-tiles 4)
run(0 "RETURNED EARLY: MMA 1.*--inject forget-phase-toggle" phase-table --k-tiles 4 --forget-toggle)
run(2 "--k-tiles must be" phase-table --k-tiles 0)
execute_process(COMMAND ${LADDER} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  message(FATAL_ERROR "ladder without a subcommand must fail")
endif()

# Without a GPU, bench and check say what they need and exit 2; with one, they run.
execute_process(COMMAND ${LADDER} bench --steps h01 --shapes 128x128x64 --csv ${WORK}/cli_bench.csv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 2)
  if(NOT err MATCHES "needs an NVIDIA GPU")
    message(FATAL_ERROR "bench without a GPU must say what it needs:\n${err}")
  endif()
elseif(rc EQUAL 0)
  file(READ ${WORK}/cli_bench.csv csv)
  if(NOT csv MATCHES "^step,arch,m,n,k,median_ms,tflops,cublas_tflops,ratio_to_cublas,rel_err,status")
    message(FATAL_ERROR "bad CSV header:\n${csv}")
  endif()
else()
  message(FATAL_ERROR "bench: unexpected exit ${rc}\n${out}\n${err}")
endif()

# A b-step (sm_100a) launches nothing where it cannot run: exit 2 with what it needs. On the H200 the
# message names the GPU ("needs a Blackwell (sm_100) GPU; this is NVIDIA H200 (sm_90)"); without a GPU it
# asks for one; only on a Blackwell GPU does the check run (exit 0 or 1).
execute_process(COMMAND ${LADDER} check --steps b01 --shapes 128x128x64 RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(rc EQUAL 2)
  if(NOT err MATCHES "needs an NVIDIA GPU|needs a Blackwell \\(sm_100\\) GPU; this is .+ \\(sm_[0-9]+\\)")
    message(FATAL_ERROR "check --steps b01 off Blackwell must say what it needs:\n${out}\n${err}")
  endif()
elseif(NOT rc EQUAL 0 AND NOT rc EQUAL 1)
  message(FATAL_ERROR "check --steps b01: unexpected exit ${rc}\n${out}\n${err}")
endif()
