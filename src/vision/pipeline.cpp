#include "vision/pipeline.h"

#include <fmt/format.h>

#include <chrono>
#include <span>

#include "vision/detect_decoder.h"

namespace wgx::vision {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int map_output(const Decode& decode) {
    if (const auto* s = std::get_if<SegmentDecode>(&decode)) return s->output;
    if (const auto* d = std::get_if<DepthDecode>(&decode)) return d->output;
    return -1;
}

}  // namespace

Pipeline::Pipeline(Context& ctx, ModelCard card, PipelineOptions options)
    : ctx_(ctx),
      card_(std::move(card)),
      options_(std::move(options)),
      program_(Program::load(card_.model, options_.program)),
      preprocess_(card_.input) {
    check_program_fits(card_, program_);
    if (const auto* s = std::get_if<SegmentDecode>(&card_.decode)) {
        composite_.emplace(card_.input, *s, options_.mask_style);
    } else if (const auto* d = std::get_if<DepthDecode>(&card_.decode)) {
        percentiles_.emplace(d->low_percentile, d->high_percentile);
        colormap_.emplace(card_.input, d->larger_is_far);
    }
}

void Pipeline::record(int width, int height) {
    ctx_.reset();
    recorded_width_ = recorded_height_ = 0;
    photo_ = ctx_.tensor(DType::u8, {height, width, 3});
    input_ = ctx_.tensor(DType::f32, {1, 3, card_.input.height, card_.input.width});
    outputs_.clear();
    for (const TensorInfo& info : program_.outputs()) {
        outputs_.push_back(ctx_.tensor(info.dtype, info.shape));
    }
    std::vector<Tensor> io{input_};
    io.insert(io.end(), outputs_.begin(), outputs_.end());
    ctx_.record(preprocess_, {photo_, input_});
    ctx_.record(program_, io);
    const int m = map_output(card_.decode);
    if (composite_) {
        picture_ = ctx_.tensor(DType::u8, {height, width, 4});
        ctx_.record(*composite_, {photo_, outputs_[m], picture_});
    } else if (colormap_) {
        picture_ = ctx_.tensor(DType::u8, {height, width, 4});
        range_ = ctx_.tensor(DType::f32, {2});
        ctx_.record(*percentiles_, {outputs_[m], range_});
        ctx_.record(*colormap_, {outputs_[m], range_, picture_});
    }
    recorded_width_ = width;
    recorded_height_ = height;
}

FrameResult Pipeline::run(const Image& photo) {
    if (photo.channels != 3 || photo.width < 1 || photo.height < 1 ||
        photo.pixels.size() != size_t(photo.width) * photo.height * 3) {
        throw InvalidArgument(fmt::format("{}: the photo must be RGB with {}x{}x3 bytes.",
                                          card_.name, photo.width, photo.height));
    }
    FrameResult r;
    r.geometry = compute_geometry(card_.input, photo.width, photo.height);
    auto t = Clock::now();
    if (photo.width != recorded_width_ || photo.height != recorded_height_) {
        record(photo.width, photo.height);
        r.timings.record_ms = ms_since(t);
    }
    t = Clock::now();
    photo_.set_data(std::span<const uint8_t>(photo.pixels));
    r.timings.upload_ms = ms_since(t);
    t = Clock::now();
    ctx_.submit();
    ctx_.sync();
    r.timings.gpu_ms = ms_since(t);

    t = Clock::now();
    auto read = [&](int index) { return outputs_[size_t(index)].get_data<float>(); };
    if (const auto* d = std::get_if<ClassifyDecode>(&card_.decode)) {
        std::vector<float> logits = read(d->output);
        r.timings.readback_ms = ms_since(t);
        t = Clock::now();
        r.top = top_k(logits, d->logits, options_.top_k);
        r.timings.decode_ms = ms_since(t);
        return r;
    }
    if (const auto* d = std::get_if<DflDecode>(&card_.decode)) {
        std::vector<float> scores = read(d->scores_output), boxes = read(d->boxes_output);
        r.timings.readback_ms = ms_since(t);
        t = Clock::now();
        const int64_t classes = program_.outputs()[size_t(d->scores_output)].shape[2];
        r.detections = decode_anchor_free_dfl(*d, card_.input.height, card_.input.width, scores,
                                              classes, boxes);
    } else if (const auto* d = std::get_if<BoxesScoresDecode>(&card_.decode)) {
        std::vector<float> out = read(d->output);
        r.timings.readback_ms = ms_since(t);
        t = Clock::now();
        const int64_t width = program_.outputs()[size_t(d->output)].shape[2];
        r.detections = decode_boxes_scores(*d, card_.input.height, card_.input.width, out, width);
    }
    if (card_.task == Task::detect) {
        for (Detection& det : r.detections) det.box = r.geometry.to_photo(det.box);
        r.timings.decode_ms = ms_since(t);
        return r;
    }
    // segment / depth: the picture made on the GPU, and the raw map for --raw-out and tests.
    r.picture = Image(photo.width, photo.height, 4);
    r.picture.pixels = picture_.get_data<uint8_t>();
    const int m = map_output(card_.decode);
    const Shape& shape = program_.outputs()[size_t(m)].shape;  // [1, C, H', W']
    r.map_height = int(shape[2]);
    r.map_width = int(shape[3]);
    if (options_.read_map) {
        std::vector<float> all = read(m);
        const size_t channel =
            composite_ ? size_t(std::get<SegmentDecode>(card_.decode).channel) : 0;
        const size_t plane = size_t(r.map_width) * size_t(r.map_height);
        r.map.assign(all.begin() + ptrdiff_t(channel * plane),
                     all.begin() + ptrdiff_t((channel + 1) * plane));
    }
    if (colormap_) {
        std::vector<float> bounds = range_.get_data<float>();
        r.low = bounds[0];
        r.high = bounds[1];
    }
    r.timings.readback_ms = ms_since(t);
    return r;
}

}  // namespace wgx::vision
