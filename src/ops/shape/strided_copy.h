// The generic strided copy behind permute, slice, select, expand, repeat, flip, roll, pad, cat
// and split: any element type (moved as bits), up to 8 dims, one dispatch. See strided_copy.wgsl.
// The shape ops built on it and on buffer copies all take float16 (Op::accepts_float16): they
// move 16-bit lanes inside 32-bit words and need no shader-f16. The ops that fill or convert
// (full, zeros, ones, fill, _to_copy, ...) make the dtype their arguments name, so they do not.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "wgx/op.h"

namespace wgx::ops {

struct StridedCopyParams {
    uint32_t numel;
    uint32_t threads;
    int32_t src_base;
    uint32_t dst_base;
    uint32_t fill;
    uint32_t live_slot;    // a live start (LiveOffset), or LiveInt::kNone
    uint32_t live_stride;  // source elements per unit of it
    uint32_t live_max;     // its largest value that keeps the copy inside the source
    uint32_t sizes[8];
    int32_t src_strides[8];
    uint32_t dst_strides[8];
    uint32_t src_sizes[8];
    int32_t src_lo[8];
};
static_assert(sizeof(StridedCopyParams) == 192);
static_assert(offsetof(StridedCopyParams, sizes) == 32);
static_assert(offsetof(StridedCopyParams, src_strides) == 64);
static_assert(offsetof(StridedCopyParams, dst_strides) == 96);
static_assert(offsetof(StridedCopyParams, src_sizes) == 128);
static_assert(offsetof(StridedCopyParams, src_lo) == 160);

enum class CopyMode : uint32_t { plain = 0, wrap = 1, pad_fill = 2, pad_keep = 3 };

// One dim of the iteration space (outer to inner). src_size is the repeat modulus (wrap) or
// the source extent (pad); src_lo the padding before the source (pad; negative crops) or, in
// wrap mode, an offset added before the modulus (roll; 0 <= src_lo < src_size).
struct CopyDim {
    int64_t size;
    int64_t src_stride;
    int64_t dst_stride;
    int64_t src_size;
    int64_t src_lo = 0;
};

// A source offset that a live integer adds (LiveInt: a slice whose start changes from run to
// run, such as the rope tables read at an LLM's cache position): src_base + clamp(start, 0,
// max_start) * stride, read on the GPU.
struct LiveOffset {
    uint32_t slot = LiveInt::kNone;
    int64_t stride = 0;
    int64_t max_start = 0;
};

// A gather into the whole of `dst` (contiguous): dims[d].size must equal dst.shape()[d] and
// dst strides are ignored (set from dst). Works for every dtype.
void record_gather(Recorder& rec, std::string_view label, const Tensor& src, const Tensor& dst,
                   std::vector<CopyDim> dims, int64_t src_base, CopyMode mode = CopyMode::plain,
                   uint32_t fill_bits = 0, LiveOffset live = {});

// Copies the whole of `src` into `dst` at `offset` along `dim` (one input of cat); the other
// dims of src and dst are equal. Works for every dtype.
void record_scatter_region(Recorder& rec, std::string_view label, const Tensor& src,
                           const Tensor& dst, int dim, int64_t offset);

// For pure reshapes: checks that self and out have one dtype and one element count and
// records a buffer copy (no kernel).
void record_reshape_copy(Recorder& rec, const Args& args, const Tensor& self, const Tensor& out);

// Elements per 32-bit word as stored on the GPU: 1, 2 (float16) or 4 (bool, int8, uint8).
uint32_t lanes_per_word(DType dtype);

}  // namespace wgx::ops
