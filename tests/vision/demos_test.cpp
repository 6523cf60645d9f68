// End-to-end checks of the demos on the real models and real photos (issue 5), against the
// PyTorch-eager references written by python/demo_reference.py:
//   tests/demos/<model>/                     for the models committed under models/,
//   .cache/real-models/<model>/reference/    for those that may not be committed.
// Each reference file is <photo-stem>.detect.json | .classify.json | .map.npy (with
// <stem>.segment.json or <stem>.depth.json beside it); the photo is found by the path in the
// JSON or by its stem in the photo folders below.
//   detect:   same classes, every box IoU >= 0.9 (only detections within 0.005 of the score
//             threshold may lack a partner: float32 rounding can move them across it);
//             on darknet's dog.jpg the dog and the bicycle are found (and the truck by YOLO26n)
//   classify: top-1 equals the reference's
//   segment:  IoU of the thresholded masks >= 0.95
//   depth:    relative L2 of the map <= 1e-4 (and the percentile range within 1e-3 of its span)
// A model, photo or reference that is absent makes the test skip with a message saying which.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "io/npy.h"
#include "vision/pipeline.h"
#include "vision_test_util.h"

namespace wgx::vision {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kRoot = WGX_SOURCE_DIR;

struct RealModel {
    std::string name;
    fs::path dir;        // holds card.json and model.pte
    fs::path reference;  // holds the reference files
};

// $WGX_DEMO_REFERENCES/<model>/ replaces the reference folder (references made elsewhere).
RealModel locate(const std::string& name) {
    RealModel m;
    m.name = name;
    if (fs::exists(kRoot / "models" / name / "card.json")) {
        m.dir = kRoot / "models" / name;
        m.reference = kRoot / "tests/demos" / name;
    } else {
        m.dir = kRoot / ".cache/real-models" / name;
        m.reference = m.dir / "reference";
        if (!fs::exists(m.reference) && fs::exists(kRoot / "tests/demos" / name)) {
            m.reference = kRoot / "tests/demos" / name;
        }
    }
    if (const char* env = std::getenv("WGX_DEMO_REFERENCES"); env && *env) {
        m.reference = fs::path(env) / name;
    }
    return m;
}

// Folders the demo photos come from (Debian packages installed by scripts/install-deps.sh),
// plus $WGX_PHOTOS_DIR.
std::vector<fs::path> photo_dirs(const RealModel& m) {
    std::vector<fs::path> dirs;
    if (const char* env = std::getenv("WGX_PHOTOS_DIR"); env && *env) dirs.emplace_back(env);
    dirs.emplace_back("/usr/share/darknet/data");
    dirs.emplace_back("/usr/lib/python3/dist-packages/skimage/data");
    dirs.emplace_back("/usr/share/doc/opencv-doc/examples/data");
    dirs.emplace_back("/usr/share/opencv4/samples/data");
    dirs.push_back(m.reference);
    dirs.push_back(m.dir);
    dirs.push_back(kRoot / "docs");
    return dirs;
}

fs::path find_photo(const RealModel& m, const std::string& stem, const json* doc) {
    if (doc && doc->contains("image") && (*doc)["image"].is_string()) {
        fs::path p = (*doc)["image"].get<std::string>();
        if (p.is_relative()) p = kRoot / p;
        if (fs::exists(p)) return p;
    }
    for (const fs::path& dir : photo_dirs(m))
        for (const char* ext : {".jpg", ".jpeg", ".png", ".JPG", ".bmp"})
            if (fs::exists(dir / (stem + ext))) return dir / (stem + ext);
    return {};
}

struct Reference {
    fs::path file;
    std::string stem, kind;  // kind: detect | classify | map
};

std::vector<Reference> references(const RealModel& m) {
    std::vector<Reference> refs;
    std::error_code ec;
    if (!fs::is_directory(m.reference, ec)) return refs;
    for (const auto& e : fs::directory_iterator(m.reference, ec)) {
        const std::string f = e.path().filename().string();
        for (const char* kind : {"detect", "classify"}) {
            const std::string suffix = std::string(".") + kind + ".json";
            if (f.size() > suffix.size() && f.ends_with(suffix))
                refs.push_back({e.path(), f.substr(0, f.size() - suffix.size()), kind});
        }
        if (f.size() > 8 && f.ends_with(".map.npy"))
            refs.push_back({e.path(), f.substr(0, f.size() - 8), "map"});
    }
    std::sort(refs.begin(), refs.end(), [](auto& a, auto& b) { return a.file < b.file; });
    return refs;
}

json read_json(const fs::path& p) {
    std::ifstream in(p);
    return json::parse(in);
}

std::vector<float> read_map(const fs::path& p, Shape& shape) {
    io::NpyArray a = io::read_npy(p);
    EXPECT_EQ(a.dtype, DType::f32) << p;
    shape = a.shape;
    std::vector<float> v(a.data.size() / 4);
    std::memcpy(v.data(), a.data.data(), a.data.size());
    return v;
}

double score_threshold(const ModelCard& card) {
    if (auto* d = std::get_if<DflDecode>(&card.decode)) return d->score_threshold;
    if (auto* d = std::get_if<BoxesScoresDecode>(&card.decode)) return d->score_threshold;
    return 0;
}

void compare_detections(const ModelCard& card, const FrameResult& r, const json& ref) {
    const double thr = score_threshold(card);
    constexpr double kBorderline = 0.005;
    const json& want = ref.at("detections");
    std::vector<bool> used(r.detections.size(), false);
    double min_iou = 1.0;
    for (const json& w : want) {
        const int cls = w.at("class").get<int>();
        const auto b = w.at("box").get<std::vector<double>>();
        const Box wb{b.at(0), b.at(1), b.at(2), b.at(3)};
        const double ws = w.at("score").get<double>();
        int best = -1;
        double best_iou = 0;
        for (size_t i = 0; i < r.detections.size(); ++i) {
            if (used[i] || r.detections[i].cls != cls) continue;
            double v = iou(r.detections[i].box, wb);
            if (v > best_iou) best_iou = v, best = int(i);
        }
        if (best >= 0 && best_iou >= 0.9) {
            used[size_t(best)] = true;
            min_iou = std::min(min_iou, best_iou);
            EXPECT_NEAR(r.detections[size_t(best)].score, ws, 2e-3) << card.label(cls);
            continue;
        }
        EXPECT_LT(ws, thr + kBorderline)
            << "reference detection " << card.label(cls) << " " << ws << " [" << b[0] << ", "
            << b[1] << ", " << b[2] << ", " << b[3] << "] has no partner with IoU >= 0.9 (best "
            << best_iou << ")";
    }
    std::printf("[wgx] %zu reference detections, %zu found, lowest IoU of a pair %.4f\n",
                want.size(), r.detections.size(), min_iou);
    for (size_t i = 0; i < r.detections.size(); ++i) {
        if (used[i]) continue;
        const Detection& d = r.detections[i];
        EXPECT_LT(d.score, thr + kBorderline)
            << "extra detection " << card.label(d.cls) << " " << d.score << " [" << d.box.x1 << ", "
            << d.box.y1 << ", " << d.box.x2 << ", " << d.box.y2 << "]";
    }
}

// Each required label appears among the detections.
void expect_labels(const ModelCard& card, const FrameResult& r,
                   std::initializer_list<const char*> labels) {
    std::set<std::string> found;
    for (const Detection& d : r.detections) found.insert(card.label(d.cls));
    for (const char* l : labels) EXPECT_TRUE(found.count(l)) << "no " << l << " found";
}

class Demos : public ::testing::TestWithParam<std::string> {};

TEST_P(Demos, MatchPyTorchReferences) {
    const RealModel m = locate(GetParam());
    if (!fs::exists(m.dir / "card.json")) {
        GTEST_SKIP() << "model '" << m.name << "' is absent (neither models/" << m.name
                     << "/card.json nor .cache/real-models/" << m.name << "/card.json)";
    }
    const std::vector<Reference> refs = references(m);
    if (refs.empty()) {
        GTEST_SKIP() << "no reference results for '" << m.name << "' in " << m.reference.string()
                     << " (python/demo_reference.py writes them)";
    }
    ModelCard card = load_model_card(m.dir);
    Pipeline pipeline(test::ctx(), card);
    size_t checked = 0;
    std::vector<std::string> missing;
    for (const Reference& ref : refs) {
        SCOPED_TRACE(ref.file.string());
        // A map comes with <stem>.segment.json or <stem>.depth.json (photo path, range).
        fs::path doc_file = ref.file;
        if (ref.kind == "map") {
            doc_file = m.reference / (ref.stem + "." + std::string(task_name(card.task)) + ".json");
        }
        const json doc = fs::exists(doc_file) ? read_json(doc_file) : json();
        const fs::path photo_path = find_photo(m, ref.stem, doc.is_object() ? &doc : nullptr);
        if (photo_path.empty()) {
            missing.push_back(ref.stem);
            continue;
        }
        const FrameResult r = pipeline.run(load_image(photo_path));
        std::printf("[wgx] %s on %s: GPU %.1f ms (first run, with recording %.1f ms)\n",
                    m.name.c_str(), photo_path.filename().c_str(), r.timings.gpu_ms,
                    r.timings.record_ms);
        ++checked;
        if (ref.kind == "detect") {
            ASSERT_EQ(card.task, Task::detect);
            compare_detections(card, r, doc);
            if (ref.stem == "dog") {
                if (m.name == "yolo26n")
                    expect_labels(card, r, {"dog", "bicycle", "truck"});
                else
                    expect_labels(card, r, {"dog", "bicycle"});
            }
        } else if (ref.kind == "classify") {
            ASSERT_EQ(card.task, Task::classify);
            ASSERT_FALSE(r.top.empty());
            const int want = doc.at("top").at(0).at("class").get<int>();
            EXPECT_EQ(r.top[0].cls, want)
                << "top-1 " << card.label(r.top[0].cls) << ", reference " << card.label(want);
        } else if (card.task == Task::segment) {
            Shape shape;
            std::vector<float> want = read_map(ref.file, shape);
            ASSERT_EQ(shape, (Shape{r.map_height, r.map_width}));
            const auto& d = std::get<SegmentDecode>(card.decode);
            // Thresholding p >= t on probabilities is logit >= log(t / (1 - t)) on logits.
            const double cut = d.logit ? std::log(d.threshold / (1 - d.threshold)) : d.threshold;
            size_t inter = 0, uni = 0;
            for (size_t i = 0; i < want.size(); ++i) {
                bool a = r.map[i] >= cut, b = want[i] >= cut;
                inter += a && b;
                uni += a || b;
            }
            ASSERT_GT(uni, 0u) << "both masks are empty";
            EXPECT_GE(double(inter) / double(uni), 0.95);
            std::printf("[wgx] %s mask IoU %.5f\n", ref.stem.c_str(), double(inter) / double(uni));
        } else if (card.task == Task::depth) {
            Shape shape;
            std::vector<float> want = read_map(ref.file, shape);
            ASSERT_EQ(shape, (Shape{r.map_height, r.map_width}));
            double num = 0, den = 0;
            for (size_t i = 0; i < want.size(); ++i) {
                num += (double(r.map[i]) - want[i]) * (double(r.map[i]) - want[i]);
                den += double(want[i]) * want[i];
            }
            EXPECT_LE(std::sqrt(num / den), 1e-4);
            std::printf("[wgx] %s depth rel L2 %.3g\n", ref.stem.c_str(), std::sqrt(num / den));
            if (doc.is_object() && doc.contains("range")) {
                // The colour map's range: numpy percentiles of the reference map.
                const auto range = doc["range"].get<std::vector<double>>();
                const double span = std::max(1e-12, std::abs(range.at(1) - range.at(0)));
                EXPECT_NEAR(r.low, range.at(0), 1e-3 * span);
                EXPECT_NEAR(r.high, range.at(1), 1e-3 * span);
            }
        } else {
            ADD_FAILURE() << "a map reference for a " << task_name(card.task) << " model";
        }
    }
    if (checked == 0) {
        std::string list;
        for (const auto& s : missing) list += " " + s;
        GTEST_SKIP() << "the photos of the references of '" << m.name << "' are absent:" << list;
    }
    for (const auto& s : missing)
        std::printf("[wgx] photo '%s' is absent: not checked\n", s.c_str());
}

INSTANTIATE_TEST_SUITE_P(Models, Demos,
                         ::testing::Values("nanodet", "selfie", "efficientnet_lite0", "yolo26n",
                                           "pydnet"),
                         [](const auto& info) { return info.param; });

// The README's first picture: the bundled detector on darknet's dog.jpg finds the dog and the
// bicycle, whether or not a reference file exists yet.
TEST(Demos, BundledDetectorFindsTheDogAndTheBicycle) {
    const RealModel m = locate("nanodet");
    const fs::path dog = "/usr/share/darknet/data/dog.jpg";
    ASSERT_TRUE(fs::exists(m.dir / "card.json")) << "models/nanodet is bundled and must be present";
    if (!fs::exists(dog)) GTEST_SKIP() << dog << " is absent (Debian package darknet)";
    Pipeline pipeline(test::ctx(), load_model_card(m.dir));
    FrameResult r = pipeline.run(load_image(dog));
    expect_labels(pipeline.card(), r, {"dog", "bicycle"});
}

}  // namespace
}  // namespace wgx::vision
