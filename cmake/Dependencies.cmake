# Third-party dependencies, all through find_package and imported targets.
find_package(Eigen3 3.3 REQUIRED NO_MODULE)

if(PERFMODEL_PORTABLE)
  set(Boost_USE_STATIC_LIBS ON)
endif()
find_package(Boost 1.71 REQUIRED COMPONENTS program_options)

find_package(yaml-cpp REQUIRED)
# yaml-cpp < 0.8 exports `yaml-cpp`, 0.8 exports `yaml-cpp::yaml-cpp`; give both one name.
if(NOT TARGET perfmodel_yaml)
  add_library(perfmodel_yaml INTERFACE)
  if(PERFMODEL_PORTABLE)
    find_library(PERFMODEL_YAML_STATIC NAMES libyaml-cpp.a REQUIRED)
    get_target_property(_yaml_inc yaml-cpp INTERFACE_INCLUDE_DIRECTORIES)
    target_include_directories(perfmodel_yaml SYSTEM INTERFACE ${_yaml_inc})
    target_link_libraries(perfmodel_yaml INTERFACE ${PERFMODEL_YAML_STATIC})
  elseif(TARGET yaml-cpp::yaml-cpp)
    target_link_libraries(perfmodel_yaml INTERFACE yaml-cpp::yaml-cpp)
  else()
    target_link_libraries(perfmodel_yaml INTERFACE yaml-cpp)
  endif()
endif()

# nlohmann/json (header-only) writes the CLI's JSON. Debian/Ubuntu: nlohmann-json3-dev
# (scripts/install-deps.sh). The portable build finds it here like any other build: headers only,
# nothing of it travels with the binary.
find_package(nlohmann_json 3.2 QUIET CONFIG)
if(NOT TARGET nlohmann_json::nlohmann_json)
  find_path(PERFMODEL_NLOHMANN_INCLUDE_DIR nlohmann/json.hpp)
  if(NOT PERFMODEL_NLOHMANN_INCLUDE_DIR)
    message(FATAL_ERROR "perfmodel: nlohmann/json not found (the JSON output needs it). Install it with "
                        "scripts/install-deps.sh (Debian/Ubuntu package nlohmann-json3-dev), or pass "
                        "-Dnlohmann_json_DIR=<dir with nlohmann_jsonConfig.cmake> or "
                        "-DPERFMODEL_NLOHMANN_INCLUDE_DIR=<dir that holds nlohmann/json.hpp>.")
  endif()
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  target_include_directories(nlohmann_json::nlohmann_json SYSTEM INTERFACE ${PERFMODEL_NLOHMANN_INCLUDE_DIR})
endif()

find_program(PERFMODEL_GNUPLOT gnuplot)
if(NOT PERFMODEL_GNUPLOT)
  message(STATUS "perfmodel: gnuplot not found; `perfmodel plot` will write data and scripts but cannot render them")
endif()
