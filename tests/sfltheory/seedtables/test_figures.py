"""The six seed figures: listed, described in paper_figs/README.md, and each draws with small=True."""

from __future__ import annotations

import pytest

from sfltheory import figs

SEED_FIGURES = (
    "seed_mu_table2",
    "seed_sl_table4",
    "seed_heron_remark2",
    "seed_sl_K_eta_g",
    "seed_sfl_aux_window",
    "seed_sl_fig1",
)


def test_listed_and_described() -> None:
    readme = (figs.ROOT / "README.md").read_text()
    for name in SEED_FIGURES:
        assert name in figs.FIGURES and f"`{name}`" in readme


@pytest.mark.parametrize("name", SEED_FIGURES)
def test_draws_small(name: str) -> None:
    import matplotlib.pyplot as plt

    fig = figs.draw(name, small=True)
    try:
        axes = fig.get_axes()
        assert axes and all(ax.has_data() for ax in axes), name
    finally:
        plt.close(fig)
