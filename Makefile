# nbsim: every target creates the virtual environment first if it is missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEMO_DEALS ?= 200000
DEMO_VARIANTS ?= ningbo-3baida ningbo-7baida ninghai
DEMO_OUT   ?= runs/demo
LADDER_DEALS ?= 20000
BAND_DEALS   ?= 100000
EXPERT_DEALS ?= 5000
EXPERT_ON    ?=
EXPERT       ?= lookahead

.PHONY: setup demo test check bench validate ladder band clean browser

## setup: the virtual environment, then the kernels of game mode, deal mode and scoring
## compiled once (in parallel processes; `python -m nbsim.warmup` compiles every group)
setup: $(STAMP)
	$(BIN)/python -m nbsim.warmup game deal score

# uv (from PyPI) resolves and installs the packages: about 10 s from an empty
# cache, where pip took about 100 s (measured on this 2-core machine); pip
# installs them where uv cannot
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	($(BIN)/python -m pip install --quiet uv \
	  && $(BIN)/python -m uv pip install --quiet --python $(BIN)/python -e '.[test,cluster]') \
	  || $(BIN)/python -m pip install --quiet -e '.[test,cluster]'
	touch $(STAMP)

## demo: three variants played out by the default (strongest) policy, then their comparison
## (it compiles only the game engine: deal mode and the scorer's own entry wait for `make setup`)
demo: $(STAMP)
	$(BIN)/python -m nbsim.warmup game
	@for v in $(DEMO_VARIANTS); do \
		$(BIN)/nbsim simulate $$v --mode game --deals $(DEMO_DEALS) --seed 1 \
			--out $(DEMO_OUT)/$$v --overwrite || exit 1; \
	done
	$(BIN)/nbsim compare $(foreach v,$(DEMO_VARIANTS),$(DEMO_OUT)/$(v)) --out $(DEMO_OUT)

## browser: Debian's chromium for the HTML report test, installed when missing and apt is usable
browser:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "installing chromium (Debian package) for the HTML report test"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
		|| echo "chromium could not be installed: the HTML report test will be skipped"; \
	fi

## test: the test suite (long statistical checks are in `make validate`)
test: setup
	$(BIN)/python -m nbsim.warmup match wall lookahead
	$(BIN)/python -m pytest -q

## check: lint (ruff, rules in pyproject.toml), types of the wrappers (nbsim/ but the kernels)
## (mypy), then the test suite (`make test`); what CI runs
check: setup
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(MAKE) test

## bench: throughput numbers with ratios to baselines measured in the same run
bench: setup
	$(BIN)/python -m benchmarks.run

## validate: long statistical comparisons of simulation with exact values
validate: setup
	$(BIN)/python -m pytest -q -m validate -p no:cacheprovider

## ladder: every pair of policies dueled on every variant -> docs/ladder.md
ladder: setup
	$(BIN)/nbsim ladder --deals $(LADDER_DEALS) --seed 1 --out docs/ladder.md

## band: every variant played by value, defend and cautious defend, and EXPERT
## (the expert reference, default lookahead, on the first EXPERT_DEALS walls of the
## variants EXPERT_ON, default every variant; about 40 minutes a Ningbo variant, 20 for
## ninghai, finished runs reused) -> docs/band.md (made with these defaults in stop 33)
band: setup
	$(BIN)/nbsim band --deals $(BAND_DEALS) --duel-deals $(LADDER_DEALS) --seed 1 \
	    --expert '$(EXPERT)' --expert-deals $(EXPERT_DEALS) \
	    $(if $(EXPERT_ON),--expert-on $(EXPERT_ON)) --out runs/band
	cp runs/band/band.md docs/band.md

clean:
	rm -rf runs .pytest_cache
