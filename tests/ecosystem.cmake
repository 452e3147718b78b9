# The users' side (issue #7): the Python package and scripts, the installed CMake package, ladder as a
# subproject. Included from tests/CMakeLists.txt. None of these needs a GPU.

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # pytest over python/tests (exit 77 = skipped when pytest is missing; .ci/run installs it).
  add_test(NAME python COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/python/run_tests.py
                               ${PROJECT_SOURCE_DIR}/python/tests)
  set_tests_properties(python PROPERTIES SKIP_RETURN_CODE 77
                       ENVIRONMENT "LADDER_LIBRARY=$<TARGET_FILE:ladder>;LADDER_DESC_LAYOUT=$<TARGET_FILE:ladder_desc_layout>;PYTHONDONTWRITEBYTECODE=1")
  # The package as `pip install .` installs it (the `python` install component), imported from outside.
  add_test(NAME python_package_layout
           COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/python_package
                   -DPYTHON=${Python3_EXECUTABLE} -P ${CMAKE_CURRENT_SOURCE_DIR}/python_package.cmake)
else()
  message(STATUS "no python3: the Python tests are not registered")
endif()

if(LADDER_INSTALL)
  add_test(NAME install_consumer
           COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${PROJECT_BINARY_DIR} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/install_consumer -DCUDA_ROOT=${CUDAToolkit_LIBRARY_ROOT}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/install_consumer.cmake)
endif()

add_test(NAME subproject_library_only
         COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_SOURCE_DIR}/subproject -B ${CMAKE_CURRENT_BINARY_DIR}/subproject
                 -G Ninja -DLADDER_SOURCE_DIR=${PROJECT_SOURCE_DIR} -DCMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER})
set_tests_properties(subproject_library_only PROPERTIES PASS_REGULAR_EXPRESSION "ladder as a subproject: library only")
