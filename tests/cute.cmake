# Our descriptor encoders against CuTe's (tests/test_cute_descriptors.cu). Test-only dependency: the CUTLASS 4.2
# headers that the pip package nvidia-cutlass==4.2.0.0 ships under cutlass_library/source/include
# (scripts/setup.sh installs it). Included from tests/CMakeLists.txt.
#
#   -DLADDER_CUTE_INCLUDE_DIR=<dir>   use these headers (the directory holding cute/ and cutlass/)
#   otherwise                         ask python3 where the package cutlass_library is (without importing it)
#   -DLADDER_REQUIRE_CUTE=ON          missing headers fail the configure instead of skipping the test
#                                     (default: the environment variable LADDER_REQUIRE_CUTE; .ci/run sets it)
find_package(Python3 COMPONENTS Interpreter)
set(LADDER_CUTE_INCLUDE_DIR "" CACHE PATH "CuTe/CUTLASS headers for the descriptor test (empty: ask python3)")
if(DEFINED ENV{LADDER_REQUIRE_CUTE} AND "$ENV{LADDER_REQUIRE_CUTE}")
  set(_ladder_require_cute_default ON)
else()
  set(_ladder_require_cute_default OFF)
endif()
option(LADDER_REQUIRE_CUTE "Fail the configure when the CuTe headers are missing" ${_ladder_require_cute_default})

set(_cute_dir "${LADDER_CUTE_INCLUDE_DIR}")
set(_cute_version "")
set(_cute_why "")
if(NOT _cute_dir)
  if(Python3_Interpreter_FOUND)
    execute_process(
      COMMAND ${Python3_EXECUTABLE} -c
              "import importlib.util, importlib.metadata as m, os; s = importlib.util.find_spec('cutlass_library'); print(os.path.join(s.submodule_search_locations[0], 'source', 'include') if s else ''); print(m.version('nvidia-cutlass') if s else '')"
      OUTPUT_VARIABLE _cute_out RESULT_VARIABLE _cute_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_cute_rc EQUAL 0 AND _cute_out)
      string(REPLACE "\n" ";" _cute_out "${_cute_out}")
      list(GET _cute_out 0 _cute_dir)
      list(LENGTH _cute_out _n)
      if(_n GREATER 1)
        list(GET _cute_out 1 _cute_version)
      endif()
    else()
      set(_cute_why "the Python package cutlass_library (pip: nvidia-cutlass==4.2.0.0) is not installed for ${Python3_EXECUTABLE}")
    endif()
  else()
    set(_cute_why "no python3 to ask where the pip package nvidia-cutlass is")
  endif()
endif()
if(_cute_dir AND NOT EXISTS "${_cute_dir}/cute/arch/mma_sm100_desc.hpp")
  set(_cute_why "${_cute_dir} has no cute/arch/mma_sm100_desc.hpp")
  set(_cute_dir "")
endif()

if(_cute_dir)
  if(_cute_version AND NOT _cute_version STREQUAL "4.2.0.0")
    message(WARNING "CuTe headers: nvidia-cutlass ${_cute_version}, the test was written against 4.2.0.0")
  endif()
  message(STATUS "CuTe headers for the descriptor test: ${_cute_dir} ${_cute_version}")
  # nvcc, host only (the file hides itself from the device passes): CuTe is written for nvcc.
  add_executable(ladder_cute_tests test_cute_descriptors.cu)
  set_target_properties(ladder_cute_tests PROPERTIES CUDA_ARCHITECTURES 90a-real)
  target_compile_options(ladder_cute_tests PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  target_include_directories(ladder_cute_tests PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_include_directories(ladder_cute_tests SYSTEM PRIVATE ${_cute_dir})
  target_link_libraries(ladder_cute_tests PRIVATE GTest::gtest GTest::gtest_main)
  gtest_discover_tests(ladder_cute_tests TEST_PREFIX "cute_descriptors." DISCOVERY_TIMEOUT 60)
else()
  string(CONCAT _cute_msg "CuTe headers not found: ${_cute_why}. The descriptor comparison against CuTe "
                "(cute_descriptors) reports SKIPPED. Install them with 'python3 -m pip install --no-deps "
                "nvidia-cutlass==4.2.0.0' (scripts/setup.sh does) or pass -DLADDER_CUTE_INCLUDE_DIR=<dir>.")
  if(LADDER_REQUIRE_CUTE)
    message(FATAL_ERROR "LADDER_REQUIRE_CUTE is on. ${_cute_msg}")
  endif()
  message(WARNING "${_cute_msg}")
  add_test(NAME cute_descriptors COMMAND ${CMAKE_COMMAND} -E echo "SKIPPED: ${_cute_msg}")
  set_tests_properties(cute_descriptors PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED:")
endif()
