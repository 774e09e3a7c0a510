"""The empirical half of sfltheory: models, data, split-learning algorithms and constant estimators.

Imports torch; ``sfltheory`` never imports this package at import time. Nothing is implemented here
yet: cut enumeration is issue 4, constant estimation issue 5.
"""
