"""The size up to which matrices are dense, shared by the assembly, the bodies and the solvers.

Up to :data:`DENSE_MAX` unknowns, matrices are dense arrays, products are
BLAS calls and factorizations LAPACK's; above, they are sparse (SuperLU).
The unknowns counted are the efforts for the operators of the right-hand
side and the mass matrix, and the whole state ``y`` of the problem for an
iteration matrix (``y = (q, e, lam)``, or ``(q, v, lam)`` for the
second-order generalized-alpha method, whatever the size of its own
iteration matrix).

Why 300: a sparse product or solve costs about 10 us of overhead whatever
its size, a dense one ``n^2`` flops and a dense LU ``2/3 n^3``; for the
banded and block-diagonal matrices of mechanisms the two meet at a few
hundred unknowns.  The compiled steps of the midpoint rule, Radau IIA and
the first-order generalized-alpha method need dense factors, and 300 is the
limit they ran with: the planar mechanisms (a chain of 20 bars has 160
unknowns), the stiffened crank-slider and the small beams keep them.  The
second-order generalized-alpha method switched at 100 rows of its own
matrix (``nq + 2 nl``); counted in ``y`` that is about the same place for
unconstrained networks (a 72-mass planar lattice, 288 unknowns, steps as
fast dense as sparse with single-threaded BLAS).
"""

#: up to this many unknowns matrices are dense arrays and factorized by LAPACK
DENSE_MAX = 300
