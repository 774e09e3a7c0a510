#!/usr/bin/env bash
# Build the documentation site into docs/_build/html (README, "Documentation"): set up .venv if needed, then Sphinx
# with warnings as errors. Offline: the pages that come from the code are generated first (docs/sitegen.py), the
# notebooks are executed on their small settings, MathJax is served from the build itself.
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
start=$SECONDS
sphinx-build -W --keep-going -j auto -q -b html docs docs/_build/html "$@"
echo "site written to docs/_build/html/index.html in $((SECONDS - start)) s" >&2
