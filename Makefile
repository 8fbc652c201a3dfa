# Two commands: `make run` evaluates the demo campaign end to end, `make test` runs the tests.
# Both create and fill the virtual environment .venv when needed.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
CORES ?= all

.PHONY: run test test-slow lint demo clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,workflow,lint]'
	touch $@

demo/campaign.json: | $(BIN)/.installed
	$(BIN)/inexflow simulate --out demo --seed 42

demo: demo/campaign.json

# --quiet rules: progress lines, not every job's details; snakemake ends by saying where the results are
run: $(BIN)/.installed
	$(BIN)/snakemake --cores $(CORES) --quiet rules

test: $(BIN)/.installed
	$(BIN)/python -m pytest -q -n auto

# the tests marked slow (property and fuzz tests with many examples, equivalence sweeps): CI runs them too
test-slow: $(BIN)/.installed
	$(BIN)/python -m pytest -q -n auto -m slow

# ruff (config in pyproject.toml), the import contracts (lint-imports: the layers import downward
# only and no package's modules import each other in a cycle; [tool.importlinter] in pyproject.toml),
# snakefmt and Snakemake's own linter: all must be clean
lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/snakefmt --check Snakefile workflow
	$(BIN)/snakemake --lint -n --configfile config/config.yaml >/dev/null

clean:
	rm -rf results logs .snakemake .inexflow demo
