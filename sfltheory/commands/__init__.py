"""The theory commands of ``sfltheory``, grouped by what they work on; each module adds its sub-commands to the
parser (:func:`sfltheory.cli.build_parser`) with a ``register`` function, as ``sfltheory.audit.cli`` and the torch
half's ``verify.cli`` do."""
