"""The papers' experiments, ours next to theirs: Domingo-Ferrer & Soria-Comas' Tables 1-2
and Figure 3 (:mod:`.mdrr`), Imran & Meo's RRBA figures and tables (:mod:`.rrba`,
:mod:`.rrba_report`), and how each dependence source ranks attribute pairs
(:mod:`.dependence_ranking`).
"""
