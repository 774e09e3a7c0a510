#!/usr/bin/env bash
# The test command (README, .ci/run): set up if needed, then lint, type-check, run the tests and build the
# documentation site with warnings as errors (scripts/docs.sh).
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
ruff check .
ruff format --check sfltheory verify tests benchmarks paper_figs docs
mypy
python -m pytest -q "$@"
bash "$ROOT/scripts/docs.sh"
