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
# the documented settings of `make ladder` and `make band`: docs/results/ladder.md and
# docs/results/band.md were made with them, and only a run with them replaces those files
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
# the settings of docs/results/calibration.md's figures (`make calibration`)
CALIBRATION_ARGS := --variant ningbo-3baida --deals 200 --worlds 100 --samples 40 \
                    --models 3ph,1p,0p,3p,3

.PHONY: setup demo test check bench validate ladder band calibration clean browser docs

## setup: the virtual environment, then every kernel group compiled once (in parallel
## processes: game and deal mode, scoring, whole matches, given walls, the lookahead
## policy and the evaluator of `nbsim advise`), so no README command compiles later
setup: $(STAMP)
	$(BIN)/python -m compileall -q nbsim
	$(BIN)/python -m nbsim.warmup

# uv (from PyPI) resolves and installs the packages: about 10 s from an empty
# cache, where pip took about 100 s (measured on this 2-core machine); pip
# installs them where uv cannot. Both leave the packages' bytecode compiled
# (uv's --compile-bytecode, pip by default), and `setup` compiles nbsim's:
# where PYTHONDONTWRITEBYTECODE is set, every process would otherwise
# compile each module it imports, about 1 s per kernel-using process
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	($(BIN)/python -m pip install --quiet uv \
	  && $(BIN)/python -m uv pip install --quiet --compile-bytecode --python $(BIN)/python \
	       -e '.[test,cluster]') \
	  || $(BIN)/python -m pip install --quiet -e '.[test,cluster]'
	touch $(STAMP)

## demo: three variants played out by the default (strongest) policy, then their comparison
## (after `make setup`, which compiles every kernel group, so no later command compiles)
demo: setup
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

## docs: the documentation site (mkdocs, warnings as errors) -> site/; its packages (the
## `docs` extra) are installed into the venv first (the two variables silence the
## plugins' notices about mkdocs 2, which the docs extra keeps out)
DOCS_STAMP := $(VENV)/.docs-stamp
docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(BIN)/mkdocs build --strict --site-dir site

$(DOCS_STAMP): $(STAMP)
	($(BIN)/python -m uv pip install --quiet --python $(BIN)/python -e '.[docs]') \
	  || $(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

## bench: throughput and compile seconds with ratios to baselines measured in the same
## run -> runs/bench.md, published as docs/results/bench.md (about 7 minutes)
bench: setup
	$(BIN)/python -m benchmarks.run --out runs/bench.md
	{ printf '# Benchmarks\n\n'; $(RESULT_LINE) bench; echo; cat runs/bench.md; } \
	    > docs/results/bench.md

## validate: long statistical comparisons of simulation with exact values
validate: setup
	$(BIN)/python -m pytest -q -m validate -p no:cacheprovider

# the line under a result page's title: the version, the date and the target that made it
RESULT_LINE = printf '**Version** %s · **date** %s · **regenerate** with `make %s`\n' \
    "$$($(BIN)/python -c 'import nbsim; print(nbsim.__version__)')" "$$(date -u +%F)"
# copy a result to docs/results/ only when made with the documented settings (with its
# title and RESULT_LINE); else say where it is
ifeq ($(strip $(LADDER_DEALS)),$(DOC_LADDER_DEALS))
PUBLISH_LADDER = { printf '\# The ladder: strength of the policies\n\n'; $(RESULT_LINE) ladder; \
    echo; cat runs/ladder.md; } > docs/results/ladder.md
else
PUBLISH_LADDER = @echo 'ladder written to runs/ladder.md; docs/results/ladder.md left as it is: the settings differ from the documented ones (LADDER_DEALS=$(DOC_LADDER_DEALS))'
endif
ifeq ($(strip $(BAND_DEALS) $(LADDER_DEALS) $(EXPERT_DEALS) [$(EXPERT)] [$(EXPERT_ON)]),$(strip $(DOC_BAND_DEALS) $(DOC_LADDER_DEALS) $(DOC_EXPERT_DEALS) [$(DOC_EXPERT)] [$(DOC_EXPERT_ON)]))
PUBLISH_BAND = { head -n 1 runs/band/band.md; echo; $(RESULT_LINE) band; \
    tail -n +2 runs/band/band.md; } > docs/results/band.md
else
PUBLISH_BAND = @echo 'band written to runs/band/band.md; docs/results/band.md left as it is: the settings differ from the documented ones (BAND_DEALS=$(DOC_BAND_DEALS) LADDER_DEALS=$(DOC_LADDER_DEALS) EXPERT_DEALS=$(DOC_EXPERT_DEALS) EXPERT=$(DOC_EXPERT) EXPERT_ON empty: every variant)'
endif

## ladder: every pair of policies dueled on every variant -> runs/ladder.md, copied to
## docs/results/ladder.md only with the documented LADDER_DEALS
ladder: setup
	$(BIN)/nbsim ladder --deals $(LADDER_DEALS) --seed 1 --out runs/ladder.md
	$(PUBLISH_LADDER)

## band: every variant played by value, defend and cautious defend, and EXPERT
## (the expert reference, default lookahead, on the first EXPERT_DEALS walls of the
## variants EXPERT_ON, default every variant; about 40 minutes a Ningbo variant, 20 for
## ninghai, finished runs reused) -> runs/band/band.md, copied to docs/results/band.md
## only with the documented settings above
band: setup
	$(BIN)/nbsim band --deals $(BAND_DEALS) --duel-deals $(LADDER_DEALS) --seed 1 \
	    --expert '$(EXPERT)' --expert-deals $(EXPERT_DEALS) \
	    $(if $(EXPERT_ON),--expert-on $(EXPERT_ON)) --out runs/band
	$(PUBLISH_BAND)

## calibration: the deal-in chances of every opponent model against played deals
## (benchmarks/calibrate_dealin.py) -> runs/calibration.txt and docs/results/calibration.png,
## the figures of docs/results/calibration.md (about a minute of one core)
calibration: setup
	mkdir -p runs
	$(BIN)/python -m benchmarks.calibrate_dealin $(CALIBRATION_ARGS) \
	    --plot docs/results/calibration.png | tee runs/calibration.txt

clean:
	rm -rf runs .pytest_cache site
