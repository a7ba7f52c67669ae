"""What a study produced: the SQLite store (:mod:`.store`), per-point aggregates
(:mod:`.aggregate`), provenance of every run (:mod:`.provenance`) and the self-contained
HTML report (:mod:`.report`, figures in :mod:`.report_figures`).
"""
