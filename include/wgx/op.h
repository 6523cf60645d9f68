// The operator contract. An operator validates its arguments and prepares its GPU work
// (pipelines, uniforms, bind groups) once, into a Recorder; executing only replays what was
// prepared. Built-in ops live in src/ops; user code implements the same interface for its own
// shaders (pre/post-processing) and records them directly or inside programs.
//
// Threads: the built-in ops are stateless; op() and builtin_ops() may be called from any
// thread. Op::record() runs on the thread of the context recording it, so an op object used by
// several contexts on several threads must keep record() free of unsynchronised state. Errors
// in record() are thrown as InvalidArgument (Args::fail) or GpuError (shader compilation).
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "wgx/device.h"
#include "wgx/tensor.h"

namespace wgx {

// One positional argument: a tensor, a scalar, a list, or none (an omitted optional).
class Arg {
  public:
    using TensorList = std::vector<std::optional<Tensor>>;
    using Storage =
        std::variant<std::monostate, Tensor, int64_t, double, bool, std::vector<int64_t>,
                     std::vector<double>, std::vector<bool>, TensorList, std::string>;

    Arg() = default;
    Arg(std::nullopt_t) {}
    Arg(Tensor t) : v_(std::move(t)) {}
    Arg(int v) : v_(static_cast<int64_t>(v)) {}
    Arg(int64_t v) : v_(v) {}
    Arg(double v) : v_(v) {}
    Arg(bool v) : v_(v) {}
    Arg(std::vector<int64_t> v) : v_(std::move(v)) {}
    Arg(std::initializer_list<int64_t> v) : v_(std::vector<int64_t>(v)) {}
    Arg(std::vector<double> v) : v_(std::move(v)) {}
    Arg(std::vector<bool> v) : v_(std::move(v)) {}
    Arg(TensorList v) : v_(std::move(v)) {}
    Arg(std::string v) : v_(std::move(v)) {}

    const Storage& value() const { return v_; }
    bool is_none() const { return std::holds_alternative<std::monostate>(v_); }
    // "tensor float32 [2, 3]", "int 3", "double 1.5", ...
    std::string describe() const;

  private:
    Storage v_;
};

// An integer argument that can change from run to run without its op being recorded again: a
// program's symbolic integer, such as an LLM's cache position (wgx::Runner). An op that reads it
// on the GPU takes it with Args::live_integer, binds Recorder::live_ints() and reads element
// `slot` there when live(); any other way of reading the argument bakes its value into the
// recording, which is then made again whenever the value changes. Sizes never go this way: an
// op's dispatch geometry and tensor shapes may not depend on a live value.
struct LiveInt {
    static constexpr uint32_t kNone = 0xffffffffu;
    int64_t value = 0;      // its value in the run being recorded
    uint32_t slot = kNone;  // its index in Recorder::live_ints(), or kNone for a plain integer
    bool live() const { return slot != kNone; }
};

// Positional arguments of one op call, with typed accessors whose errors name the op, the
// argument and what was expected.
class Args {
  public:
    Args(std::string_view op, std::span<const Arg> args) : op_(op), args_(args) {}
    // The runtime's: `live_slots[i]` holds the slot of argument i when it is a live integer
    // (LiveInt::kNone otherwise); `baked` collects the slots whose values were read as plain
    // values, which the recording then depends on.
    Args(std::string_view op, std::span<const Arg> args, std::span<const uint32_t> live_slots,
         std::vector<uint32_t>* baked)
        : op_(op), args_(args), live_slots_(live_slots), baked_(baked) {}

    size_t size() const { return args_.size(); }
    std::string_view op() const { return op_; }
    const Arg& operator[](size_t i) const;

    // Throws unless min <= size() <= max.
    void expect_count(size_t min, size_t max) const;

    const Tensor& tensor(size_t i, std::string_view name) const;
    std::optional<Tensor> optional_tensor(size_t i, std::string_view name) const;
    std::vector<std::optional<Tensor>> tensor_list(size_t i, std::string_view name) const;
    // Int, Double or Bool, as a double.
    double number(size_t i, std::string_view name) const;
    std::optional<double> optional_number(size_t i, std::string_view name) const;
    int64_t integer(size_t i, std::string_view name) const;
    // An integer that may be live (see LiveInt); a plain integer comes back with slot kNone.
    LiveInt live_integer(size_t i, std::string_view name) const;
    bool boolean(size_t i, std::string_view name) const;
    std::vector<int64_t> int_list(size_t i, std::string_view name) const;
    // A list of doubles (ints are accepted and converted).
    std::vector<double> number_list(size_t i, std::string_view name) const;
    bool is_none(size_t i) const { return i >= args_.size() || args_[i].is_none(); }

    // Throws InvalidArgument("<op>: <message>").
    [[noreturn]] void fail(const std::string& message) const;

  private:
    std::string_view op_;
    std::span<const Arg> args_;
    std::span<const uint32_t> live_slots_;
    std::vector<uint32_t>* baked_ = nullptr;
};

// A compiled compute pipeline (cached by exactly the WGSL text and override values).
class Kernel {
  public:
    struct Impl;
    Kernel() = default;
    // `label`: what this use of the compiled kernel is called in errors and profiles (ops that
    // share a kernel text share one compiled pipeline, but each keeps its own name).
    Kernel(std::shared_ptr<const Impl> impl, std::string label)
        : impl_(std::move(impl)), label_(std::move(label)) {}
    const Impl& impl() const { return *impl_; }
    const std::shared_ptr<const Impl>& impl_ptr() const { return impl_; }
    bool defined() const { return impl_ != nullptr; }
    const std::string& label() const { return label_; }

  private:
    std::shared_ptr<const Impl> impl_;
    std::string label_;
};

struct Override {
    std::string name;
    double value = 0;
};

// Workgroup counts of one dispatch.
struct Grid {
    uint32_t x = 1, y = 1, z = 1;
};

// A bind group entry, in binding order: a tensor (storage buffer) or uniform bytes.
class Binding {
  public:
    Binding(const Tensor& t) : tensor_(t) {}
    template <typename T>
    static Binding uniform(const T& params) {
        static_assert(std::is_trivially_copyable_v<T>);
        static_assert(sizeof(T) % 16 == 0, "uniform structs are padded to 16 bytes");
        Binding b;
        b.uniform_.resize(sizeof(T));
        std::memcpy(b.uniform_.data(), &params, sizeof(T));
        return b;
    }
    bool is_uniform() const { return !tensor_.defined(); }
    const Tensor& tensor() const { return tensor_; }
    const std::vector<std::byte>& uniform_bytes() const { return uniform_; }

  private:
    Binding() = default;
    Tensor tensor_;
    std::vector<std::byte> uniform_;
};

class RecordingState;

// What an op sees while it is recorded: device facts, pipeline compilation, dispatches.
class Recorder {
  public:
    explicit Recorder(RecordingState& state) : state_(state) {}

    const DeviceInfo& device() const;
    // A workgroup size no larger than `preferred` that the device allows.
    uint32_t workgroup_size(uint32_t preferred = 256) const;
    // Enough workgroups of `workgroup_size` threads for `invocations` threads, folded into 2-D
    // when the count exceeds the per-dimension limit. Shaders rebuild the flat index as
    // gid.x + gid.y * (num_workgroups.x * workgroup_size) and return past the end.
    Grid grid_1d(uint64_t invocations, uint32_t workgroup_size) const;

    // Compiles `wgsl` (entry point "main") or takes it from the cache. `label` names the op and
    // variant in errors and profiles.
    Kernel kernel(std::string_view label, std::string wgsl,
                  std::initializer_list<Override> overrides = {});
    void dispatch(const Kernel& kernel, std::initializer_list<Binding> bindings, Grid grid);
    void dispatch(const Kernel& kernel, std::span<const Binding> bindings, Grid grid);
    // Copies src into dst (same byte size) at this point of the recording.
    void copy(const Tensor& src, const Tensor& dst);
    // The int32 storage buffer of live integers (LiveInt::slot indexes it), to bind read-only.
    // Always valid: a recording without live integers gives a small buffer of zeros.
    Binding live_ints() const;
    // A temporary tensor owned by the recording (for multi-pass ops).
    Tensor scratch(DType dtype, const Shape& shape);

  private:
    RecordingState& state_;
};

class Op {
  public:
    virtual ~Op() = default;
    // The name a program graph uses ("aten.add.Tensor"); also how users look it up.
    virtual std::string_view name() const = 0;
    // Further graph names served by the same implementation.
    virtual std::vector<std::string_view> aliases() const { return {}; }
    // Validates `args` and prepares the GPU work into `rec`.
    virtual void record(Recorder& rec, const Args& args) const = 0;
    // Whether record() takes float16 tensors wherever it takes float32 ones (all of its float
    // tensors in one of the two types), storing float16 and computing in float32; it needs the
    // adapter's shader-f16. A program run in float16 (ProgramOptions::float16) hands such ops
    // float16 tensors and gives every other op float32 copies of its inputs and outputs.
    virtual bool accepts_float16() const { return false; }
    // Whether this is one of the engine's own ops, whose kernels DeviceInfo::builtin_shader_checks
    // governs (every other op's kernels follow DeviceInfo::shader_checks). The built-in ops say
    // yes; leave it false in your own ops.
    virtual bool builtin() const { return false; }
};

// A built-in op by graph name ("aten.add.Tensor"); throws InvalidArgument for an unknown name.
const Op& op(std::string_view name);
// Every built-in op (the registry).
std::span<const Op* const> builtin_ops();

}  // namespace wgx
