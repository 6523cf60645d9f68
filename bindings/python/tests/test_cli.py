"""`python -m wgx` against the wgx executable of the same build ($WGX_BINARY): the same output (but
for timings) and exit status for a few subcommands, errors included."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from conftest import TESTS_DIR

LINEAR = str(TESTS_DIR / "fixtures" / "linear" / "vulkan.pte")
BINARY = os.environ.get("WGX_BINARY", "")

CASES = [
    ["--version"],
    ["info", LINEAR],
    ["run", LINEAR, "-i", str(TESTS_DIR / "fixtures" / "linear" / "input_0.npy")],
    ["info", str(TESTS_DIR / "fixtures" / "no_such_file.pte")],
    ["no-such-subcommand"],
    [],
]


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a[:1]) or "(none)")
def test_python_m_wgx_is_the_tool(args):
    assert BINARY and os.path.exists(BINARY), (
        "WGX_BINARY must name the build's wgx executable"
    )
    tool = subprocess.run(
        ["wgx", *args],
        executable=BINARY,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    module = subprocess.run(
        [sys.executable, "-m", "wgx", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert module.returncode == tool.returncode
    assert untimed(module.stdout) == untimed(tool.stdout)
    assert module.stderr == tool.stderr


def untimed(text: str) -> str:
    """The output with its timings (which differ from run to run) blanked."""
    return re.sub(r"\d+(\.\d+)? ms", "_ ms", text)
