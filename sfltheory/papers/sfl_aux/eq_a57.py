r"""The server drift bound (A57) of the proof of Theorem A4 (partial participation): (A44) printed again.

.. math::

    \frac{1}{m}\sum_{i=0}^{m-1}\mathbb E\|\mathbf x_{S,i}^t-\mathbf x_S^t\|^2\le
    16(m+2m^2)\mu^2(\sigma_L^2+\sigma_G^2)+16(m+2m^2)\mu^2\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2

Printed "given :math:`\mu\le\frac{1}{2L(2m+1)}`" after the averaged recursion (A56), and followed by
":math:`(1+\frac{1}{m-1})^m-1\le4` for :math:`m>1`": the display, its step and its remark are those of (A44), over
the m sequential steps of full participation, although the server of Theorem A4 takes one step per sampled client.

Reference: A. Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker
Participation and Auxiliary Networks", Preprints.org, 2024, doi:10.20944/preprints202409.0335.v1.

Seed ``004_1446912755864da9.txt``: App. A.2, proof of Theorem A4, recursion (b_11)-(b_14), (A56) and the bound (A57).
"""

from __future__ import annotations

from . import _common as c

EQ_A57 = c.server_drift(
    label="eqA57", title="Server drift in the proof of Theorem A4, partial participation ((A57), as printed: (A44) again)",
    provenance=c.provenance(label="Theorem A4, proof", equation="(A57)", section="App. A.2, (A56)"),
    discrepancies=(c.D_PARTIAL_DRIFT, c.D_UNROLL, c.D_SMOOTH, c.D_ALG_SERVER),
    notes=(
        "With n <= m sampled clients the server takes n sequential steps; unrolling (b_14) over them bounds their "
        "drift by c sum_{p<n-1} a^p, no more than the printed value: (A57) still holds, loosely (it does not shrink "
        "with n).",
        "(A51) and (A55) use it for the sampled clients; (A58) then carries L^4(n^3 + 2n^4) where (A57) gives "
        "L^2 n^2(m + 2m^2) (a discrepancy of sfl_aux/thm4).",
    ),
)  # fmt: skip
