# External dependencies. OTF2 is required (the trace part reads and writes it); MPI and Clang
# are optional so that analysts can build the analysis core without either (ARCHITECTURE §2).

find_path(OTF2_INCLUDE_DIR otf2/otf2.h)
find_library(OTF2_LIBRARY otf2)
if(NOT OTF2_INCLUDE_DIR OR NOT OTF2_LIBRARY)
  message(FATAL_ERROR "OTF2 not found: install it with `apt-get install -y libotf2-trace-dev` "
                      "(or run `make deps`)")
endif()
add_library(OTF2::otf2 UNKNOWN IMPORTED)
set_target_properties(OTF2::otf2 PROPERTIES IMPORTED_LOCATION "${OTF2_LIBRARY}"
                                            INTERFACE_INCLUDE_DIRECTORIES "${OTF2_INCLUDE_DIR}")

# JSON for the machine description (and other versioned files); header-only.
find_package(nlohmann_json 3.9 QUIET)
if(NOT nlohmann_json_FOUND)
  message(FATAL_ERROR "nlohmann-json not found: `apt-get install -y nlohmann-json3-dev` "
                      "(or run `make deps`)")
endif()

set(PARJAVA_HAVE_MPI OFF)
if(NOT PARJAVA_WITH_MPI STREQUAL "OFF")
  find_package(MPI COMPONENTS C CXX)
  if(MPI_FOUND)
    set(PARJAVA_HAVE_MPI ON)
  elseif(PARJAVA_WITH_MPI STREQUAL "ON")
    message(FATAL_ERROR "MPI not found: `apt-get install -y libopenmpi-dev openmpi-bin`")
  endif()
endif()

set(PARJAVA_HAVE_CLANG OFF)
if(NOT PARJAVA_WITH_CLANG STREQUAL "OFF")
  find_package(Clang CONFIG HINTS /usr/lib/llvm-16/lib/cmake/clang QUIET)
  if(Clang_FOUND)
    set(PARJAVA_HAVE_CLANG ON)
  elseif(PARJAVA_WITH_CLANG STREQUAL "ON")
    message(FATAL_ERROR "Clang 16 not found: `apt-get install -y libclang-cpp16-dev llvm-16-dev`")
  endif()
endif()

if(PARJAVA_BUILD_PYTHON)
  find_package(Python 3.9 COMPONENTS Interpreter Development.Module REQUIRED)
  if(NOT pybind11_DIR)
    execute_process(COMMAND "${Python_EXECUTABLE}" -m pybind11 --cmakedir
                    OUTPUT_VARIABLE pybind11_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
  endif()
  find_package(pybind11 CONFIG REQUIRED)
endif()

message(STATUS "parjava: MPI tools ${PARJAVA_HAVE_MPI}, Clang frontend ${PARJAVA_HAVE_CLANG}")
