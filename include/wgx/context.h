// The execution context: one WebGPU device, the tensors made on it and a recording of GPU work
// that can be submitted any number of times.
//
// Threads: a Context, its Tensors and its recording are used by one thread at a time; calls on
// one context (or on its tensors) must not overlap. Use one Context per thread: contexts are
// independent (each has its own device) and run in parallel. A Program, the op registry and
// the log settings are shared by all threads (see program.h, op.h, log.h). A context may move
// to another thread between calls.
//
// Lifetime and ownership: Context and Tensor are handles; copies share the same context or
// tensor. The device and every buffer the context made live as long as any handle to the
// context or any Tensor made from it; the last one dropped frees them. destroy() frees them at
// once, whatever handles remain, after waiting for submitted work. Buffers given to wrap() stay
// the caller's: the context only holds a reference.
//
// Errors (wgx/error.h): after destroy(), every call on the context or its tensors that needs the
// GPU throws Error ("The context was destroyed; ..."). After a device loss every such call
// throws DeviceLost with the same message until the context is destroyed; nothing is retried.
// device_info(), destroyed() and tensor metadata never throw.
#pragma once

#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "wgx/device.h"
#include "wgx/op.h"
#include "wgx/program.h"
#include "wgx/tensor.h"

typedef struct WGPUBufferImpl* WGPUBuffer;
typedef struct WGPUDeviceImpl* WGPUDevice;

namespace wgx {

class ContextState;

// One dispatch's GPU time, from Context::profile().
struct DispatchTime {
    std::string scope;   // what recorded it: "#12 aten.convolution.default" for a program's
                         // op (its index in the program's chain), empty for direct records
    std::string kernel;  // the kernel's label
    double ms = 0;
};

struct Profile {
    std::vector<DispatchTime> dispatches;  // in recorded order
    // true: timestamps between the dispatches of one shared pass (the normal encoding);
    // false: each dispatch timed in a pass of its own, so its time includes that pass's setup.
    bool inside_passes = true;
};

class Context {
  public:
    // Picks an adapter (see DeviceOptions), requests its real limits and the optional features
    // it offers, and creates the device. Throws GpuError when no adapter fits or the device is
    // refused, InvalidArgument for an unknown backend name.
    static Context create(const DeviceOptions& options = {});

    const DeviceInfo& device_info() const;
    // Bytes of the GPU buffers this context has allocated (tensors, a program's constants and
    // memory pools) that are still alive: the engine's own account of its GPU memory, without
    // the driver's overhead, pipelines or the uniform and readback staging.
    uint64_t allocated_bytes() const;

    // A new tensor in its own GPU buffer (contents undefined until written).
    Tensor tensor(DType dtype, const Shape& shape);
    // A tensor over an existing storage buffer the caller owns (kept referenced, not destroyed).
    // The buffer needs Storage, CopySrc and CopyDst usage; `byte_offset` is a multiple of 4.
    Tensor wrap(WGPUBuffer buffer, DType dtype, const Shape& shape, uint64_t byte_offset = 0);

    // Validates and prepares one op call; args follow the op's schema, outputs last. The op is
    // not kept: the recording holds the pipeline, bind group and tensors it prepared. A call
    // that throws leaves the recording as it was.
    Context& record(const Op& op, std::span<const Arg> args);
    Context& record(const Op& op, std::initializer_list<Arg> args);
    // Prepares a program (pools allocated, constants uploaded, every op validated and its
    // pipeline and bind group made) and records it: copies from the caller's input tensors,
    // the ops, copies into the caller's output tensors. `io` holds the inputs then the outputs,
    // in the program's order, with the program's dtypes and shapes (else InvalidArgument). The
    // recording keeps what it needs on the GPU; the Program may be dropped afterwards, and the
    // same Program may be recorded into other contexts, on other threads, at the same time.
    Context& record(const Program& program, std::span<const Tensor> io);
    Context& record(const Program& program, std::initializer_list<Tensor> io);
    // Records a copy of src into dst (same dtype and element count).
    Context& copy(const Tensor& src, const Tensor& dst);

    // Encodes everything recorded (dispatches in one compute pass per unbroken run, copies
    // between passes) and submits it. Submitting again replays the same work; nothing is
    // created again. From the second submit of an unchanged recording on, submit() also
    // encodes the next run before it returns, while the GPU works, so the next submit starts
    // the GPU at once (WGX_ENCODE_AHEAD=0 turns this off). No-op when nothing is recorded.
    void submit();
    // Runs the recording once, like submit() + sync(), with GPU timestamps around every
    // dispatch, and returns each dispatch's GPU time (see Profile). Needs the timestamp-query
    // feature (device_info().features), else throws InvalidArgument.
    Profile profile();
    // Blocks until the submitted work is done (without spinning); throws GpuError / DeviceLost on
    // failure. Tensor::get_data() waits by itself; sync() is for timing and for wrap()ped buffers.
    void sync();
    // Forgets the recording; tensors stay.
    void reset();
    // Frees every GPU buffer the context made and the device. Later calls throw. Idempotent.
    void destroy();
    bool destroyed() const;

    // For interop with other WebGPU code (not owned by the caller; valid while the context lives).
    WGPUDevice native_device() const;
    // Simulates a device loss by destroying the device (tests of the DeviceLost path): later
    // calls throw DeviceLost exactly as after a real loss.
    void lose_device_for_testing();

    // Internal: the state behind the handle (op implementations and the engine use it).
    std::shared_ptr<ContextState> state() const { return state_; }

  private:
    explicit Context(std::shared_ptr<ContextState> state) : state_(std::move(state)) {}
    std::shared_ptr<ContextState> state_;
};

}  // namespace wgx
