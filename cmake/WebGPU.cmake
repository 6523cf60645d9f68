# Finds the WebGPU implementation and defines the imported target wgx::webgpu.
# Default: wgpu-native unpacked by scripts/fetch-wgpu-native.sh into third_party/wgpu-native.
# -DWGX_WEBGPU_DIR=<prefix> points at another install: a wgpu-native build (include/webgpu/
# webgpu.h + wgpu.h, lib/libwgpu_native.so) or Dawn (include/webgpu/webgpu.h,
# lib/libwebgpu_dawn.so; set -DWGX_WEBGPU_FLAVOR=dawn).
set(WGX_WEBGPU_DIR "${PROJECT_SOURCE_DIR}/third_party/wgpu-native" CACHE PATH
    "Prefix of the WebGPU implementation (include/webgpu/webgpu.h and lib/)")
set(WGX_WEBGPU_FLAVOR "wgpu-native" CACHE STRING "wgpu-native or dawn")
set_property(CACHE WGX_WEBGPU_FLAVOR PROPERTY STRINGS wgpu-native dawn)

if(WGX_WEBGPU_FLAVOR STREQUAL "dawn")
    set(_wgx_lib_names webgpu_dawn)
else()
    set(_wgx_lib_names wgpu_native)
endif()
find_path(WGX_WEBGPU_INCLUDE webgpu/webgpu.h PATHS "${WGX_WEBGPU_DIR}/include" NO_DEFAULT_PATH)
find_library(WGX_WEBGPU_LIBRARY NAMES ${_wgx_lib_names} PATHS "${WGX_WEBGPU_DIR}/lib"
             NO_DEFAULT_PATH)
if(NOT WGX_WEBGPU_INCLUDE OR NOT WGX_WEBGPU_LIBRARY)
    message(FATAL_ERROR "WebGPU (${WGX_WEBGPU_FLAVOR}) not found under ${WGX_WEBGPU_DIR}. "
        "Run scripts/install-deps.sh (or scripts/fetch-wgpu-native.sh), or set WGX_WEBGPU_DIR.")
endif()
add_library(wgx::webgpu SHARED IMPORTED GLOBAL)
set_target_properties(wgx::webgpu PROPERTIES
    IMPORTED_LOCATION "${WGX_WEBGPU_LIBRARY}"
    IMPORTED_NO_SONAME TRUE
    INTERFACE_INCLUDE_DIRECTORIES "${WGX_WEBGPU_INCLUDE}")
if(WGX_WEBGPU_FLAVOR STREQUAL "dawn")
    set(WGX_WGPU_NATIVE 0)
else()
    set(WGX_WGPU_NATIVE 1)
endif()
message(STATUS "WebGPU: ${WGX_WEBGPU_FLAVOR} at ${WGX_WEBGPU_LIBRARY}")
