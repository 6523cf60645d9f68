// The one place that includes the WebGPU C headers. Code outside src/gpu never includes them.
#pragma once

#include <webgpu/webgpu.h>
#if WGX_WGPU_NATIVE
#include <webgpu/wgpu.h>
#endif

#include <string>
#include <string_view>

namespace wgx::gpu {

inline WGPUStringView to_wgpu(std::string_view s) { return WGPUStringView{s.data(), s.size()}; }

inline std::string from_wgpu(WGPUStringView s) {
    if (s.data == nullptr) return {};
    if (s.length == WGPU_STRLEN) return std::string(s.data);
    return std::string(s.data, s.length);
}

}  // namespace wgx::gpu
