// The tool's command line without CLI11's header: commands declare their options through
// Command, which cli.cpp, the one file that includes CLI11, builds over CLI::App. CLI11 is
// header-only and costs about 10 s of compile time in every file that includes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace CLI {
class App;
}

namespace wgx::cli {

// What an option may add: a required value, its default shown in --help, a range of values.
struct Rules {
    bool required = false;
    bool show_default = false;
    std::optional<std::pair<int, int>> range;  // inclusive
};

// One (sub)command being declared. `names` use CLI11's syntax: "model" is positional,
// "-o,--out" an option, "--no-fuse{false}" a flag that sets false.
class Command {
  public:
    Command& option(std::string_view names, std::string& into, std::string_view help,
                    const Rules& rules = {});
    Command& option(std::string_view names, std::vector<std::string>& into, std::string_view help,
                    const Rules& rules = {});
    Command& option(std::string_view names, int& into, std::string_view help,
                    const Rules& rules = {});
    Command& option(std::string_view names, uint32_t& into, std::string_view help,
                    const Rules& rules = {});
    Command& option(std::string_view names, size_t& into, std::string_view help,
                    const Rules& rules = {});
    Command& flag(std::string_view names, bool& into, std::string_view help);
    // A flag that runs `set` when given.
    Command& flag(std::string_view names, std::function<void()> set, std::string_view help);
    // What runs when this command is the one chosen (its exit status is the tool's).
    void on_run(std::function<int()> action);

  private:
    friend class Cli;
    Command(CLI::App* app, std::function<int()>* chosen) : app_(app), chosen_(chosen) {}
    CLI::App* app_;
    std::function<int()>* chosen_;
};

class Cli {
  public:
    explicit Cli(std::string_view description);
    ~Cli();
    Cli(const Cli&) = delete;
    Cli& operator=(const Cli&) = delete;

    Command root();
    Command subcommand(std::string_view name, std::string_view description);
    // Parses the arguments; an exit status when the tool is done (--help, a bad argument,
    // whose message has been printed), else nullopt.
    std::optional<int> parse(int argc, char** argv);
    // The chosen command's action (empty when none was chosen), and the tool's --help text.
    const std::function<int()>& chosen() const;
    std::string help() const;

  private:
    std::unique_ptr<CLI::App> app_;
    std::function<int()> chosen_;
};

}  // namespace wgx::cli
