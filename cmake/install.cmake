# Installation and the CMake package: after `cmake --install`, find_package(ladder) gives ladder::ladder.
include(CMakePackageConfigHelpers)
set(LADDER_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ladder)

# The installed library keeps the run path to the CUDA runtime it was linked against.
set_target_properties(ladder PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
# ladder.hpp needs C++17 (string_view); inside this project the flags already say C++20.
target_compile_features(ladder INTERFACE $<INSTALL_INTERFACE:cxx_std_17>)

install(TARGETS ladder EXPORT ladderTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/ladder DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")
install(EXPORT ladderTargets NAMESPACE ladder:: DESTINATION ${LADDER_INSTALL_CMAKEDIR})

configure_package_config_file(cmake/ladderConfig.cmake.in ${PROJECT_BINARY_DIR}/ladderConfig.cmake
                              INSTALL_DESTINATION ${LADDER_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ladderConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ladderConfig.cmake ${PROJECT_BINARY_DIR}/ladderConfigVersion.cmake
        DESTINATION ${LADDER_INSTALL_CMAKEDIR})

if(TARGET ladder_cli)
  set_target_properties(ladder_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}"
                                              INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS ladder_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
