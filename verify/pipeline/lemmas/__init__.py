"""Lemma and one-round-inequality checks on exact quadratics (issue 28, item 1): see :mod:`.checks`."""
