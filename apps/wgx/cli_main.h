// The whole command-line tool as one call: parses argv (argv[0] the program's name), runs the
// chosen subcommand and returns its exit status; errors are printed, not thrown.
#pragma once

namespace wgx::cli {

int run_main(int argc, char** argv);

}  // namespace wgx::cli
