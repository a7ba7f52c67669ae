"""Studies declared in TOML: the spec (:mod:`.spec`), the protocol kinds a study can run
(:mod:`.kinds`), the resumable sweep into a results store (:mod:`.sweep`), and examples
(``scenarios/experiments/examples/*.toml``).  Format and semantics: docs/scenarios.md.
"""
