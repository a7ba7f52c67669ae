# Two entry points for users: `make demo` (main job) and `make test`.
# Both create .venv idempotently: it is rebuilt only when pyproject.toml changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,ray,classroom]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/mpc-rr run adult

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy --strict mpc_rr
	$(BIN)/lint-imports
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) results
