# nbsim: every target creates the virtual environment first if it is missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DOC_DEMO_DEALS    := 200000
DOC_DEMO_VARIANTS := ningbo-3baida ningbo-7baida ninghai
DEMO_DEALS ?= $(DOC_DEMO_DEALS)
DEMO_VARIANTS ?= $(DOC_DEMO_VARIANTS)
# the documented demo writes runs/demo; other settings get a folder named by
# them (runs/demo-20000, runs/demo-20000-ninghai+ningbo-3baida), so a quick
# demo never replaces the full one
_empty :=
_space := $(_empty) $(_empty)
DEMO_TAG :=
ifneq ($(strip $(DEMO_DEALS)),$(DOC_DEMO_DEALS))
DEMO_TAG := $(DEMO_TAG)-$(strip $(DEMO_DEALS))
endif
ifneq ($(strip $(DEMO_VARIANTS)),$(DOC_DEMO_VARIANTS))
DEMO_TAG := $(DEMO_TAG)-$(subst $(_space),+,$(strip $(DEMO_VARIANTS)))
endif
DEMO_OUT   ?= runs/demo$(DEMO_TAG)
# the documented settings of `make ladder` and `make band`: docs/ladder.md and
# docs/band.md were made with them, and only a run with them replaces those files
DOC_LADDER_DEALS := 20000
DOC_BAND_DEALS   := 100000
DOC_EXPERT_DEALS := 5000
DOC_EXPERT_ON    :=
DOC_EXPERT       := lookahead
LADDER_DEALS ?= $(DOC_LADDER_DEALS)
BAND_DEALS   ?= $(DOC_BAND_DEALS)
EXPERT_DEALS ?= $(DOC_EXPERT_DEALS)
EXPERT_ON    ?= $(DOC_EXPERT_ON)
EXPERT       ?= $(DOC_EXPERT)
# the settings of docs/calibration.md's figures (`make calibration`)
CALIBRATION_ARGS := --variant ningbo-3baida --deals 200 --worlds 100 --samples 40 \
                    --models 3ph,1p,0p,3p,3

.PHONY: setup demo test check bench validate ladder band calibration clean browser

## setup: the virtual environment, then every kernel group compiled once (in parallel
## processes: game and deal mode, scoring, whole matches, given walls, the lookahead
## policy and the evaluator of `nbsim advise`), so no README command compiles later
setup: $(STAMP)
	$(BIN)/python -m nbsim.warmup

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

# copy a result to docs/ only when made with the documented settings; else say where it is
ifeq ($(strip $(LADDER_DEALS)),$(DOC_LADDER_DEALS))
PUBLISH_LADDER = cp runs/ladder.md docs/ladder.md
else
PUBLISH_LADDER = @echo 'ladder written to runs/ladder.md; docs/ladder.md left as it is: the settings differ from the documented ones (LADDER_DEALS=$(DOC_LADDER_DEALS))'
endif
ifeq ($(strip $(BAND_DEALS) $(LADDER_DEALS) $(EXPERT_DEALS) [$(EXPERT)] [$(EXPERT_ON)]),$(strip $(DOC_BAND_DEALS) $(DOC_LADDER_DEALS) $(DOC_EXPERT_DEALS) [$(DOC_EXPERT)] [$(DOC_EXPERT_ON)]))
PUBLISH_BAND = cp runs/band/band.md docs/band.md
else
PUBLISH_BAND = @echo 'band written to runs/band/band.md; docs/band.md left as it is: the settings differ from the documented ones (BAND_DEALS=$(DOC_BAND_DEALS) LADDER_DEALS=$(DOC_LADDER_DEALS) EXPERT_DEALS=$(DOC_EXPERT_DEALS) EXPERT=$(DOC_EXPERT) EXPERT_ON empty: every variant)'
endif

## ladder: every pair of policies dueled on every variant -> runs/ladder.md, copied to
## docs/ladder.md only with the documented LADDER_DEALS
ladder: setup
	$(BIN)/nbsim ladder --deals $(LADDER_DEALS) --seed 1 --out runs/ladder.md
	$(PUBLISH_LADDER)

## band: every variant played by value, defend and cautious defend, and EXPERT
## (the expert reference, default lookahead, on the first EXPERT_DEALS walls of the
## variants EXPERT_ON, default every variant; about 40 minutes a Ningbo variant, 20 for
## ninghai, finished runs reused) -> runs/band/band.md, copied to docs/band.md only with
## the documented settings above (docs/band.md made with them in stop 39)
band: setup
	$(BIN)/nbsim band --deals $(BAND_DEALS) --duel-deals $(LADDER_DEALS) --seed 1 \
	    --expert '$(EXPERT)' --expert-deals $(EXPERT_DEALS) \
	    $(if $(EXPERT_ON),--expert-on $(EXPERT_ON)) --out runs/band
	$(PUBLISH_BAND)

## calibration: the deal-in chances of every opponent model against played deals
## (benchmarks/calibrate_dealin.py) -> runs/calibration.txt and docs/calibration.png,
## the figures of docs/calibration.md (about a minute of one core)
calibration: setup
	mkdir -p runs
	$(BIN)/python -m benchmarks.calibrate_dealin $(CALIBRATION_ARGS) \
	    --plot docs/calibration.png | tee runs/calibration.txt

clean:
	rm -rf runs .pytest_cache
