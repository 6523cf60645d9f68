// The WebGPU device: adapter choice, limits and features, buffers, pipelines, bind groups,
// command encoding, submission and blocking waits. All webgpu.h calls of the engine live in
// src/gpu; the layers above use only the types declared here, and this header includes no
// WebGPU header (gpu/types.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/handle.h"
#include "wgx/device.h"

namespace wgx::gpu {

enum class BufferUsage {
    storage,        // shader storage, copy source and destination
    uniform,        // uniform, copy destination
    readback,       // map for reading, copy destination
    query_resolve,  // resolved timestamp queries, copy source
};

struct OverrideConstant {
    std::string name;
    double value = 0;
};

// One bind group entry: a range of a buffer at a binding index.
struct BufferBinding {
    uint32_t binding = 0;
    WGPUBuffer buffer = nullptr;
    uint64_t offset = 0;
    uint64_t size = 0;
};

class Device : public std::enable_shared_from_this<Device> {
  public:
    static std::shared_ptr<Device> create(const DeviceOptions& options);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    const DeviceInfo& info() const { return info_; }
    WGPUDevice handle() const { return device_.get(); }
    WGPUQueue queue() const { return queue_.get(); }

    Buffer create_buffer(uint64_t size, BufferUsage usage, std::string_view label);
    // Facts about a buffer made elsewhere (for wrapping a caller's buffer).
    struct BufferFacts {
        uint64_t size = 0;
        bool storage = false, copy_src = false, copy_dst = false;
    };
    static BufferFacts facts(WGPUBuffer buffer);
    // A new reference to a buffer the caller keeps owning too.
    static Buffer retain(WGPUBuffer buffer);
    // Frees the buffer's memory now (handles to it stay valid but unusable).
    static void destroy_buffer(WGPUBuffer buffer);

    // Queues a write; `size` must be a multiple of 4 (callers pad). The implementation stages
    // each write until the next submit: past kMaxUnsubmittedWriteBytes of them, write_buffer
    // submits and waits (and writes larger ones in pieces of that size), so that a model's
    // constants, written one after another at load, do not hold a staged copy of them all at
    // once (the memory a load takes would double).
    static constexpr uint64_t kMaxUnsubmittedWriteBytes = uint64_t(64) << 20;
    void write_buffer(WGPUBuffer buffer, uint64_t offset, const void* data, uint64_t size);
    // Copies a range of a storage buffer to the host: one staging buffer, one submit, one map.
    std::vector<uint8_t> read_buffer(WGPUBuffer buffer, uint64_t offset, uint64_t size);
    // The same into `dst` (dst.size() bytes from `offset`), so callers that keep a host buffer
    // allocate nothing: on a multi-megabyte output, fresh pages cost as much as the copy.
    void read_buffer(WGPUBuffer buffer, uint64_t offset, std::span<uint8_t> dst);
    // Encodes and submits one buffer-to-buffer copy now.
    void copy_buffer_now(WGPUBuffer src, uint64_t src_offset, WGPUBuffer dst, uint64_t dst_offset,
                         uint64_t size);

    // Compiles WGSL into a compute pipeline (entry point "main", automatic layout), with the
    // runtime checks DeviceInfo asks for the engine's own kernels (`builtin`) or for others.
    // Shader and pipeline errors are caught with an error scope and thrown as GpuError naming
    // `label` and quoting the compiler's message.
    ComputePipeline create_compute_pipeline(std::string_view label, std::string_view wgsl,
                                            bool builtin,
                                            std::span<const OverrideConstant> overrides);
    BindGroup create_bind_group(std::string_view label, WGPUComputePipeline pipeline,
                                std::span<const BufferBinding> entries);
    // A set of `count` timestamp queries (needs the timestamp-query feature).
    QuerySet create_timestamp_queries(uint32_t count, std::string_view label);
    // Nanoseconds per resolved timestamp tick.
    double timestamp_period_ns() const;

    // Blocks until all work submitted so far has completed (no busy spinning).
    void wait_idle();
    // Blocks until the given submission has completed.
    void wait_for(uint64_t submission);
    uint64_t submit(WGPUCommandBuffer commands);

    // Throws DeviceLost after a device loss, or GpuError for errors no scope caught.
    void check() const;
    bool lost() const;
    // Destroys the device (tests of the device-lost path use it). Later calls throw DeviceLost.
    void destroy();

    // Used by the callbacks (internal).
    void on_device_lost(std::string message);
    void on_uncaptured_error(std::string message);

  private:
    Device() = default;
    // Runs the implementation's event processing until `done` is set (blocking waits only).
    void wait_until(const bool& done, std::string_view what);

    Instance instance_;
    Adapter adapter_;
    DeviceHandle device_;
    Queue queue_;
    DeviceInfo info_;

    // Readback staging buffers kept for reuse, by size: reading a program's outputs after every
    // run would otherwise create (and zero) a new buffer each time. At most kStagingCacheBytes.
    static constexpr uint64_t kStagingCacheBytes = uint64_t(256) << 20;
    Buffer take_staging(uint64_t bytes);
    void keep_staging(uint64_t bytes, Buffer buffer);
    std::mutex staging_mutex_;
    std::multimap<uint64_t, Buffer> staging_;
    uint64_t staging_bytes_ = 0;

    mutable std::mutex errors_mutex_;
    std::vector<std::string> uncaptured_errors_;
    bool lost_ = false;
    std::string lost_message_;
    uint64_t last_submission_ = 0;
    uint64_t unsubmitted_write_bytes_ = 0;  // written since the last submit (write_buffer)
};

}  // namespace wgx::gpu
