"""Kernel infrastructure: the compile decorator and its cache (:mod:`~phmech.kernels.jit`), the
loading of cached kernels (:mod:`~phmech.kernels.loading`) and the registry of kernel families
(:mod:`~phmech.kernels.families`).  The kernels themselves live beside the contribution that
declares them (``bodies/``, ``joints/``, ``forces/``, ``fem/``, ``massspring/``, ``contact/``)."""
