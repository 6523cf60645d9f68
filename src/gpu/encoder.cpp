#include "gpu/encoder.h"

#include <cstring>

#include "gpu/native.h"
#include "wgx/error.h"

namespace wgx::gpu {

// Query sets hold at most 4096 queries (WebGPU's limit); each dispatch uses two.
namespace {
constexpr uint32_t kQueriesPerSet = 4096;
constexpr uint32_t kDispatchesPerSet = kQueriesPerSet / 2;
}  // namespace

struct Encoder::Timer {
    bool inside_passes = false;
    uint32_t dispatches = 0;
    std::vector<QuerySet> sets;
    Buffer resolved;
    uint64_t submission = 0;
    bool submitted = false;

    // The query set and first query index of the next dispatch.
    std::pair<WGPUQuerySet, uint32_t> next(Device& device) {
        uint32_t set = dispatches / kDispatchesPerSet;
        if (set == sets.size()) {
            sets.push_back(device.create_timestamp_queries(kQueriesPerSet, "wgx dispatch timing"));
        }
        uint32_t index = 2 * (dispatches % kDispatchesPerSet);
        ++dispatches;
        return {sets[set].get(), index};
    }
};

Encoder::Encoder(Device& device, Timing timing) : device_(device) {
    device_.check();
    encoder_ = CommandEncoder::adopt(wgpuDeviceCreateCommandEncoder(device_.handle(), nullptr));
    if (timing == Timing::per_dispatch) {
        timer_ = std::make_unique<Timer>();
        timer_->inside_passes = device_.info().features.timestamp_inside_passes;
    }
}

Encoder::~Encoder() { end_pass(); }

void Encoder::dispatch(WGPUComputePipeline pipeline, WGPUBindGroup group, uint32_t x, uint32_t y,
                       uint32_t z) {
    WGPUQuerySet set = nullptr;
    uint32_t index = 0;
    if (timer_) std::tie(set, index) = timer_->next(device_);
    bool own_pass = timer_ && !timer_->inside_passes;
    if (own_pass) end_pass();
    if (!pass_) {
        WGPUComputePassDescriptor desc = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
        WGPUPassTimestampWrites writes = WGPU_PASS_TIMESTAMP_WRITES_INIT;
        if (own_pass) {
            writes.querySet = set;
            writes.beginningOfPassWriteIndex = index;
            writes.endOfPassWriteIndex = index + 1;
            desc.timestampWrites = &writes;
        }
        pass_ = ComputePass::adopt(wgpuCommandEncoderBeginComputePass(encoder_.get(), &desc));
    }
    if (timer_ && !own_pass) native::write_timestamp_in_pass(pass_.get(), set, index);
    wgpuComputePassEncoderSetPipeline(pass_.get(), pipeline);
    wgpuComputePassEncoderSetBindGroup(pass_.get(), 0, group, 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass_.get(), x, y, z);
    if (timer_ && !own_pass) native::write_timestamp_in_pass(pass_.get(), set, index + 1);
    if (own_pass) end_pass();
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

CommandBuffer Encoder::finish() {
    if (timer_) throw InvalidArgument("finish: a timed encoder submits its own timestamps.");
    end_pass();
    return CommandBuffer::adopt(wgpuCommandEncoderFinish(encoder_.get(), nullptr));
}

uint64_t Encoder::submit() {
    end_pass();
    if (timer_ && timer_->dispatches > 0) {
        uint64_t bytes = uint64_t(timer_->sets.size()) * kQueriesPerSet * sizeof(uint64_t);
        timer_->resolved =
            device_.create_buffer(bytes, BufferUsage::query_resolve, "wgx timestamps");
        for (size_t s = 0; s < timer_->sets.size(); ++s) {
            uint32_t used =
                std::min(kDispatchesPerSet, timer_->dispatches - uint32_t(s) * kDispatchesPerSet);
            wgpuCommandEncoderResolveQuerySet(encoder_.get(), timer_->sets[s].get(), 0, 2 * used,
                                              timer_->resolved.get(),
                                              s * kQueriesPerSet * sizeof(uint64_t));
        }
    }
    CommandBuffer commands =
        CommandBuffer::adopt(wgpuCommandEncoderFinish(encoder_.get(), nullptr));
    uint64_t submission = device_.submit(commands.get());
    if (timer_) {
        timer_->submission = submission;
        timer_->submitted = true;
    }
    return submission;
}

bool Encoder::timed_inside_passes() const { return timer_ && timer_->inside_passes; }

std::vector<double> Encoder::dispatch_times_ns() {
    if (!timer_ || !timer_->submitted) {
        throw InvalidArgument("dispatch_times_ns: the encoder is not timed or not yet submitted.");
    }
    std::vector<double> times;
    if (timer_->dispatches == 0) return times;
    device_.wait_for(timer_->submission);
    uint64_t bytes = uint64_t(timer_->sets.size()) * kQueriesPerSet * sizeof(uint64_t);
    std::vector<uint8_t> raw = device_.read_buffer(timer_->resolved.get(), 0, bytes);
    const double period = device_.timestamp_period_ns();
    times.reserve(timer_->dispatches);
    for (uint32_t d = 0; d < timer_->dispatches; ++d) {
        size_t at = (size_t(d / kDispatchesPerSet) * kQueriesPerSet + 2 * (d % kDispatchesPerSet)) *
                    sizeof(uint64_t);
        uint64_t begin = 0, end = 0;
        std::memcpy(&begin, raw.data() + at, sizeof begin);
        std::memcpy(&end, raw.data() + at + sizeof begin, sizeof end);
        // Timestamps may come out of order on some drivers; a negative span counts as zero.
        times.push_back(end > begin ? double(end - begin) * period : 0.0);
    }
    return times;
}

}  // namespace wgx::gpu
