r"""Table 4 (App. A): communication cost of FL and SL when running E local epochs for N clients.

Caption: ":math:`\mathbf x, \mathbf x_c` are the sizes of the complete model parameters and the client-side model
parameters respectively. n, n_i are the sizes of the overall dataset :math:`\mathcal D` and local dataset
:math:`\mathcal D_i` respectively. The size of the smashed layer is denoted as q. SL with global update need
additional communication cost of one client-side model parameter each round." The rows:

=========================  ===========================================  ==================================
Algorithm                  Communication of client i                    Total communication each round
=========================  ===========================================  ==================================
FL                         2 x complete model                           :math:`2N\mathbf x`
SL (peer-to-peer mode)     :math:`En_iq+En_iq+\mathbf x_c`              :math:`2En+N\mathbf x_c`
SL (centralized mode)      :math:`En_iq+En_iq+2\mathbf x_c`             :math:`2En+2N\mathbf x_c`
SL with global update      --                                           Comm. of vanilla SL + :math:`\mathbf x_c`
=========================  ===========================================  ==================================

In floats, as models: ``tab4.fl_client``, ``tab4.fl_round``, ``tab4.sl_p2p_client``, ``tab4.sl_p2p_round``,
``tab4.sl_central_client``, ``tab4.sl_central_round``, ``tab4.slg_p2p_round``, ``tab4.slg_central_round``. The
paper's n is ``n_data``, n_i ``D_k``, q ``q_smash``, E ``E_epochs``, :math:`\mathbf x, \mathbf x_c` are ``d``, ``d_c``.

Reference: Anonymous authors, "Convergence Analysis of Split Learning on Non-IID Data", submitted to ICLR 2023
(OpenReview SNONkz5zEUF; revised as arXiv:2302.01633). Seed ``002_56e5daea794305d7.txt``: Table 4, App. A
("Implementation of SL with eta_g", based on Singh et al. (2019)).
"""

from __future__ import annotations

from ...result import Discrepancy, Result, Term
from . import _common as c
from ._common import D_k, E_epochs, M, d, d_c, n_data, q_smash

PROVENANCE = c.provenance(
    label="Table 4", section="App. A ('Implementation of SL with eta_g', based on Singh et al. (2019))"
)
Q_DISC = Discrepancy(where="Table 4, 'Total communication each round' of SL", printed=r"2En+N\mathbf x_c\ \text{(centralized: }2En+2N\mathbf x_c)",
    expected=r"2Enq+N\mathbf x_c\ \text{(centralized: }2Enq+2N\mathbf x_c)", note="summing the per-client column E n_i q + E n_i q + x_c over the N clients gives 2Enq + N x_c: the smashed-layer size q is missing.")  # fmt: skip
CENTRAL_DISC = Discrepancy(where="Table 4 last row vs App. A text", printed=r"\text{SL with global update: Comm. of vanilla SL}+\mathbf x_c",
    expected=r"+\mathbf x_c\text{ in the peer-to-peer mode only}", note="App. A: in the centralized mode the global update causes only 'additional storage cost of the server'; the extra communication is the peer-to-peer mode's.")  # fmt: skip
PER_CLIENT = "floats one client communicates per round"
PER_ROUND = "floats communicated per round, all N clients"
SL_CLIENT = (
    Term(name="activations", expr=E_epochs * D_k * q_smash, meaning="E n_i q"),
    Term(name="gradients", expr=E_epochs * D_k * q_smash, meaning="E n_i q"),
)
SL_ROUND = (Term(name="activations and gradients", expr=2 * E_epochs * n_data, meaning="2En, as printed (no q)"),)
P2P_MODELS = Term(name="client-side models", expr=M * d_c, meaning="N x_c")
CENTRAL_MODELS = Term(name="client-side models", expr=2 * M * d_c, meaning="2 N x_c")


def _comm(label: str, title: str, lhs: str, terms: tuple[Term, ...], statement: str, *disc: Discrepancy) -> Result:
    return Result(
        paper=c.KEY, label=label, kind="model", title=title, provenance=PROVENANCE, lhs=lhs, terms=terms, statement=statement,
        discrepancies=disc,
        notes=("Sizes in floats: d = |x| (complete model), d_c = |x_c| (client-side model), q floats of smashed data per sample.",),
    )  # fmt: skip


TAB4 = (
    _comm(
        "tab4.fl_client", "Table 4: FedAvg communication of one client", PER_CLIENT,
        (Term(name="complete model", expr=2 * d, meaning="2 x: download and upload of the complete model"),), r"2\times\text{complete model}",
    ),
    _comm("tab4.fl_round", "Table 4: FedAvg communication per round", PER_ROUND, (Term(name="complete models", expr=2 * M * d, meaning="2 N x"),), r"2N\mathbf x"),
    _comm(
        "tab4.sl_p2p_client", "Table 4: split learning (peer-to-peer mode), one client", PER_CLIENT,
        (*SL_CLIENT, Term(name="client-side model", expr=d_c, meaning="x_c")), r"En_iq+En_iq+\mathbf x_c",
    ),
    _comm("tab4.sl_p2p_round", "Table 4: split learning (peer-to-peer mode), per round", PER_ROUND, (*SL_ROUND, P2P_MODELS), r"2En+N\mathbf x_c", Q_DISC),
    _comm(
        "tab4.sl_central_client", "Table 4: split learning (centralized mode), one client", PER_CLIENT,
        (*SL_CLIENT, Term(name="client-side model", expr=2 * d_c, meaning="2 x_c")), r"En_iq+En_iq+2\mathbf x_c",
    ),
    _comm(
        "tab4.sl_central_round", "Table 4: split learning (centralized mode), per round", PER_ROUND, (*SL_ROUND, CENTRAL_MODELS),
        r"2En+2N\mathbf x_c", Q_DISC,
    ),
    _comm(
        "tab4.slg_p2p_round", "Table 4: split learning with global update (peer-to-peer mode), per round", PER_ROUND,
        (*SL_ROUND, P2P_MODELS, Term(name="global update", expr=d_c, meaning="x_c: the initial client-side model fetched by the last client")),
        r"2En+N\mathbf x_c+\mathbf x_c", Q_DISC,
    ),
    _comm(
        "tab4.slg_central_round", "Table 4: split learning with global update (centralized mode), per round", PER_ROUND,
        (*SL_ROUND, CENTRAL_MODELS, Term(name="global update", expr=d_c, meaning="x_c, as Table 4 prints")),
        r"2En+2N\mathbf x_c+\mathbf x_c", Q_DISC, CENTRAL_DISC,
    ),
)  # fmt: skip
