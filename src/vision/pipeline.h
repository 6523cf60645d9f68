// One model card's whole demo pipeline on one Context: photo upload, vision.preprocess, the
// program, the GPU post-processing of the task (mask composite; percentiles + depth colour
// map), read-back and the CPU decoders.
//
// The program is loaded and checked against its card once. The GPU work is recorded for a
// photo size and replayed for every later photo of that size (a video's frames): each frame
// only uploads the pixels, submits, waits and reads back. A photo of another size records the
// work again (pipelines come from the context's cache; buffers and constants are made anew).
// The pipeline owns the context's recording: it resets it when it records.
#pragma once

#include <optional>
#include <vector>

#include "vision/classify_decoder.h"
#include "vision/depth_colormap_op.h"
#include "vision/detection.h"
#include "vision/geometry.h"
#include "vision/image.h"
#include "vision/mask_composite_op.h"
#include "vision/model_card.h"
#include "vision/percentile_op.h"
#include "vision/preprocess_op.h"
#include "wgx/context.h"

namespace wgx::vision {

struct PipelineOptions {
    int top_k = 5;         // classify
    bool read_map = true;  // segment/depth: also read the raw output map back
    MaskStyle mask_style;  // segment
    ProgramOptions program;
};

struct FrameTimings {
    double record_ms = 0;  // 0 unless this frame (re)recorded the work
    double upload_ms = 0;
    double gpu_ms = 0;  // submit until the GPU is done
    double readback_ms = 0;
    double decode_ms = 0;  // CPU decoding (detect/classify)
    double total_ms() const { return record_ms + upload_ms + gpu_ms + readback_ms + decode_ms; }
};

struct FrameResult {
    InputGeometry geometry;
    std::vector<Detection> detections;  // detect: photo pixels, highest score first
    std::vector<ClassScore> top;        // classify: best first
    Image picture;                      // segment: composite; depth: colour map (RGBA, photo size)
    std::vector<float> map;             // segment/depth: the card's output channel [H', W']
    int map_width = 0, map_height = 0;
    float low = 0, high = 0;  // depth: the normalisation range (percentiles)
    FrameTimings timings;
};

class Pipeline {
  public:
    // Loads card.model and checks it against the card (LoadError on a mismatch).
    Pipeline(Context& ctx, ModelCard card, PipelineOptions options = {});

    const ModelCard& card() const { return card_; }
    const Program& program() const { return program_; }

    FrameResult run(const Image& photo);

    // The model's input tensor of the last run (float32 [1, 3, H, W]); empty before the first.
    const Tensor& input() const { return input_; }

  private:
    void record(int width, int height);

    Context& ctx_;
    ModelCard card_;
    PipelineOptions options_;
    Program program_;
    PreprocessOp preprocess_;
    std::optional<MaskCompositeOp> composite_;
    std::optional<PercentileOp> percentiles_;
    std::optional<DepthColormapOp> colormap_;

    int recorded_width_ = 0, recorded_height_ = 0;
    Tensor photo_, input_, picture_, range_;
    std::vector<Tensor> outputs_;
};

}  // namespace wgx::vision
