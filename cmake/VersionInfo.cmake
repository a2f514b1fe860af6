# Regenerates version_info.cpp at every build so that manifests carry the current git commit.
set(NETDP_VERSION_CPP ${CMAKE_BINARY_DIR}/generated/version_info.cpp)
add_custom_target(netdp_version_info
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${NETDP_VERSION_CPP}
          -DVERSION=${PROJECT_VERSION} -P ${CMAKE_SOURCE_DIR}/cmake/WriteVersionInfo.cmake
  BYPRODUCTS ${NETDP_VERSION_CPP}
  COMMENT "netdp version info")
