# Two entry points for users: `make demo` (main job) and `make test`.
# Both create .venv idempotently: it is rebuilt only when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# pytest-xdist workers for `make test` (auto: one per core; TEST_WORKERS=0 runs in this process)
TEST_WORKERS ?= auto

.PHONY: demo test docs lint bench bench-full fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,ray,classroom,pandas,docs]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/mpc-rr run adult

MMDC := $(VENV)/npm/node_modules/.bin/mmdc

# mermaid-cli renders the classroom's mermaid output in the suite (Chromium: the system's);
# without npm or network the test says it is skipped and why
$(MMDC):
	-command -v npm >/dev/null && PUPPETEER_SKIP_DOWNLOAD=1 npm install --silent --no-audit --no-fund \
		--prefix $(VENV)/npm @mermaid-js/mermaid-cli@11

test: $(STAMP) $(MMDC)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	@# the docs site, strict: a broken link, a missing page or an API docstring griffe cannot
	@# parse fails the target (a few seconds)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet
	@# mypy (about 20 s from a fresh clone, with no cache yet) checks beside pytest instead of
	@# before it; its output follows pytest's, and either failing fails the target.  One BLAS
	@# thread per process: one pytest worker per core already (OpenBLAS's threads spun on the
	@# same cores: the dense cross-checks of tests/mpc_rr/mechanisms took ~40 % more CPU).
	@# Bytecode is cached even where PYTHONDONTWRITEBYTECODE is set: without the cache every
	@# worker recompiles and assertion-rewrites the suite (~7 s CPU each) and every party
	@# process the suite spawns recompiles the modules it imports (~20 % of those tests' CPU)
	@log=$$(mktemp); $(BIN)/mypy --strict mpc_rr >$$log 2>&1 & mypy=$$!; \
	trap 'kill $$mypy 2>/dev/null; rm -f $$log' EXIT; \
	echo "$(BIN)/mypy --strict mpc_rr (beside pytest)"; \
	OPENBLAS_NUM_THREADS=$${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} \
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup; tests=$$?; \
	wait $$mypy; typed=$$?; cat $$log; \
	test $$tests -eq 0 && test $$typed -eq 0

bench: $(STAMP)  # quick sizes: minutes
	$(BIN)/python -m benchmarks

bench-full: $(STAMP)  # every module at its own (long) defaults: hours on 2 cores
	$(BIN)/python -m benchmarks --full

# each fuzz target (tests/fuzz: every decoder, every role's receive) for FUZZ_SECONDS seconds,
# one after another (FUZZ_TARGETS: a subset); findings are written to /tmp/mpc-rr-fuzz/<target>/
FUZZ_SECONDS ?= 60
fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[fuzz]'
	@log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	for t in $${FUZZ_TARGETS:-$$($(BIN)/python -m tests.fuzz.run --list)}; do \
		echo "fuzz $$t ($(FUZZ_SECONDS) s)"; \
		$(BIN)/python -m tests.fuzz.run $$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 >$$log 2>&1; \
		rc=$$?; grep -E '^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec)' $$log; \
		test $$rc -eq 0 || { tail -40 $$log; exit 1; }; \
	done

docs: $(STAMP)  # the docs site into site/ (open site/index.html); `mkdocs serve` for a live preview
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) results site
