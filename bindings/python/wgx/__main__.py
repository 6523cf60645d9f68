"""`python -m wgx ARGS` is the `wgx` command-line tool: the same subcommands, flags, output and
exit status (the tool's own code, linked into the module)."""

from __future__ import annotations

import sys

from . import _core


def main() -> int:
    if not hasattr(_core, "cli_main"):
        sys.stderr.write(
            "wgx: this build of the package has no command-line tool (WGX_BUILD_APPS=OFF)\n"
        )
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    return _core.cli_main(["wgx", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
