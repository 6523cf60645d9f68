// Turns a list of dispatches and copies into one command buffer: consecutive dispatches share a
// compute pass (WebGPU orders storage writes between dispatches of a pass); copies sit between
// passes.
#pragma once

#include <cstdint>

#include "gpu/device.h"

namespace wgx::gpu {

class Encoder {
  public:
    explicit Encoder(Device& device);
    ~Encoder();
    Encoder(const Encoder&) = delete;
    Encoder& operator=(const Encoder&) = delete;

    void dispatch(WGPUComputePipeline pipeline, WGPUBindGroup group, uint32_t x, uint32_t y,
                  uint32_t z);
    void copy(WGPUBuffer src, uint64_t src_offset, WGPUBuffer dst, uint64_t dst_offset,
              uint64_t size);
    // Ends the open pass, finishes and submits; returns the submission index.
    uint64_t submit();

  private:
    void end_pass();

    Device& device_;
    CommandEncoder encoder_;
    ComputePass pass_;
};

}  // namespace wgx::gpu
