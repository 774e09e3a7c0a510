#!/usr/bin/env bash
# Creates benchmarks/.venv-peers for benchmarks/bench_peers.py (issue 23): Flower (flwr[simulation], Ray backend)
# and pfl-research (pfl[pytorch]) beside this repository's package, at torch 2.13.0. Run: bash benchmarks/peers_env.sh
#
# A venv of its own, not the repo's .venv: flwr[simulation]==1.42.0 pins ray==2.55.1 and the repo's .venv has
# ray==2.60.0 (the 'ray' extra of pyproject.toml), so the peers need their own Ray. (`venv --system-site-packages`
# would not share .venv either: it exposes the base interpreter's site-packages, not another venv's.)
# torch is installed first, exactly as scripts/env.sh does (torch==2.13.0 resolves to the CPU wheel here), and held
# by a constraint for every later step, so no peer can upgrade or replace it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${SFLTHEORY_PEERS_VENV:-$ROOT/benchmarks/.venv-peers}"
REQ="$ROOT/benchmarks/peers-requirements.txt"
STAMP="$VENV/.installed-$(cat "$REQ" "$ROOT/pyproject.toml" | sha256sum | cut -c1-16)"
if [ ! -f "$STAMP" ]; then
  echo "setting up $VENV (torch 2.13.0, flwr[simulation] 1.42.0 with ray 2.55.1, pfl[pytorch] 0.6.0, sfltheory[verify])" >&2
  python3 -m venv "$VENV"
  # The venv ignores itself (as uv and Python 3.13's venv do): git, and ruff (which reads .gitignore files), skip it
  # without an entry in the repository's .gitignore.
  printf '*\n' >"$VENV/.gitignore"
  PY="$VENV/bin/python"
  "$PY" -m pip install -q --upgrade pip
  printf 'torch==2.13.0\n' >"$VENV/torch-constraint.txt"
  "$PY" -m pip install -q -c "$VENV/torch-constraint.txt" "torch==2.13.0"
  "$PY" -m pip install -q -c "$VENV/torch-constraint.txt" -r "$REQ"
  # The package itself, editable (the benchmark times the working tree's trainer); every version the peers resolved
  # is held while its own dependencies go in (a constraints file takes no extras, hence the freeze).
  "$PY" -m pip freeze --exclude-editable >"$VENV/peers-lock.txt"
  "$PY" -m pip install -q -c "$VENV/peers-lock.txt" -e "$ROOT[verify]"
  "$PY" - <<'PY'
import importlib.metadata as md

for name, want in (("torch", "2.13.0"), ("flwr", "1.42.0"), ("ray", "2.55.1"), ("pfl", "0.6.0")):
    got = md.version(name)
    if got.split("+")[0] != want:
        raise SystemExit(f"{name}: {got} installed, {want} expected")
print("peers venv:", ", ".join(f"{n} {md.version(n)}" for n in ("torch", "flwr", "ray", "pfl")))
PY
  rm -f "$VENV"/.installed-*
  touch "$STAMP"
fi
echo "ready: $VENV/bin/python benchmarks/bench_peers.py --device cpu --clients 10,50 --rounds 3" >&2
