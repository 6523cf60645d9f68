#include "text/chat.h"

#include <minja/chat-template.hpp>

#include "wgx/error.h"

namespace wgx::text {

struct ChatTemplate::Impl {
    std::string origin;
    minja::chat_template tmpl;
};

ChatTemplate::ChatTemplate(const Tokenizer& tokenizer)
    : ChatTemplate(tokenizer.chat().chat_template, tokenizer.chat().bos_token,
                   tokenizer.chat().eos_token, tokenizer.path().string()) {}

ChatTemplate::ChatTemplate(const std::string& source, const std::string& bos_token,
                           const std::string& eos_token, const std::string& origin) {
    if (source.empty()) {
        throw LoadError(origin +
                        ": the tokenizer ships no chat template (tokenizer_config.json's "
                        "chat_template).");
    }
    try {
        impl_ = std::make_unique<Impl>(
            Impl{origin, minja::chat_template(source, bos_token, eos_token)});
    } catch (const std::exception& e) {
        throw LoadError(origin + ": the chat template does not parse: " + e.what());
    }
}

ChatTemplate::~ChatTemplate() = default;
ChatTemplate::ChatTemplate(ChatTemplate&&) noexcept = default;

std::string ChatTemplate::render(std::span<const ChatMessage> messages,
                                 bool add_generation_prompt) const {
    minja::chat_template_inputs inputs;
    inputs.messages = nlohmann::ordered_json::array();
    for (const ChatMessage& m : messages) {
        inputs.messages.push_back({{"role", m.role}, {"content", m.content}});
    }
    inputs.add_generation_prompt = add_generation_prompt;
    // No tool or system-role polyfills: the template renders exactly what it says.
    minja::chat_template_options options;
    options.apply_polyfills = false;
    try {
        return impl_->tmpl.apply(inputs, options);
    } catch (const std::exception& e) {
        throw InvalidArgument(impl_->origin + ": the chat template failed: " + e.what());
    }
}

}  // namespace wgx::text
