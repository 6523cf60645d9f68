// The LLM pieces of wgx._core: tokenizers (wgx_text), chat templates, and the engine's generator
// and sampler. wgx/_generate.py builds Program.generate() on them, the loop of `wgx generate`:
// the prompt fed in chunks, then one token picked and fed back per step. Feeding runs with the
// GIL released, under the context's lock, as runs do.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine.h"
#include "llm.h"
#include "text/chat.h"
#include "text/tokenizer.h"

namespace nb = nanobind;

namespace wgx::python {
namespace {

// A generator over one program: the program stays alive while it does (keep_alive below).
struct EngineGenerator {
    EngineProgram* program;
    wgx::Generator generator;

    EngineGenerator(EngineProgram& p, int64_t context_length)
        : program(&p), generator(*p.runner, context_length) {}

    void feed(const std::vector<int64_t>& tokens) {
        nb::gil_scoped_release unlocked;
        std::lock_guard<std::mutex> held(program->lock());
        generator.feed(tokens);
    }
    void reset() {
        nb::gil_scoped_release unlocked;
        std::lock_guard<std::mutex> held(program->lock());
        generator.reset();
    }
};

std::vector<int32_t> as_ids(const std::vector<int64_t>& ids) {
    std::vector<int32_t> out;
    out.reserve(ids.size());
    for (int64_t id : ids) {
        if (id < 0 || id > INT32_MAX) {
            throw wgx::InvalidArgument("token id " + std::to_string(id) +
                                       " is outside the vocabulary");
        }
        out.push_back(static_cast<int32_t>(id));
    }
    return out;
}

}  // namespace

void bind_llm(nb::module_& m) {
    using text::Tokenizer;
    nb::class_<Tokenizer>(m, "Tokenizer")
        .def_static("load", [](const std::string& path) { return Tokenizer::load(path); })
        .def(
            "encode",
            [](const Tokenizer& t, const std::string& text, bool add_bos) {
                const std::vector<int32_t> ids = t.encode(text, add_bos);
                return std::vector<int64_t>(ids.begin(), ids.end());
            },
            nb::arg("text"), nb::arg("add_bos"))
        .def("decode", [](const Tokenizer& t,
                          const std::vector<int64_t>& ids) { return t.decode(as_ids(ids)); })
        .def_prop_ro("format", [](const Tokenizer& t) { return text::format_name(t.format()); })
        .def_prop_ro("vocab_size", &Tokenizer::vocab_size)
        .def_prop_ro("bos_id",
                     [](const Tokenizer& t) -> std::optional<int64_t> {
                         if (auto id = t.bos_id()) return *id;
                         return std::nullopt;
                     })
        .def_prop_ro("eos_ids",
                     [](const Tokenizer& t) {
                         return std::vector<int64_t>(t.eos_ids().begin(), t.eos_ids().end());
                     })
        .def_prop_ro("chat_template", [](const Tokenizer& t) { return t.chat().chat_template; })
        .def_prop_ro("bos_token", [](const Tokenizer& t) { return t.chat().bos_token; })
        .def_prop_ro("eos_token", [](const Tokenizer& t) { return t.chat().eos_token; })
        .def_prop_ro("path", [](const Tokenizer& t) { return t.path().string(); });

    // Holds its tokenizer (a copy shares the loaded tables).
    struct StreamDecoder {
        Tokenizer tokenizer;
        text::StreamDecoder decoder;
        explicit StreamDecoder(const Tokenizer& t) : tokenizer(t), decoder(tokenizer) {}
    };
    nb::class_<StreamDecoder>(m, "StreamDecoder")
        .def(nb::init<const Tokenizer&>())
        .def("push",
             [](StreamDecoder& s, int64_t id) { return s.decoder.push(as_ids({id}).front()); })
        .def("flush", [](StreamDecoder& s) { return s.decoder.flush(); });

    nb::class_<text::ChatTemplate>(m, "ChatTemplate")
        .def(nb::init<const Tokenizer&>())
        .def(nb::init<const std::string&, const std::string&, const std::string&,
                      const std::string&>(),
             nb::arg("source"), nb::arg("bos_token"), nb::arg("eos_token"), nb::arg("origin"))
        .def(
            "render",
            [](const text::ChatTemplate& t,
               const std::vector<std::pair<std::string, std::string>>& messages,
               bool add_generation_prompt) {
                std::vector<text::ChatMessage> turns;
                for (const auto& [role, content] : messages) turns.push_back({role, content});
                return t.render(turns, add_generation_prompt);
            },
            nb::arg("messages"), nb::arg("add_generation_prompt"));

    nb::class_<Sampler>(m, "Sampler")
        .def(
            "__init__",
            [](Sampler* s, std::optional<double> temperature, int64_t top_k, double top_p,
               uint64_t seed) {
                SamplingOptions o;
                o.temperature = temperature;
                o.top_k = top_k;
                o.top_p = top_p;
                o.seed = seed;
                new (s) Sampler(o);
            },
            nb::arg("temperature").none(), nb::arg("top_k"), nb::arg("top_p"), nb::arg("seed"))
        .def("pick",
             [](Sampler& s, const EngineGenerator& g) { return s.pick(g.generator.logits()); });

    nb::class_<EngineGenerator>(m, "Generator")
        .def(nb::init<EngineProgram&, int64_t>(), nb::keep_alive<1, 2>(), nb::arg("program"),
             nb::arg("context_length"))
        .def("feed", &EngineGenerator::feed)
        .def("reset", &EngineGenerator::reset)
        .def_prop_ro("position", [](const EngineGenerator& g) { return g.generator.position(); })
        .def_prop_ro("context_length",
                     [](const EngineGenerator& g) { return g.generator.context_length(); })
        .def_prop_ro("max_chunk", [](const EngineGenerator& g) { return g.generator.max_chunk(); })
        .def("logits", [](const EngineGenerator& g) {
            const std::vector<float>& l = g.generator.logits();
            auto* copy = new std::vector<float>(l);
            nb::capsule owner(copy,
                              [](void* p) noexcept { delete static_cast<std::vector<float>*>(p); });
            const size_t shape[1] = {copy->size()};
            return nb::ndarray<nb::numpy, float>(copy->data(), 1, shape, owner);
        });
}

}  // namespace wgx::python
