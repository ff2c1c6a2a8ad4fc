# nbsim: every target creates the virtual environment first if it is missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO_DEALS ?= 1000000
DEMO_OUT   ?= runs/demo

.PHONY: setup demo test bench validate clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,cluster]'
	touch $(STAMP)

## demo: a million ningbo-3baida deals, then the report
demo: setup
	$(BIN)/nbsim simulate ningbo-3baida --mode deal --deals $(DEMO_DEALS) --seed 1 --out $(DEMO_OUT) --overwrite
	$(BIN)/nbsim report $(DEMO_OUT)

## test: the test suite (long statistical checks are in `make validate`)
test: setup
	$(BIN)/python -m pytest -q

## bench: throughput numbers with ratios to baselines measured in the same run
bench: setup
	$(BIN)/python -m benchmarks.run

## validate: long statistical comparisons of simulation with exact values
validate: setup
	$(BIN)/python -m pytest -q -m validate -p no:cacheprovider

clean:
	rm -rf runs .pytest_cache
