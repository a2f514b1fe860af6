# `cmake --install build --prefix P` installs the library layers, their public headers, the CLI and an
# exported package: a project with P on CMAKE_PREFIX_PATH writes find_package(netdp) and links netdp::netdp
# (every layer) or one layer (netdp::core, netdp::dp, netdp::accounting, ...). tests/install checks this.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(netdp_libraries GLOBAL PROPERTY NETDP_LIBRARIES)
install(TARGETS ${netdp_libraries} netdp EXPORT netdpTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS netdp_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/netdp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# Single-source maths the public headers build on (netdp/core/philox.hpp includes "common/philox.hpp",
# loss_statistics.hpp "common/compensated_sum.hpp", the simulations their Philox layouts): header-only.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/common DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/netdp/kernels
        FILES_MATCHING PATTERN "*.hpp")

set(netdp_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/netdp)
install(EXPORT netdpTargets NAMESPACE netdp:: DESTINATION ${netdp_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/netdpConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/netdpConfig.cmake INSTALL_DESTINATION ${netdp_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/netdpConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/netdpConfig.cmake ${CMAKE_BINARY_DIR}/netdpConfigVersion.cmake
        DESTINATION ${netdp_cmake_dir})
