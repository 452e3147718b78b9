# The Python package: python/ladder with libladder.so inside it, as the `python` install component.
#
#   pip install .                                  (pyproject.toml: scikit-build-core installs this component
#                                                   into site-packages, with LADDER_PYTHON_PACKAGE=ON)
#   cmake --install build/release --component python --prefix DIR     (DIR/ladder/, from any build)
#
# The component is never part of a plain `cmake --install`, whose layout (lib/, include/, lib/cmake/) is
# unchanged. ladder/_library.py looks for libladder.so in its own folder (after $LADDER_LIBRARY).
install(DIRECTORY python/ladder/ DESTINATION ladder COMPONENT python EXCLUDE_FROM_ALL
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
install(TARGETS ladder LIBRARY DESTINATION ladder COMPONENT python EXCLUDE_FROM_ALL)

# The library keeps the run path to the CUDA libraries it was linked against (cudart, cuBLAS, from the CUDA
# toolkit) and, for the wheel, also its own folder.
set_target_properties(ladder PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
if(LADDER_PYTHON_PACKAGE)
  set_target_properties(ladder PROPERTIES INSTALL_RPATH "$ORIGIN")
endif()
