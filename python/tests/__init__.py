"""Checks of the tooling's own logic (each file runs as a script or with `python -m tests.NAME` from python/)."""
