# Sourced by main.sh and test.sh: create the virtual environment on first use (or when pyproject.toml
# changes) and put it on PATH. Everything the project needs is installed from pyproject.toml.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${SFLTHEORY_VENV:-$ROOT/.venv}"
STAMP="$VENV/.installed-$(sha256sum "$ROOT/pyproject.toml" | cut -c1-16)"
if [ ! -f "$STAMP" ]; then
  echo "setting up $VENV (first run installs sympy, numpy, scipy, matplotlib, torch CPU, pytest, ruff, mypy, jupytext, nbclient, ipykernel)" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  # torch==2.13.0 (pinned in the 'verify' extra) resolves to the CPU wheel here.
  "$VENV/bin/python" -m pip install -q -e "$ROOT[verify,dev,notebooks]"
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
