#!/usr/bin/env bash
# The test command (README, .ci/run): set up if needed, then lint, type-check and run the tests.
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
ruff check .
ruff format --check sfltheory verify tests benchmarks paper_figs
mypy
python -m pytest -q "$@"
