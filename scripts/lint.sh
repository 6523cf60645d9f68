#!/usr/bin/env bash
# Lint and format checks (no build needed; meant to run first, to fail fast).
#   the rooms: scripts/check_rooms.py, every include within its room's rules.
#   C++: clang-format --dry-run on every tracked C++ file (style in .clang-format; Debian's
#        clang-format, installed by scripts/install-deps.sh).
#   python/: `ruff check` and `ruff format --check` with the ruff pinned in
#            python/requirements-lint.txt (settings in python/pyproject.toml), installed into
#            the ignored .cache/lint-venv. The install is redone only when the pin changes.
# Exit status: 0 clean, 1 problems found, 2 the tools could not be installed.
#   usage: scripts/lint.sh            (from anywhere)
#          PYTHON=/usr/bin/python3 scripts/lint.sh
# Fix what it finds with .cache/lint-venv/bin/ruff format python and
# .cache/lint-venv/bin/ruff check --fix python (then look at what is left).
set -euo pipefail
cd "$(dirname "$0")/.."

py="${PYTHON:-python3}"
venv=.cache/lint-venv
req=python/requirements-lint.txt
stamp="$venv/.requirements-lint.sha256"

install_ruff() {
    local want
    want="$(sha256sum "$req" | cut -d' ' -f1)" || return 2
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$venv/bin/ruff" ]]; then
        return 0
    fi
    # A venv whose interpreter is gone, or that was left without pip, is made again.
    if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
        rm -rf "$venv"
        mkdir -p "$(dirname "$venv")"
        echo "[lint] creating $venv with $("$py" --version 2>&1)"
        if ! "$py" -m venv "$venv" >"$venv.err" 2>&1; then
            echo "[lint] ERROR: '$py -m venv' failed:" >&2
            sed 's/^/[lint]   /' "$venv.err" >&2
            echo "[lint] On Debian the venv module needs the python3-venv package" \
                 "(apt-get install python3-venv), or set PYTHON to a python that has it." >&2
            rm -rf "$venv" "$venv.err"
            return 2
        fi
        rm -f "$venv.err"
    fi
    echo "[lint] installing $(grep -v '^#' "$req" | tr '\n' ' ')into $venv"
    if ! "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$req"; then
        echo "[lint] ERROR: could not install $req into $venv" >&2
        return 2
    fi
    echo "$want" > "$stamp"
}

status=0

lint_python() {
    local ruff="$venv/bin/ruff"
    echo "[lint] $("$ruff" --version): ruff check python bindings/python"
    if ! "$ruff" check python bindings/python; then
        echo "[lint] FAILED: ruff check found problems in python/" \
             "(many are fixed by: $ruff check --fix python)" >&2
        status=1
    fi
    echo "[lint] $("$ruff" --version): ruff format --check python bindings/python"
    if ! "$ruff" format --check python bindings/python; then
        echo "[lint] FAILED: the files above are not formatted as ruff format would" \
             "(fix: $ruff format python)" >&2
        status=1
    fi
}

lint_rooms() {
    echo "[lint] scripts/check_rooms.py"
    python3 scripts/check_rooms.py || status=1
}

lint_cpp() {
    if ! command -v clang-format >/dev/null; then
        echo "[lint] ERROR: clang-format is missing (scripts/install-deps.sh installs it)" >&2
        status=2
        return
    fi
    echo "[lint] $(clang-format --version | sed 's/^.*version /clang-format /'): C++ style"
    local files log
    log=$(mktemp)
    mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.hpp' | grep -v '^third_party/')
    if ! clang-format --dry-run --Werror "${files[@]}" 2>"$log"; then
        grep -E '^[^ ].*(warning|error):' "$log" | cut -d: -f1 | sort -u |
            sed 's/^/[lint]   /' >&2
        echo "[lint] FAILED: the files above are not formatted as .clang-format says" \
             "(fix: clang-format -i FILE...)" >&2
        status=1
    fi
    rm -f "$log"
}

lint_rooms
lint_cpp
install_ruff || exit 2
lint_python

if [[ $status -eq 0 ]]; then
    echo "[lint] all checks passed"
fi
exit $status
