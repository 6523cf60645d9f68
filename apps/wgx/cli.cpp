#include "cli.h"

#include <CLI/CLI.hpp>

namespace wgx::cli {
namespace {

template <typename T>
Command& add(Command& self, CLI::App* app, std::string_view names, T& into, std::string_view help,
             const Rules& rules) {
    CLI::Option* o = app->add_option(std::string(names), into, std::string(help));
    if (rules.required) o->required();
    if (rules.show_default) o->capture_default_str();
    if (rules.range) o->check(CLI::Range(rules.range->first, rules.range->second));
    return self;
}

}  // namespace

Command& Command::option(std::string_view names, std::string& into, std::string_view help,
                         const Rules& rules) {
    return add(*this, app_, names, into, help, rules);
}

Command& Command::option(std::string_view names, std::vector<std::string>& into,
                         std::string_view help, const Rules& rules) {
    return add(*this, app_, names, into, help, rules);
}

Command& Command::option(std::string_view names, int& into, std::string_view help,
                         const Rules& rules) {
    return add(*this, app_, names, into, help, rules);
}

Command& Command::option(std::string_view names, uint32_t& into, std::string_view help,
                         const Rules& rules) {
    return add(*this, app_, names, into, help, rules);
}

Command& Command::option(std::string_view names, size_t& into, std::string_view help,
                         const Rules& rules) {
    return add(*this, app_, names, into, help, rules);
}

Command& Command::flag(std::string_view names, bool& into, std::string_view help) {
    app_->add_flag(std::string(names), into, std::string(help));
    return *this;
}

Command& Command::flag(std::string_view names, std::function<void()> set, std::string_view help) {
    app_->add_flag_callback(std::string(names), std::move(set), std::string(help));
    return *this;
}

void Command::on_run(std::function<int()> action) {
    app_->callback([chosen = chosen_, action = std::move(action)] { *chosen = action; });
}

Cli::Cli(std::string_view description)
    : app_(std::make_unique<CLI::App>(std::string(description))) {
    app_->require_subcommand(0, 1);
}

Cli::~Cli() = default;

Command Cli::root() { return Command(app_.get(), &chosen_); }

Command Cli::subcommand(std::string_view name, std::string_view description) {
    return Command(app_->add_subcommand(std::string(name), std::string(description)), &chosen_);
}

std::optional<int> Cli::parse(int argc, char** argv) {
    try {
        app_->parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app_->exit(e);
    }
    return std::nullopt;
}

const std::function<int()>& Cli::chosen() const { return chosen_; }

std::string Cli::help() const { return app_->help(); }

}  // namespace wgx::cli
