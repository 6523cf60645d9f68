# The installable engine and its CMake package.
#
#   libwgx.so.<major>  wgx::wgx         the engine as a shared library (SOVERSION = major version)
#   libwgx.a           wgx::wgx_static  the same engine as one self-contained static archive
#
# Both are made of the objects the in-tree libraries (wgx, wgx_gpu, wgx_graph, wgx_base) already
# compiled, so packaging compiles nothing twice; the tests and the tool keep linking the in-tree
# static `wgx`. `cmake --install` lays out include/wgx (with the generated version.h), both
# libraries, the `wgx` tool, the WebGPU implementation's shared library beside them (found through
# $ORIGIN-relative RPATHs, no LD_LIBRARY_PATH needed) and lib/cmake/wgx for find_package(wgx).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(WGX_PACKAGE_OBJECTS
    $<TARGET_OBJECTS:wgx> $<TARGET_OBJECTS:wgx_gpu> $<TARGET_OBJECTS:wgx_graph>
    $<TARGET_OBJECTS:wgx_base>)
# Consumers see only include/wgx: no private header, fmt, nlohmann-json or webgpu.h is needed to
# compile against the public headers.
set(WGX_PUBLIC_INCLUDES
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

add_library(wgx_shared SHARED ${WGX_PACKAGE_OBJECTS})
add_dependencies(wgx_shared wgx wgx_gpu wgx_graph wgx_base)
set_target_properties(wgx_shared PROPERTIES
    OUTPUT_NAME wgx
    EXPORT_NAME wgx
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}
    LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/lib"
    # The WebGPU implementation is installed in the same directory.
    INSTALL_RPATH "$ORIGIN"
    LINK_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/wgx.map")
# Exports only the wgx namespace (and the typeinfo consumers need to catch wgx::Error): the
# template instantiations of fmt and the standard library stay inside.
target_link_options(wgx_shared PRIVATE "-Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/wgx.map")
if(NOT WGX_SANITIZE AND NOT WGX_FUZZ)
    # Every symbol resolved at link time (the sanitizer runtimes live in the executable instead).
    target_link_options(wgx_shared PRIVATE "-Wl,--no-undefined")
endif()
target_link_libraries(wgx_shared PRIVATE fmt::fmt wgx::webgpu)
target_include_directories(wgx_shared INTERFACE ${WGX_PUBLIC_INCLUDES})
target_compile_features(wgx_shared INTERFACE cxx_std_20)

add_library(wgx_static STATIC ${WGX_PACKAGE_OBJECTS})
add_dependencies(wgx_static wgx wgx_gpu wgx_graph wgx_base)
set_target_properties(wgx_static PROPERTIES
    OUTPUT_NAME wgx
    EXPORT_NAME wgx_static
    ARCHIVE_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/lib")
target_link_libraries(wgx_static PRIVATE fmt::fmt wgx::webgpu)
target_include_directories(wgx_static INTERFACE ${WGX_PUBLIC_INCLUDES})
target_compile_features(wgx_static INTERFACE cxx_std_20)

# --- install ---------------------------------------------------------------------------------
install(TARGETS wgx_shared wgx_static EXPORT wgxTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/wgx" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h")
install(FILES "${PROJECT_BINARY_DIR}/include/wgx/version.h"
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/wgx)

# The WebGPU implementation the engine was built against, and its headers for callers that use
# Context::wrap() / native_device() with their own WebGPU code.
install(FILES "${WGX_WEBGPU_LIBRARY}" DESTINATION ${CMAKE_INSTALL_LIBDIR})
file(GLOB WGX_WEBGPU_HEADERS "${WGX_WEBGPU_INCLUDE}/webgpu/*.h")
install(FILES ${WGX_WEBGPU_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/webgpu)
get_filename_component(WGX_WEBGPU_LIBRARY_NAME "${WGX_WEBGPU_LIBRARY}" NAME)

# The licence and the notices of what ships beside the engine (wgpu-native's terms ask for them).
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/THIRD_PARTY_NOTICES.md"
    DESTINATION ${CMAKE_INSTALL_DOCDIR})

if(TARGET wgx_cli)
    file(RELATIVE_PATH WGX_BIN_TO_LIB "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}"
         "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}")
    set_target_properties(wgx_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${WGX_BIN_TO_LIB}")
    install(TARGETS wgx_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# While the major version is 0, a minor release may change the API: the package accepts only the
# minor version it was asked for (find_package(wgx 0.1) refuses 0.2).
set(WGX_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/wgx)
install(EXPORT wgxTargets NAMESPACE wgx:: DESTINATION ${WGX_CMAKE_DIR} FILE wgxTargets.cmake)
configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/wgxConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/wgxConfig.cmake"
    INSTALL_DESTINATION ${WGX_CMAKE_DIR}
    PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/wgxConfigVersion.cmake"
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/wgxConfig.cmake" "${PROJECT_BINARY_DIR}/wgxConfigVersion.cmake"
    DESTINATION ${WGX_CMAKE_DIR})
