# Sourced by main.sh and test.sh: create the virtual environment on first use (or when pyproject.toml
# changes) and put it on PATH. Everything the project needs is installed from pyproject.toml.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${SFLTHEORY_VENV:-$ROOT/.venv}"
STAMP="$VENV/.installed-$(sha256sum "$ROOT/pyproject.toml" | cut -c1-16)"
if [ ! -f "$STAMP" ]; then
  echo "setting up $VENV (first run installs sympy, numpy, scipy, matplotlib, torch CPU, pytest, ruff, mypy, jupytext, nbclient, ipykernel, ray, tensorboard, sphinx, clarabel)" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  # torch==2.13.0 (pinned in the 'verify' extra) resolves to the CPU wheel here.
  "$VENV/bin/python" -m pip install -q -e "$ROOT[verify,dev,notebooks,ray,tensorboard,docs,pep]"
  # Cross-library tests (tests/verify/constants/test_curvature.py, tests/verify/constants/test_persample.py) check against PyHessian and BackPACK.
  # Their declared dependencies would replace the pinned torch, so they go in without them (--no-deps);
  # BackPACK needs einops and unfoldNd at import. The tests skip with the reason if these are absent.
  "$VENV/bin/python" -m pip install -q --no-deps "pyhessian==0.1" "backpack-for-pytorch==1.7.1" \
    "einops==0.8.2" "unfoldNd==0.2.3" || echo "cross-library packages not installed: their tests will skip" >&2
  # Fashion-MNIST (real images, read offline by verify.data.fashion_mnist) ships as Debian's
  # dataset-fashion-mnist. Best effort: only as root with apt-get; without it the tests that need it skip.
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
    && ! dpkg -s dataset-fashion-mnist >/dev/null 2>&1; then
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q dataset-fashion-mnist; } \
      >/dev/null 2>&1 || true
  fi
  rm -f "$VENV"/.installed-*
  touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
