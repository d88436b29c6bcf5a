# crowdnb: two documented targets, `make reproduce` and `make test`. Both bootstrap .venv when needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: reproduce test venv export clean-nbs readme outputs site bench help

help:
	@echo "make reproduce  - install, export, execute every notebook, build the documentation site in _site/"
	@echo "make test       - install if needed, run the whole test suite with pytest"
	@echo "make site       - build _site/ from the outputs stored in the notebooks (no execution, about a minute)"

# (re)install when .venv is missing or pyproject.toml changed since the last install: a pyproject.toml that is only
# newer (a checkout, a merge) but has the text installed last time (kept in .venv/.installed-pyproject.toml) is not
PYPROJECT_DONE := $(VENV)/.installed-pyproject.toml
$(STAMP): pyproject.toml
	@if test -x $(BIN)/python && cmp -s pyproject.toml $(PYPROJECT_DONE); then \
	  echo "pyproject.toml is as installed: no reinstall"; else \
	  test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) && \
	  $(BIN)/python -m pip install --quiet --upgrade pip && \
	  $(BIN)/python -m pip install --quiet -e ".[dev]" && \
	  cp pyproject.toml $(PYPROJECT_DONE); fi
	@touch $(STAMP)

venv: $(STAMP)

export: $(STAMP)
	$(BIN)/nbdev-export

# notebooks run with CROWDNB_PROGRESS=0: no progress bars in their outputs
reproduce: $(STAMP) export
	MPLBACKEND=Agg CROWDNB_PROGRESS=0 $(BIN)/python tools/reproduce.py --out _site

test: $(STAMP)
	MPLBACKEND=Agg $(BIN)/python -m pytest -q -p no:cacheprovider tests

# helpers for developers
site: $(STAMP) export   # the documentation site from the stored outputs (what tests/test_site.py checks)
	MPLBACKEND=Agg $(BIN)/python -m tools.site.build --out _site

clean-nbs: $(STAMP)
	$(BIN)/nbdev-clean

readme: $(STAMP)
	$(BIN)/python tools/make_readme.py

outputs: $(STAMP) export   # execute notebooks and keep their outputs in nbs/ (for the docs site)
	MPLBACKEND=Agg CROWDNB_PROGRESS=0 $(BIN)/python tools/reproduce.py --out _site --save && $(BIN)/nbdev-clean

bench: $(STAMP)
	$(BIN)/python -m benchmarks
