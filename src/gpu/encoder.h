// Turns a list of dispatches and copies into one command buffer: consecutive dispatches share a
// compute pass (WebGPU orders storage writes between dispatches of a pass); copies sit between
// passes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gpu/device.h"

namespace wgx::gpu {

class Encoder {
  public:
    // A timed encoder brackets every dispatch with GPU timestamps: inside the shared compute
    // pass where the device allows it, else by giving each dispatch a pass of its own (then the
    // times include each pass's own overhead). Read them with dispatch_times_ns() after submit().
    enum class Timing { off, per_dispatch };

    explicit Encoder(Device& device, Timing timing = Timing::off);
    ~Encoder();
    Encoder(const Encoder&) = delete;
    Encoder& operator=(const Encoder&) = delete;

    void dispatch(WGPUComputePipeline pipeline, WGPUBindGroup group, uint32_t x, uint32_t y,
                  uint32_t z);
    void copy(WGPUBuffer src, uint64_t src_offset, WGPUBuffer dst, uint64_t dst_offset,
              uint64_t size);
    // Ends the open pass, finishes and submits; returns the submission index.
    uint64_t submit();
    // Ends the open pass and finishes, without submitting: the command buffer can be submitted
    // later, once (untimed encoders only).
    CommandBuffer finish();

    // Timed encoders: whether the timestamps sat inside shared passes (else one pass each).
    bool timed_inside_passes() const;
    // Timed encoders, after submit(): GPU nanoseconds of each dispatch, in dispatch order.
    // Blocks until the submission is done.
    std::vector<double> dispatch_times_ns();

  private:
    struct Timer;
    void end_pass();

    Device& device_;
    CommandEncoder encoder_;
    ComputePass pass_;
    std::unique_ptr<Timer> timer_;
};

}  // namespace wgx::gpu
