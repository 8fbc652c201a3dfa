# Two commands: `make run` evaluates the demo campaign end to end, `make test` runs the tests.
# Both create and fill the virtual environment .venv when needed.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
CORES ?= all

.PHONY: run test demo clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,workflow]'
	touch $@

demo/campaign.json: | $(BIN)/.installed
	$(BIN)/inexflow simulate --out demo --seed 42

demo: demo/campaign.json

run: $(BIN)/.installed demo/campaign.json
	$(BIN)/snakemake --cores $(CORES)

test: $(BIN)/.installed
	$(BIN)/python -m pytest -q

clean:
	rm -rf results logs .snakemake demo
