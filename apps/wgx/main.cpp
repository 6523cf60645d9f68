// wgx: the command-line tool of wgpu-executorch (the tool itself: cli_main.cpp).
#include "cli_main.h"

int main(int argc, char** argv) { return wgx::cli::run_main(argc, argv); }
