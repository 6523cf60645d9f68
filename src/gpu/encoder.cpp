#include "gpu/encoder.h"

namespace wgx::gpu {

Encoder::Encoder(Device& device) : device_(device) {
    device_.check();
    encoder_ = CommandEncoder::adopt(wgpuDeviceCreateCommandEncoder(device_.handle(), nullptr));
}

Encoder::~Encoder() { end_pass(); }

void Encoder::dispatch(WGPUComputePipeline pipeline, WGPUBindGroup group, uint32_t x, uint32_t y,
                       uint32_t z) {
    if (!pass_) {
        pass_ = ComputePass::adopt(wgpuCommandEncoderBeginComputePass(encoder_.get(), nullptr));
    }
    wgpuComputePassEncoderSetPipeline(pass_.get(), pipeline);
    wgpuComputePassEncoderSetBindGroup(pass_.get(), 0, group, 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass_.get(), x, y, z);
}

void Encoder::copy(WGPUBuffer src, uint64_t src_offset, WGPUBuffer dst, uint64_t dst_offset,
                   uint64_t size) {
    end_pass();
    wgpuCommandEncoderCopyBufferToBuffer(encoder_.get(), src, src_offset, dst, dst_offset, size);
}

void Encoder::end_pass() {
    if (pass_) {
        wgpuComputePassEncoderEnd(pass_.get());
        pass_ = ComputePass();
    }
}

uint64_t Encoder::submit() {
    end_pass();
    CommandBuffer commands = CommandBuffer::adopt(wgpuCommandEncoderFinish(encoder_.get(), nullptr));
    return device_.submit(commands.get());
}

}  // namespace wgx::gpu
