# crowdnb: two documented targets, `make reproduce` and `make test`. Both bootstrap .venv when needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: reproduce test venv export clean-nbs readme outputs bench help

help:
	@echo "make reproduce  - install, export, execute every notebook, write the HTML report to _site/"
	@echo "make test       - install if needed, run the whole test suite with pytest"

# (re)install when .venv is missing or pyproject.toml changed since the last install
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $(STAMP)

venv: $(STAMP)

export: $(STAMP)
	$(BIN)/nbdev-export

reproduce: $(STAMP) export
	MPLBACKEND=Agg $(BIN)/python tools/reproduce.py --out _site

test: $(STAMP)
	MPLBACKEND=Agg $(BIN)/python -m pytest -q -p no:cacheprovider tests

# helpers for developers
clean-nbs: $(STAMP)
	$(BIN)/nbdev-clean

readme: $(STAMP)
	$(BIN)/python tools/make_readme.py

outputs: $(STAMP) export   # execute notebooks and keep their outputs in nbs/ (for the docs site)
	MPLBACKEND=Agg $(BIN)/python tools/reproduce.py --out _site --save && $(BIN)/nbdev-clean

bench: $(STAMP)
	$(BIN)/python -m benchmarks
