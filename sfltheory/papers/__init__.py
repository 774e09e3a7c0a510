"""The built-in papers, one package each: its reference, notation and names, and its results as declared data.

``mu_splitfed`` (MU-SplitFed), ``heron_sfl`` (HERON-SFL), ``sl_noniid`` (split learning on non-IID data),
``cut_layer`` (cut layer selection in SFL) and ``sfl_aux`` (non-IID SplitFed with partial participation and
auxiliary networks). Each package declares everything about its paper once; :mod:`sfltheory.builtin` reads it
on first use, in the order of ``sfltheory.builtin.PAPER_KEYS``.
"""
