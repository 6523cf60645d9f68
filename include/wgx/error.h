// The engine's error model: every failure is thrown as a wgx::Error (or a subclass), whose
// message names what failed and where (file offset, op index and name, value id, expected
// versus actual). Nothing is printed and ignored, and nothing fails silently.
#pragma once

#include <stdexcept>
#include <string>

namespace wgx {

class Error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// A wrong argument to an API call or an op: shape, dtype, rank, count, range.
class InvalidArgument : public Error {
  public:
    using Error::Error;
};

// A program file that cannot be read or run: corrupt, truncated, unknown ops, bad ids.
class LoadError : public Error {
  public:
    using Error::Error;
};

// An error reported by the WebGPU implementation: validation, out of memory, shader compile.
class GpuError : public Error {
  public:
    using Error::Error;
};

// The device was lost (driver reset, destroyed). The context refuses all further work.
class DeviceLost : public GpuError {
  public:
    using GpuError::GpuError;
};

}  // namespace wgx
