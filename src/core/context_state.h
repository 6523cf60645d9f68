// Internal state behind Context and Tensor handles.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "gpu/device.h"
#include "gpu/encoder.h"
#include "wgx/context.h"
#include "wgx/op.h"
#include "wgx/tensor.h"

namespace wgx {

// A GPU buffer made by a context (destroyed with it) or wrapped from the caller.
struct BufferRef {
    gpu::Buffer buffer;
    uint64_t size = 0;
    bool owned = true;
};

namespace detail {

struct TensorImpl {
    std::shared_ptr<ContextState> ctx;
    std::shared_ptr<BufferRef> buffer;
    uint64_t offset = 0;  // bytes into the buffer, a multiple of 4
    DType dtype = DType::f32;
    Shape shape;
    int64_t numel = 0;

    uint64_t device_bytes() const { return static_cast<uint64_t>(numel) * device_size(dtype); }
    // Bindings and copies cover whole 4-byte words; buffers are padded to allow it.
    uint64_t padded_bytes() const { return (device_bytes() + 3) / 4 * 4; }
    WGPUBuffer raw() const { return buffer->buffer.get(); }
};

}  // namespace detail

struct Kernel::Impl {
    gpu::ComputePipeline pipeline;
    std::string label;
};

// Uniform data of one recording, packed into shared buffers at aligned offsets and written
// once when recorded.
class UniformArena {
  public:
    struct Slice {
        WGPUBuffer buffer;
        uint64_t offset;
        uint64_t size;
    };
    Slice push(gpu::Device& device, std::span<const std::byte> bytes);
    void clear() { chunks_.clear(); }

  private:
    static constexpr uint64_t kChunkBytes = 64 * 1024;
    std::vector<gpu::Buffer> chunks_;
    uint64_t used_ = kChunkBytes;
};

struct DispatchCommand {
    std::shared_ptr<const Kernel::Impl> kernel;
    gpu::BindGroup group;
    Grid grid;
    std::string scope;  // what recorded it (for profiles)
    std::string label;  // the kernel's name for this use (for profiles)
};

struct CopyCommand {
    std::shared_ptr<BufferRef> src;
    uint64_t src_offset;
    std::shared_ptr<BufferRef> dst;
    uint64_t dst_offset;
    uint64_t size;
};

using Command = std::variant<DispatchCommand, CopyCommand>;

class RecordingState;

// A list of prepared GPU commands plus what they need alive (uniforms, scratch tensors).
class RecordingState {
  public:
    // The context outlives its recordings (it owns them, or a Program holds the context).
    explicit RecordingState(ContextState& ctx);

    ContextState& ctx() { return ctx_; }
    void add_dispatch(const Kernel& kernel, std::span<const Binding> bindings, Grid grid);
    void add_copy(const Tensor& src, const Tensor& dst);
    // A temporary tensor for the op being recorded: a new buffer, or one that an earlier op of
    // this recording used and finished with (end_op), large enough.
    Tensor add_scratch(DType dtype, const Shape& shape);
    // The op being recorded is done: its scratch buffers may serve the ops recorded after it.
    // Sound because the commands run in order and no op reads a scratch of another.
    void end_op();
    bool empty() const { return commands_.empty(); }
    size_t size() const { return commands_.size(); }
    // Submits the commands: the command buffer encoded ahead when there is one for exactly
    // these commands, else encoded now in growing chunks. A submit that repeats the previous
    // one's commands then encodes the next run ahead, while the GPU works (see submit()).
    uint64_t submit();
    // The last submit()'s host time: submitting (with the encoding, when nothing was encoded
    // ahead) and encoding the next run ahead after it, in milliseconds.
    double last_submit_ms() const { return last_submit_ms_; }
    double last_encode_ahead_ms() const { return last_encode_ahead_ms_; }
    // Whether the next submit() has its command buffer encoded already (tests).
    bool encoded_ahead() const { return ahead_ && ahead_version_ == version_; }
    // Runs the commands once with every dispatch timed; waits for the result.
    std::vector<DispatchTime> profile(bool& inside_passes);
    // Names what records the next dispatches (a program's op), for profiles; "" clears it.
    void set_scope(std::string scope) { scope_ = std::move(scope); }
    // Whether the op recording now is a built-in one (its kernels take the built-in checks
    // setting); set around each Op::record.
    void set_builtin_op(bool builtin) { builtin_op_ = builtin; }
    bool builtin_op() const { return builtin_op_; }
    // The buffer of live integers (LiveInt) that this recording's dispatches read: `count`
    // int32 values, written by its owner before each submit. Without one, live_ints() makes a
    // small buffer of zeros.
    void set_live_ints(std::shared_ptr<BufferRef> buffer, int64_t count);
    Tensor live_ints();
    void clear();
    // Drops commands recorded after the first `count` (undoes a failed recording).
    void truncate(size_t count);

  private:
    void encode(gpu::Encoder& encoder) const;
    uint64_t submit_in_chunks();
    // Every change of the commands gets a new version; a command buffer encoded ahead is
    // valid only for the version it was encoded from.
    void changed();

    ContextState& ctx_;
    std::vector<Command> commands_;
    uint64_t version_ = 1;
    uint64_t last_submitted_version_ = 0;
    gpu::CommandBuffer ahead_;  // the next run, encoded ahead (version ahead_version_)
    uint64_t ahead_version_ = 0;
    bool encode_ahead_;
    double last_submit_ms_ = 0, last_encode_ahead_ms_ = 0;
    bool builtin_op_ = false;
    // Scratch buffers are held as buffers, not Tensors: a Tensor holds its context, and the
    // context holds this recording.
    std::vector<std::shared_ptr<BufferRef>> scratch_;
    size_t scratch_free_ = 0;  // scratch_[.. scratch_free_) belong to finished ops
    UniformArena uniforms_;
    std::string scope_;
    std::shared_ptr<BufferRef> live_ints_;
    int64_t live_count_ = 0;
};

// Marks the op recorded while it lives as built-in or not (RecordingState::set_builtin_op).
class BuiltinOpScope {
  public:
    BuiltinOpScope(RecordingState& recording, bool builtin) : recording_(recording) {
        recording_.set_builtin_op(builtin);
    }
    ~BuiltinOpScope() { recording_.set_builtin_op(false); }
    BuiltinOpScope(const BuiltinOpScope&) = delete;
    BuiltinOpScope& operator=(const BuiltinOpScope&) = delete;

  private:
    RecordingState& recording_;
};

class ContextState : public std::enable_shared_from_this<ContextState> {
  public:
    explicit ContextState(std::shared_ptr<gpu::Device> device);

    gpu::Device& device() { return *device_; }
    const std::shared_ptr<gpu::Device>& device_ptr() const { return device_; }
    // Throws when the context was destroyed or its device is lost.
    void ensure_usable() const;
    bool destroyed() const { return destroyed_; }

    std::shared_ptr<BufferRef> allocate(uint64_t bytes, std::string_view label);
    Tensor make_tensor(std::shared_ptr<BufferRef> buffer, uint64_t offset, DType dtype,
                       const Shape& shape);
    // A compiled kernel, cached by text, override values and whether it is the engine's own
    // (`builtin`: compiled with DeviceInfo::builtin_shader_checks, else shader_checks).
    std::shared_ptr<const Kernel::Impl> kernel(std::string_view label, const std::string& wgsl,
                                               std::span<const Override> overrides, bool builtin);

    // Bytes of the owned buffers still alive (Context::allocated_bytes).
    uint64_t allocated_bytes() const {
        uint64_t total = 0;
        for (const auto& w : owned_) {
            if (const auto ref = w.lock()) total += ref->size;
        }
        return total;
    }

    RecordingState& recording() { return *recording_; }
    void set_last_submission(uint64_t index) { last_submission_ = index; }
    uint64_t last_submission() const { return last_submission_; }
    void destroy();

  private:
    std::shared_ptr<gpu::Device> device_;
    std::unique_ptr<RecordingState> recording_;
    std::unordered_map<std::string, std::shared_ptr<const Kernel::Impl>> pipelines_;
    std::vector<std::weak_ptr<BufferRef>> owned_;
    size_t prune_at_ = 64;
    uint64_t last_submission_ = 0;
    bool destroyed_ = false;
};

// The tensor's implementation, checked to belong to a usable context.
const detail::TensorImpl& usable(const Tensor& t, std::string_view what);

}  // namespace wgx
