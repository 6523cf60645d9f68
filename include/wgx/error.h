// The engine's error model: every failure is thrown as a wgx::Error (or a subclass), whose
// message names what failed and where (file offset, op index and name, value id, expected
// versus actual). Nothing is printed and ignored, and nothing fails silently; the engine never
// aborts the process on bad input. Besides these, only std::bad_alloc (host memory exhausted)
// is expected to escape.
//
//   Error                  the base; also: using a context after Context::destroy()
//   ├─ InvalidArgument     the caller passed something wrong (fixable by changing the call)
//   ├─ LoadError           the program file (or its content, when recorded) cannot be run
//   └─ GpuError            the WebGPU implementation or the device refused or failed
//      └─ DeviceLost       the device is gone for good; the context refuses all further work
//
// A call that throws leaves the objects it was given as they were (a failed record() adds
// nothing to the recording; a failed set_data() writes nothing), except after DeviceLost,
// which is final for its context. Catch wgx::Error to handle them all.
#pragma once

#include <stdexcept>
#include <string>

namespace wgx {

class Error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A wrong argument to an API call or an op: shape, dtype, rank, count, range; a tensor of another
// context; an unknown op, adapter or backend name; host data of the wrong size or type.
class InvalidArgument : public Error {
  public:
    using Error::Error;
};

// A program that cannot be read or run: a missing, corrupt or truncated file, an unknown method,
// ops the engine lacks (all listed at once, with counts), bad value ids, constants that do not
// fit. Thrown by Program::load() and, for problems only recording can see, by
// Context::record(program). The message starts with the file's path.
class LoadError : public Error {
  public:
    using Error::Error;
};

// An error reported by the WebGPU implementation or the hardware: no usable adapter, device
// creation refused, out of GPU memory, a buffer larger than the device allows, shader
// compilation or validation failures (the message quotes the implementation's). The context
// stays usable unless it is a DeviceLost.
class GpuError : public Error {
  public:
    using Error::Error;
};

// The device was lost (driver reset or crash, GPU removed, device destroyed). From then on every
// call of that context or its tensors that needs the device throws DeviceLost with the same
// message, "The GPU device is lost (<reason>); create a new context."; the loss is never undone.
// Context::destroy() still works, metadata (shapes, dtypes, device_info) stays readable, and
// Programs are unaffected: create a new Context and record them again.
class DeviceLost : public GpuError {
  public:
    using GpuError::GpuError;
};

}  // namespace wgx
