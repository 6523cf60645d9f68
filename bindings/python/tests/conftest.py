"""Shared pieces of the package's tests: where the committed fixtures are, one context for all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import wgx

TESTS_DIR = Path(
    os.environ.get("WGX_TESTS_DIR", Path(__file__).resolve().parents[3] / "tests")
)


@pytest.fixture(scope="session")
def context() -> wgx.Context:
    return wgx.Context()
