"""Writers and readers of results: HDF5 checkpoints (:mod:`~phmech.io.checkpoint`), provenance
(:mod:`~phmech.io.provenance`), ParaView files (:mod:`~phmech.io.paraview`), the HTML viewer
(:mod:`~phmech.io.html_viewer`), animations (:mod:`~phmech.io.animation`) and the geometry they
draw (:mod:`~phmech.io.pictures`).  :class:`phmech.result.Result` calls them; they import no
solver."""
