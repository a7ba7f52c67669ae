"""Every figure the project draws, one module per family; matplotlib is imported only when a
figure is drawn (:func:`scenarios.figures._backend.pyplot`).

* :mod:`~scenarios.figures.run`: ``relative_error.png`` of ``mpc-rr run``;
* :mod:`~scenarios.figures.rrba`: ``convergence.png`` of ``mpc-rr rrba``;
* :mod:`~scenarios.figures.privacy`: ``privacy.png``, the ledger's central epsilon against n;
* :mod:`~scenarios.figures.attacks`: linkability, coalition and eavesdropping plots;
* :mod:`~scenarios.figures.audit`: the empirical epsilon against the trials;
* :mod:`~scenarios.figures.reproduce`: the papers' figures and tables as ``mpc-rr reproduce`` redraws them;
* :mod:`~scenarios.figures.report_figures`: the HTML report's figures (SVG), built on
  :mod:`~scenarios.figures.report_series` (the data behind each figure) and drawn by
  :mod:`~scenarios.figures.report_drawing`.

Commands call these functions with their results; nothing here runs a protocol.
"""
