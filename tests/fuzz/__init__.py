"""Coverage-guided fuzz targets (atheris): every decoder and every role's ``receive``.

``python -m tests.fuzz.run NAME [libFuzzer flags]`` fuzzes one target (``--list`` names them,
``make fuzz`` runs each for ``FUZZ_SECONDS``); ``tests/fuzz/test_fuzz.py`` replays the
committed corpus in the default tier and fuzzes each target briefly under ``-m slow``.
"""
