"""The size up to which matrices are dense, shared by the assembly, the bodies and the solvers.

:data:`DENSE_MAX` unknowns (efforts for the operators of the right-hand
side and the mass matrix, all of ``y`` for an iteration matrix): up to
there, matrices are dense arrays, products are BLAS calls and
factorizations LAPACK's; above, they are sparse (SuperLU).  A sparse
product or solve costs about 10 us of overhead whatever its size, a dense
one about ``n^2`` flops, and a dense LU ``2/3 n^3``: for the banded and
block-diagonal matrices of mechanisms the two meet at a few hundred
unknowns.  300 is where the solvers (midpoint, Radau IIA, first-order
generalized-alpha) and the right-hand side switched already, so the
compiled steps, which need dense factors, keep every system they ran:
the planar mechanisms, the stiffened crank-slider and the small beams.
"""

#: up to this many unknowns matrices are dense arrays and factorized by LAPACK
DENSE_MAX = 300
