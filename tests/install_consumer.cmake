# Installs the build into a fresh prefix, builds tests/consumer against it with find_package(ladder),
# and runs the consumer. Needs no GPU. -DBUILD_DIR -DSOURCE_DIR -DWORK -DCUDA_ROOT
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
set(prefix ${WORK}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/ladder/ladder.h include/ladder/ladder.hpp include/ladder/export.h lib/libladder.so
          lib/cmake/ladder/ladderConfig.cmake
          lib/cmake/ladder/ladderConfigVersion.cmake lib/cmake/ladder/ladderTargets.cmake)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${WORK}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix} -DCUDAToolkit_ROOT=${CUDA_ROOT})
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${WORK}/build/consumer)
message(STATUS "consumer output:\n${out}")
if(NOT out MATCHES "h01 sm_90a: one tile" OR NOT out MATCHES "ladder_gemm\\(null\\) -> 1: A, B and D must be non-null")
  message(FATAL_ERROR "unexpected consumer output:\n${out}")
endif()
