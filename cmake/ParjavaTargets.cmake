# Helpers shared by every part's CMakeLists.txt.

# Warnings every parjava target compiles with; PARJAVA_WERROR turns them into errors (CI).
function(parjava_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
                                           -Wnull-dereference -Wformat=2)
  if(PARJAVA_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# parjava_add_part(<part> SOURCES ... [DEPENDS ...] [PRIVATE_DEPENDS ...])
# Creates the static library parjava_<part> (position independent, so it can go into the
# Python extension), with cpp/include as its public include directory.
function(parjava_add_part part)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPENDS;PRIVATE_DEPENDS" ${ARGN})
  add_library(parjava_${part} STATIC ${ARG_SOURCES})
  add_library(parjava::${part} ALIAS parjava_${part})
  target_include_directories(parjava_${part} PUBLIC "${PROJECT_SOURCE_DIR}/cpp/include")
  target_link_libraries(parjava_${part} PUBLIC ${ARG_DEPENDS} PRIVATE ${ARG_PRIVATE_DEPENDS})
  parjava_warnings(parjava_${part})
endfunction()

# parjava_install_tool(<target> bin|lib): an executable or shared library the Python package
# launches (netbench, the tracer, parjava-model). It lands in parjava/bin or parjava/lib.
# Install rules hold in every build, not only under scikit-build-core: `cmake --install <build>
# --prefix P` gives P/parjava/ exactly as the wheel holds it, which is how the packaging test
# checks the wheel's layout without a pip build.
function(parjava_install_tool target kind)
  set_target_properties(${target} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY "${PARJAVA_PACKAGE_DIR}/${kind}"
    LIBRARY_OUTPUT_DIRECTORY "${PARJAVA_PACKAGE_DIR}/${kind}")
  install(TARGETS ${target} RUNTIME DESTINATION parjava/${kind} LIBRARY DESTINATION parjava/${kind})
endfunction()
