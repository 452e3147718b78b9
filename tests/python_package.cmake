# The `python` install component is a working package: after
#   cmake --install <build> --component python --prefix <site>
# `import ladder` from <site>, outside the repository and with LADDER_LIBRARY unset, loads <site>/ladder's own
# libladder.so. This is the rule `pip install .` uses (pyproject.toml: install.components = ["python"]).
# Arguments: BUILD_DIR, WORK, PYTHON.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --component python --prefix ${WORK}/site
                RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(rc)
  message(FATAL_ERROR "cmake --install --component python failed:\n${log}")
endif()
foreach(f __init__.py _library.py _launch.py ops.py nn.py reference.py libladder.so)
  if(NOT EXISTS ${WORK}/site/ladder/${f})
    message(FATAL_ERROR "the python component did not install ladder/${f}:\n${log}")
  endif()
endforeach()
if(EXISTS ${WORK}/site/lib OR EXISTS ${WORK}/site/include)
  message(FATAL_ERROR "the python component installed more than the package (lib/ or include/)")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LADDER_LIBRARY PYTHONPATH=${WORK}/site
                        ${PYTHON} -c "import ladder; print(ladder.__file__); print(ladder.library_path()); print(ladder.steps()[0])"
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc)
  message(FATAL_ERROR "import ladder from the installed package failed:\n${out}${err}")
endif()
string(STRIP "${out}" out)
string(REPLACE "\n" ";" lines "${out}")
list(GET lines 0 init)
list(GET lines 1 lib)
list(GET lines 2 first)
if(NOT init STREQUAL "${WORK}/site/ladder/__init__.py" OR NOT lib STREQUAL "${WORK}/site/ladder/libladder.so"
   OR NOT first STREQUAL "h01")
  message(FATAL_ERROR "the installed package did not load its own library:\n${out}")
endif()
message(STATUS "python component: ${lib} loads (first step ${first})")
