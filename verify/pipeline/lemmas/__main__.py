"""``python -m verify.pipeline.lemmas``: see :mod:`verify.pipeline.lemmas.run`."""

import sys

from .run import main

sys.exit(main())
