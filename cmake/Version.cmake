# The toolkit's version lives in project(VERSION); the git commit is read at build time into
# a generated source, so provenance names the code that was built, not the code configured.
set(PERFMODEL_VERSION_CPP ${PROJECT_BINARY_DIR}/generated/version_info.cpp)
add_custom_target(perfmodel_version_info
  COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR} -DOUT=${PERFMODEL_VERSION_CPP}
          -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/WriteVersion.cmake
  BYPRODUCTS ${PERFMODEL_VERSION_CPP}
  COMMENT "Reading the toolkit's git commit")
