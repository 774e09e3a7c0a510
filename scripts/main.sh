#!/usr/bin/env bash
# The main job (README): set up if needed, then evaluate the catalogue and write the reports to out/.
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
python -m verify.pipeline.main "${@:-out}"
