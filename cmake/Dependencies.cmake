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

find_program(PERFMODEL_GNUPLOT gnuplot)
if(NOT PERFMODEL_GNUPLOT)
  message(STATUS "perfmodel: gnuplot not found; `perfmodel plot` will write data and scripts but cannot render them")
endif()
