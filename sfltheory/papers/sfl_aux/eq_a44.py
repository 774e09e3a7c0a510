r"""The server drift bound (A44) of the proof of Theorem A3 (full participation).

.. math::

    \frac{1}{m}\sum_{i=0}^{m-1}\mathbb E\|\mathbf x_{S,i}^t-\mathbf x_S^t\|^2\le
    16(m+2m^2)\mu^2(\sigma_L^2+\sigma_G^2)+16(m+2m^2)\mu^2\mathbb E\|\nabla F^s(\mathbf x_S^t)\|^2

where :math:`\mathbf x_{S,i}^t` is the server model after the sequential steps (A38) of clients
:math:`0,\dots,i-1` in round t. Printed "given :math:`\mu\le\frac{1}{2L(2m+1)}`", which turns the per-step factor
:math:`1+\frac{1}{2m-1}+4(1+2m)\mu^2L^2` of (b_14) into :math:`1+\frac{4m}{4m^2-1}\le1+\frac{1}{m-1}`, and followed by
":math:`(1+\frac{1}{m-1})^m-1\le4` for :math:`m>1`". The proof calls it "bounded similar to [13, Lemma 3]".

Reference: A. Talebi, "Convergence Rate Analysis of Non-I.I.D. SplitFed Learning with Partial Worker
Participation and Auxiliary Networks", Preprints.org, 2024, doi:10.20944/preprints202409.0335.v1.

Seed ``004_1446912755864da9.txt``: App. A.2, proof of Theorem A3, recursion (b_11)-(b_14) and the bound (A44).
"""

from __future__ import annotations

from . import _common as c

EQ_A44 = c.server_drift(
    label="eqA44", title="Server drift over the m sequential server steps of a round, full participation ((A44))",
    provenance=c.provenance(label="Theorem A3, proof", equation="(A44)", section="App. A.2, recursion (b_11)-(b_14)"),
    discrepancies=(c.D_UNROLL, c.D_SMOOTH, c.D_ALG_SERVER),
    notes=(
        "(A43) uses it as B_4 = m times the left-hand side; the proof of A3 plugs it into (A40) at (b_15).",
        "The printed 16(m + 2m^2) = 16m(1 + 2m) bounds the unrolled 4(m-1) * 4(1 + 2m): m - 1 is rounded up to m.",
    ),
)  # fmt: skip
