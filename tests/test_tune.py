"""nbsim tune (issue 22): a study on a tiny budget finds the min_tai that a
sweep says puts the win rate in a range; every trial is a run folder of the
common seed; pruning; the confirmation on a fresh seed; resume after an
interruption (Ctrl-C and a killed process); tune.html in a browser; the
recommended TOML runs with nbsim simulate; one clear error per bad input."""
from __future__ import annotations

import json

import optuna
import polars as pl
import pytest
from click.testing import CliRunner

import nbsim
from nbsim.analysis.tune import (
    output as OUTPUT,
)
from nbsim.analysis.tune import (
    spec as SPEC,
)
from nbsim.analysis.tune import (
    study as STUDY,
)
from nbsim.analysis.tune import (
    targets as TARGETS,
)
from nbsim.analysis.tune import (
    tune as T,
)
from nbsim.cli import cli
from nbsim.errors import ConfigError, RunError, RunInterrupted
from nbsim.policy_specs import as_policies
from nbsim.run import files as FILES
from nbsim.run import simulate as SIM

from test_html import _offline, browser_probe, needs_browser

SEED = 3
DEALS = 1_200


@pytest.fixture(scope="module")
def known(tmp_path_factory):
    """A sweep of win.min_tai, then a study whose win-rate range is chosen
    from the sweep so that exactly min_tai 6 lies inside it."""
    base = tmp_path_factory.mktemp("tune")
    sw = nbsim.sweep("ningbo-3baida", "win.min_tai=5,6,7", deals=DEALS, seed=SEED,
                     out=base / "sweep", workers=2)
    wr = dict(zip(sw.table["win.min_tai"].to_list(), sw.table["win_rate"].to_list(),
                  strict=True))
    low, high = (wr["7"] + wr["6"]) / 2, (wr["6"] + wr["5"]) / 2
    assert wr["5"] > high > wr["6"] > low > wr["7"]
    res = T.tune("ningbo-3baida", [f"win_rate={low:.4f}..{high:.4f}"], ["win.min_tai=3..8"],
                 trials=6, deals=DEALS, seed=SEED, out=base / "study", workers=2,
                 confirm_top=2)
    return base / "study", res, (low, high)


def test_finds_the_known_setting(known):
    out, res, (low, high) = known
    assert res.feasible
    assert res.recommended == {"win.min_tai": "6"}
    assert res.verdicts == {"win_rate": TARGETS.MEETS}
    t = res.trials
    assert sorted(t["win.min_tai"].to_list()) == ["3", "4", "5", "6", "7", "8"]   # each once
    best = t.filter(pl.col("win.min_tai") == "6").row(0, named=True)
    assert best["state"] == "complete" and best["objective"] == 0.0
    assert low < best["win_rate_ci_low"] < best["win_rate_ci_high"] < high
    # far settings are pruned on their first shards: a partial run, interval clearly outside
    far = t.filter(pl.col("win.min_tai").is_in(["3", "8"]))
    assert far["state"].to_list() == ["pruned", "pruned"]
    assert (far["deals"] < DEALS).all()
    assert far["win_rate_verdict"].to_list() == [TARGETS.MISSES, TARGETS.MISSES]
    # every trial is an ordinary run folder of the common seed, with the deals it played
    for r in t.iter_rows(named=True):
        m = FILES.read_manifest(r["run_dir"])
        assert m["seed"] == SEED and m["deals_done"] == r["deals"]
        assert m["status"] == "complete"
        assert m["overrides"] == [f"win.min_tai={r['win.min_tai']}"]
        assert m["policies"] == [p.full for p in as_policies("defend")]
    # the confirmation: fresh seed, more deals, the variant's own settings first
    runs = res.confirmation.runs
    assert [r["seed"] for r in runs] == [SEED + 1] * len(runs)
    assert [r["deals_done"] for r in runs] == [4 * DEALS] * len(runs)
    assert runs[0]["overrides"] == [] and runs[1]["overrides"] == ["win.min_tai=6"]
    assert "meets every target" in res.text and "Confirmation on 4,800 fresh deals" in res.text


def test_study_is_an_optuna_study(known):
    """The study is read by Optuna's own tools: every trial, its settings,
    state and, for a complete one, its objective; pruned trials reported
    their intermediate gaps."""
    out, res, _ = known
    study = optuna.load_study(study_name=STUDY.STUDY_NAME,
                              storage=f"sqlite:///{out / STUDY.STUDY_DB}")
    states = {t.number: t.state.name for t in study.trials}
    assert states == {r["trial"]: r["state"].upper() for r in res.trials.iter_rows(named=True)}
    assert study.best_trial.params == {"win.min_tai": 6} and study.best_value == 0.0
    pruned = [t for t in study.trials if t.state.name == "PRUNED"]
    assert pruned and all(max(t.intermediate_values.values()) > 0 for t in pruned)


def test_outputs_and_recommended_toml_runs(known, tmp_path):
    out, res, (low, high) = known
    for name in (OUTPUT.TUNE_MD, OUTPUT.TUNE_JSON, OUTPUT.TUNE_HTML, OUTPUT.TUNE_PNG,
                 OUTPUT.TUNE_TOML):
        assert (out / name).is_file(), name
    data = json.loads((out / OUTPUT.TUNE_JSON).read_text())
    assert data["recommended"] == {"win.min_tai": "6"} and data["feasible"] is True
    assert len(data["trials"]) == 6
    text = (out / OUTPUT.TUNE_TOML).read_text()
    assert "min_tai = 6" in text and 'name = "ningbo-3baida-tuned"' in text
    r = CliRunner().invoke(cli, ["simulate", str(out / OUTPUT.TUNE_TOML), "--mode", "game",
                                 "--deals", "200", "--seed", "5", "--out", str(tmp_path / "r")])
    assert r.exit_code == 0, r.output
    m = FILES.read_manifest(tmp_path / "r")
    assert m["rules"]["win"]["min_tai"] == 6 and m["config"]["name"] == "ningbo-3baida-tuned"
    assert m["rules"] == nbsim.load_rules("ningbo-3baida", ["win.min_tai=6"]).to_dict() | {
        "name": "ningbo-3baida-tuned", "description": m["rules"]["description"]}


def test_html_is_self_contained(known):
    out, res, _ = known
    html = (out / OUTPUT.TUNE_HTML).read_text(encoding="utf-8")
    _offline(html)
    for s in ("table-confirm", "table-trials", "table-headline", "meets", "pruned",
              "win.min_tai", "win_rate in ["):
        assert s in html, s


@needs_browser
def test_browser_renders_tune_html(known, tmp_path):
    out, _, _ = known
    html = (out / OUTPUT.TUNE_HTML).read_text(encoding="utf-8")
    tables, images, broken = browser_probe(html, tmp_path)
    assert tables == html.count('class="nbsim-table"') and tables >= 4
    assert images == html.count("<img ") and images >= 1       # tune.png among them
    assert broken == "", f"images that did not load: {broken}"


def test_resume_after_interruption(tmp_path, monkeypatch):
    """Ctrl-C during a trial's second look keeps the study and the partial
    run; --resume plays that setting again from its first shard, a trial a
    killed process left running is failed, and the study ends with the
    trials asked for. A different request or a missing --resume is refused."""
    out = tmp_path / "study"

    def run(**kw):
        args = dict(trials=3, deals=600, seed=SEED, out=out, workers=1, confirm_top=1,
                    confirm_deals=600) | kw
        return T.tune("ningbo-3baida", ["win_rate=0.5..1"], ["win.min_tai=3..6"], **args)

    real = SIM.simulate
    looks: list[str] = []                  # folders of the second looks (300 of 600 deals)

    def flaky(config, **kw):
        if kw.get("seed") == SEED and kw["deals"] == 300:
            looks.append(str(kw["out"]))
            if len(looks) == 2:            # Ctrl-C in the second trial that gets that far
                raise KeyboardInterrupt
        return real(config, **kw)

    monkeypatch.setattr(SIM, "simulate", flaky)
    with pytest.raises(RunInterrupted, match="continue with --resume"):
        run()
    monkeypatch.setattr(SIM, "simulate", real)
    cut = looks[1]
    m = FILES.read_manifest(cut)
    assert m["deals"] == 150 and m["deals_done"] == 150          # its first look only
    storage = f"sqlite:///{out / STUDY.STUDY_DB}"
    study = optuna.load_study(study_name=STUDY.STUDY_NAME, storage=storage)
    failed = [t for t in study.trials if t.state.name == "FAIL"]
    assert len(failed) == 1 and failed[0].user_attrs["run_dir"] == cut
    killed = study.ask()                      # a trial a killed process left running
    with pytest.raises(RunError, match="already holds a study"):
        run()
    with pytest.raises(RunError, match="holds a different study: deals is 900, the study's "
                                       "is 600"):
        run(deals=900, resume=True)
    res = run(resume=True)
    with pytest.raises(RunError, match="--confirm-deals 300 is below the 600 deals of the "
                                       "confirmation runs"):
        run(resume=True, confirm_deals=300)        # the finished confirmation is kept
    assert FILES.read_manifest(out / T.CONFIRM_DIR / T.OWN)["deals_done"] == 600
    study = optuna.load_study(study_name=STUDY.STUDY_NAME, storage=storage)
    played = {t.user_attrs["setting"] for t in study.trials if t.state.name in ("COMPLETE",
                                                                             "PRUNED")}
    assert len(played) == 3 == res.trials.height                # three settings, repeats once
    assert study.trials[killed.number].state.name == "FAIL"
    again = [t for t in study.trials if t.user_attrs.get("run_dir") == cut
             and t.state.name == "COMPLETE"]
    assert again and again[0].user_attrs.get("resumed_from") == failed[0].number
    m = FILES.read_manifest(cut)
    assert m["deals_done"] == 600 and m["resumed"]                # the partial run completed


def test_infeasible_targets_are_said_so(tmp_path):
    """No min_tai of 3 to 5 makes ningbo-3baida's win rate 30-40%: every
    trial is pruned, the study says the targets are infeasible, names the
    closest trial, confirms it and writes its settings marked as such."""
    res = T.tune("ningbo-3baida", ["win_rate=0.3..0.4"], ["win.min_tai=3..5"], trials=3,
                 deals=400, seed=SEED, out=tmp_path / "s", workers=2, confirm_top=1,
                 confirm_deals=400)
    assert not res.feasible
    assert res.trials["state"].to_list() == ["pruned"] * 3
    assert res.recommended == {"win.min_tai": "5"}            # the lowest win rate
    assert res.verdicts == {"win_rate": TARGETS.MISSES}
    assert "INFEASIBLE within the searched ranges" in res.text
    assert "closest in the search: trial" in res.text and "win.min_tai=5, pruned" in res.text
    assert "# INFEASIBLE" in (tmp_path / "s" / OUTPUT.TUNE_TOML).read_text()


def test_cli_file_request(tmp_path):
    """A TOML file holds the same fields as the options; options replace them."""
    spec = tmp_path / "study.toml"
    spec.write_text('config = "ningbo-3baida"\ntarget = ["win_rate=0.5..0.99"]\n'
                    'vary = { "win.min_tai" = [4, 5] }\ntrials = 2\ndeals = 300\nseed = 2\n'
                    'confirm_top = 1\n', encoding="utf-8")
    r = CliRunner().invoke(cli, ["tune", "--file", str(spec), "--deals", "400", "--out",
                                 str(tmp_path / "s"), "--workers", "2"])
    assert r.exit_code == 0, r.output
    assert "2 trials" in r.output and "of 400 deals, seed 2" in r.output
    assert "recommended: win.min_tai=" in r.output and "tune.toml" in r.output
    bad = tmp_path / "bad.toml"
    bad.write_text('config = "ningbo-3baida"\ntargets = ["win_rate=0.5..0.9"]\n')
    r = CliRunner().invoke(cli, ["tune", "--file", str(bad), "--out", str(tmp_path / "b")])
    assert r.exit_code == 2 and "unknown key 'targets'; allowed: config, target" in r.output


BAD = [
    (["--target", "win_pct=0.1..0.2", "--vary", "win.min_tai=3..5"],
     "unknown statistic 'win_pct'; allowed: win_rate, wall_exhausted_rate"),
    (["--target", "win_rate=0.9..0.95", "--vary", "win.nope=1..3"], "unknown key 'nope'"),
    (["--target", "win_rate=0.9..0.95", "--vary", "wilds.wilds=1..3"],
     "a range LOW..HIGH needs a whole-number option, and wilds.wilds is text"),
    (["--target", "win_rate=0.9..0.95", "--vary", "win.min_tai=3.5..6"],
     "LOW..HIGH or LOW..HIGH:STEP of whole numbers"),
    (["--target", "win_rate=0.9..0.95", "--vary", "win.min_tai=30..120"],
     "the config schema refuses win.min_tai=120"),
    (["--target", "win_rate=0.9..0.95", "--vary", "win.min_tai=30..50"],
     "the config schema refuses win.min_tai=50: no hand can win: win.min_tai is 50 but the "
     "most tai any hand can count toward it is 38"),
    (["--target", "win_rate=0.9..0.95", "--vary", "win.min_tai=4..5", "--styles",
      "lookahead"], "lookahead searches at every decision (about one deal per second per "
                    "core): give its deals, e.g. lookahead@600"),
    (["--target", "win_rate=0.9..0.95", "--vary", "win.min_tai=4..5", "--styles",
      "value,value"], "--styles: 'value' is given twice"),
    (["--target", "win_rate=0.9..0.95", "--vary", "win.min_tai=4..5", "--styles",
      "value@many"], "the deals after @ must be a whole number"),
    (["--target", "win_rate=0.9..0.95", "--vary", "wilds.wilds=3baida,8baida"],
     "the config schema refuses wilds.wilds=8baida"),
    (["--target", "win_rate=0.9..0.95", "--target", "wall_exhausted_rate=0.2..0.3",
      "--vary", "win.min_tai=3..5"], "contradictory targets: wall_exhausted_rate in [0.2, 0.3] "
                                     "and win_rate in [0.9, 0.95] cannot both hold"),
    (["--target", "win_rate=0.95..0.9", "--vary", "win.min_tai=3..5"],
     "LOW 0.95 is above HIGH 0.9"),
    (["--target", "win_rate=90..95", "--vary", "win.min_tai=3..5"], "is a rate, a fraction"),
    (["--target", "win_rate=0.9..0.95", "--target", "win_rate=0.8..",
      "--vary", "win.min_tai=3..5"], "win_rate has a target already"),
    (["--target", "mean_fan=3..5", "--vary", "win.min_tai=3..5"],
     "ningbo-3baida has no statistic 'mean_fan'"),
    (["--target", "win_rate=0.9..0.95", "--vary", "win.min_tai=5..5"],
     "LOW 5 must be below HIGH 5"),
    (["--target", "win_rate=0.9..0.95", "--vary", "win.min_tai=3..5", "--set",
      "win.min_tai=4"], "also set by --set"),
    (["--target", "win_rate=0.9..0.95"], "at least one --vary"),
    ([*(x for s in "ESWN" for x in ("--target", f"net_{s}=1..2")), "--vary",
      "win.min_tai=3..5"], "net_W in [1, 2] and net_N in [1, 2] cannot all hold (net_E + net_S "
                           "+ net_W + net_N = 0"),
    (["--target", "win_rate=..0.5", "--target", "win_E=0.3..0.4", "--target", "win_S=0.3..0.4",
      "--vary", "win.min_tai=3..5"], "win_S in [0.3, 0.4] and win_rate <= 0.5 cannot all hold "
                                     "(win_E + win_S + win_W + win_N = win_rate"),
    (["--target", "win_rate=0.9..0.95", "--vary", "name=a,b"],
     "--vary name: a label of the config, not a rule option: it changes neither play nor "
     "scoring; vary an option of wall, wilds, flowers, claims, win, scoring, payments"),
    (["--target", "win_rate=0.9..0.95", "--vary", "description=a,b"], "--vary description: a "
                                                                     "label of the config"),
    (["--target", "win_rate=0.9..0.9", "--vary", "win.min_tai=3..5"],
     "LOW and HIGH are both 0.9: a range of width 0 never holds a 95% interval"),
]


@pytest.mark.parametrize("argv, message", BAD, ids=[m[:30] for _, m in BAD])
def test_bad_input_one_clear_error(tmp_path, argv, message):
    out = tmp_path / "s"
    r = CliRunner().invoke(cli, ["tune", "ningbo-3baida", *argv, "--trials", "2", "--deals",
                                 "100", "--out", str(out)])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), r.output
    assert message in lines[0], lines[0]
    assert "Traceback" not in r.output and not out.exists()      # refused before any run


def test_targets_and_keys_parse():
    rs = nbsim.load_rules("ningbo-3baida")
    tg = TARGETS.parse_targets({"win_rate": [0.9, None], "mean_score": "..5.5"}, rs)
    assert [(t.key, t.low, t.high, t.kind) for t in tg] == [
        ("win_rate", 0.9, None, "rate"), ("mean_score", None, 5.5, "mean")]
    assert tg[0].verdict(0.91, 0.93) == TARGETS.MEETS
    assert tg[0].verdict(0.89, 0.91) == TARGETS.MAY_MEET
    assert tg[0].verdict(0.85, 0.89) == TARGETS.MISSES
    keys = SPEC.parse_search({"payments.cap": "50..200:50", "claims.allow_chow": [True, False]},
                          "ningbo-3baida")
    assert keys[0].values == ["50", "100", "150", "200"] and keys[0].own == "1000"
    assert keys[1].values == ["true", "false"] and keys[1].own == "true"
    with pytest.raises(ConfigError, match="not a multiple of STEP"):
        SPEC.parse_search(["payments.cap=50..200:40"], "ningbo-3baida")


def test_run_folder_is_not_a_study_folder(tmp_path):
    run = tmp_path / "run"
    nbsim.simulate("ningbo-3baida", deals=50, seed=1, out=run, workers=1)
    with pytest.raises(RunError, match="is a run folder .manifest.json.; a tune study needs a "
                                       "folder of its own"):
        T.tune("ningbo-3baida", ["win_rate=0.5..1"], ["win.min_tai=3..4"], trials=2,
               deals=100, out=run)
    assert sorted(p.name for p in run.iterdir() if p.name.startswith("study")) == []


def test_own_settings_compete_in_the_confirmation(tmp_path):
    """The variant's own settings (min_tai 4, not searched) meet the target
    on the confirmation while the searched ones miss: they are recommended,
    the targets are not called infeasible, and tune.toml keeps min_tai 4."""
    res = T.tune("ningbo-3baida", ["win_rate=0.90..0.985"], ["win.min_tai=3,8"], trials=2,
                 deals=400, seed=SEED, out=tmp_path / "s", workers=2, confirm_deals=800)
    assert res.recommended == {"win.min_tai": "4"} and res.recommended_run == 0
    assert res.feasible and res.verdicts == {"win_rate": TARGETS.MEETS}
    assert "recommended: the variant's own settings (win.min_tai=4)" in res.text
    assert "INFEASIBLE" not in res.text
    toml = (tmp_path / "s" / OUTPUT.TUNE_TOML).read_text()
    assert "min_tai = 4" in toml and "its own settings" in toml


def test_own_settings_played_once(tmp_path):
    """A searched setting equal to the variant's own is not played twice in
    the confirmation: the next best setting takes its place."""
    res = T.tune("ningbo-3baida", ["win_rate=0.90..0.985"], ["win.min_tai=4,5"], trials=2,
                 deals=400, seed=SEED, out=tmp_path / "s", workers=2, confirm_deals=400)
    assert sorted(p.name for p in (tmp_path / "s" / T.CONFIRM_DIR).iterdir()) == [
        "own", "win.min_tai=5"]
    assert res.candidates == [{"win.min_tai": "5"}] and len(res.confirmation.runs) == 2


def test_pruning_interval_is_valid_at_zero(tmp_path):
    """A rate of 0 after the first look has standard error 0, but its
    Wilson interval still reaches into a small target range: the trials are
    not pruned (the normal approximation pruned them all)."""
    row = {"kind": "rate", "n": 100, "count": 0, "estimate": 0.0, "se": 0.0}
    lo, hi = TARGETS.prune_interval(row, 0.99)
    assert lo == 0.0 and hi > 0.05
    res = T.tune("ningbo-3baida", ["robbing_rate=0.002..0.004"], ["win.min_tai=4,5"], trials=2,
                 deals=400, seed=SEED, out=tmp_path / "s", workers=2, confirm_deals=400)
    assert res.trials["state"].to_list() == ["complete", "complete"]
    assert res.trials["deals"].to_list() == [400, 400]


def test_ctrl_c_in_the_confirmation(tmp_path, monkeypatch):
    """Ctrl-C during the confirmation stops it at once, keeps its finished
    shards and says how to continue (exit 130, as in the search); --resume
    completes it."""
    out = tmp_path / "s"
    argv = ["tune", "ningbo-3baida", "--target", "win_rate=0.5..1", "--vary",
            "win.min_tai=3,4", "--trials", "2", "--deals", "200", "--seed", str(SEED),
            "--confirm-deals", "400", "--confirm-top", "1", "--workers", "1", "--out", str(out)]
    real, calls = SIM.simulate, []

    def flaky(config, **kw):
        if kw.get("seed") == SEED + 1:
            calls.append(kw["deals"])
            if len(calls) == 2:             # the own run's second shard
                raise KeyboardInterrupt
        return real(config, **kw)

    monkeypatch.setattr(SIM, "simulate", flaky)
    r = CliRunner().invoke(cli, argv)
    assert r.exit_code == 130, r.output
    assert "interrupted during the confirmation" in r.output
    assert "continue with --resume" in r.output and "Aborted" not in r.output
    assert calls == [50, 100]               # stopped at once, the other run not started
    m = FILES.read_manifest(out / T.CONFIRM_DIR / T.OWN)
    assert m["deals_done"] == 50                # its first shard kept
    monkeypatch.setattr(SIM, "simulate", real)
    r = CliRunner().invoke(cli, [*argv, "--resume"])
    assert r.exit_code == 0, r.output
    m = FILES.read_manifest(out / T.CONFIRM_DIR / T.OWN)
    assert m["deals_done"] == 400 and m["resumed"]


def test_one_process_per_study(tmp_path):
    """A second tune of a study folder another process is writing is
    refused up front: its --overwrite does not delete the running study."""
    from nbsim.run.lock import RunLock
    out = tmp_path / "s"
    out.mkdir()
    (out / STUDY.STUDY_DB).write_text("the running study")
    with RunLock(out, "nbsim tune", file=T.STUDY_LOCK), pytest.raises(
            RunError, match=r"is being written by process \d+ \(nbsim tune"):
        T.tune("ningbo-3baida", ["win_rate=0.5..1"], ["win.min_tai=3..4"], trials=2,
               deals=100, out=out, overwrite=True)
    assert (out / STUDY.STUDY_DB).read_text() == "the running study"


def test_file_config_path_is_relative_to_the_file(tmp_path, monkeypatch):
    """A relative config path in a --file request is read from the file's
    folder, not the working folder; a shipped name stays a name."""
    seen = []

    def fake(config, targets, vary, **kw):
        seen.append(config)
        raise RunError("stop here")

    monkeypatch.setattr(T, "tune", fake)
    (tmp_path / "sub").mkdir()
    for cfg, want in [("variants/mine.toml", str(tmp_path / "sub" / "variants" / "mine.toml")),
                      ("ningbo-3baida", "ningbo-3baida")]:
        spec = tmp_path / "sub" / "study.toml"
        spec.write_text(f'config = "{cfg}"\ntarget = ["win_rate=0.5..0.99"]\n'
                        f'vary = ["win.min_tai=4,5"]\n', encoding="utf-8")
        r = CliRunner().invoke(cli, ["tune", "--file", str(spec), "--out", str(tmp_path / "s")])
        assert "stop here" in r.output and seen[-1] == want


def test_resume_messages_and_old_policy_specs(tmp_path):
    """--resume: a study whose policy specs lack a parameter added since
    (defend's hold, whose ``before`` is 0) continues as defend:hold=0, and
    is refused for today's defend (hold 0.15); a changed config is said to
    be one; a different policy is shown once for the four seats."""
    import tomli_w
    cfg = tmp_path / "mine.toml"
    rules = nbsim.load_rules("ningbo-3baida").to_dict()
    cfg.write_text(tomli_w.dumps(rules), encoding="utf-8")
    out = tmp_path / "s"

    def run(**kw):
        args = dict(trials=2, deals=100, seed=SEED, out=out, workers=2, confirm_top=1,
                    confirm_deals=100, policy="defend:hold=0") | kw
        return T.tune(str(cfg), ["win_rate=0.5..1"], ["win.min_tai=4,5"], **args)

    run()
    study = optuna.load_study(study_name=STUDY.STUDY_NAME,
                              storage=f"sqlite:///{out / STUDY.STUDY_DB}")
    ident = study.user_attrs["identity"]
    old = [p.replace(":hold=0", "") for p in ident["policies"]]
    assert old != ident["policies"]
    study.set_user_attr("identity", ident | {"policies": old})     # written before hold
    assert run(resume=True).trials.height == 2
    with pytest.raises(RunError, match=r"policies is defend:\S*:hold=0.15 \(every seat\), "
                                       r"the study's is defend:\S*:hold=0 \(every seat\)"):
        run(resume=True, policy="defend")
    with pytest.raises(RunError) as e:
        run(resume=True, policy="defend:caution=0.8")
    assert str(e.value).count("defend:") == 2 and "(every seat)" in str(e.value)
    cfg.write_text(tomli_w.dumps(rules | {"win": rules["win"] | {"min_tai": 3}}))
    with pytest.raises(RunError, match=r"the content of config '.*mine.toml' changed since "
                                       r"the study started"):
        run(resume=True)


def test_compile_notice_once(tmp_path, monkeypatch, capsys):
    """Two trial threads starting on kernels not yet compiled: the compile
    notice is printed once."""
    import time

    from nbsim import warmup
    done: set[str] = set()
    monkeypatch.setattr(warmup, "is_compiled", lambda group: group in done)

    def compile_groups(todo, bar):
        time.sleep(0.2)
        done.update(todo)
        return 0
    monkeypatch.setattr(warmup, "_compile_in_processes", compile_groups)
    T.tune("ningbo-3baida", ["win_rate=0.5..1"], ["win.min_tai=4,5"], trials=2, deals=100,
           seed=SEED, out=tmp_path / "s", workers=2, confirm_top=1, confirm_deals=100,
           progress=False)
    assert capsys.readouterr().err.count("compiling the game kernels") == 1


def test_untried_settings_are_not_infeasible(tmp_path):
    """A study that tried 2 of the 4 settings and found none meeting the
    targets does not call them infeasible: it says how many it tried and
    how many it did not; resumed to every setting, it does."""
    kw = dict(deals=400, seed=SEED, out=tmp_path / "s", workers=2, confirm_top=1,
              confirm_deals=400)
    res = T.tune("ningbo-3baida", ["win_rate=0.01..0.02"], ["win.min_tai=5..8"], trials=2, **kw)
    assert not res.feasible and not res.exhausted
    assert (res.settings_tried, res.settings_total) == (2, 4)
    assert "INFEASIBLE" not in res.text
    assert "none of the 2 settings tried meets or may meet every target" in res.text
    assert "2 of the 4 settings of the searched ranges not tried (raise --trials to 4" in res.text
    data = json.loads((tmp_path / "s" / OUTPUT.TUNE_JSON).read_text())
    assert data["exhausted"] is False and data["settings_tried"] == 2
    toml_text = (tmp_path / "s" / OUTPUT.TUNE_TOML).read_text()
    assert "# NOT FOUND: none of the 2 settings tried" in toml_text
    assert res.styles == [] and not res.robust          # nothing to check under other styles
    res = T.tune("ningbo-3baida", ["win_rate=0.01..0.02"], ["win.min_tai=5..8"], trials=4,
                 resume=True, **kw)
    assert res.exhausted and res.settings_tried == 4
    assert "INFEASIBLE within the searched ranges: every one of the 4 settings was tried" \
        in res.text


def test_own_settings_in_the_ranges_count_as_tried(tmp_path):
    """The confirmation plays the variant's own settings (min_tai 4): when
    they lie in the searched ranges they count among the settings tried."""
    res = T.tune("ningbo-3baida", ["win_rate=0.01..0.02"], ["win.min_tai=3..5"], trials=2,
                 deals=400, seed=SEED, out=tmp_path / "s", workers=2, confirm_top=1,
                 confirm_deals=400)
    searched = set(res.trials["win.min_tai"].to_list())
    assert res.settings_tried == len(searched | {"4"}) and res.settings_total == 3


def test_styles_parse():
    from nbsim.policy_specs import parse_policy
    full = [parse_policy(s).full for s in ("value", "defend", "defend:caution=0.9")]
    assert SPEC.parse_styles(None, None, 800) == (tuple(full), (800, 800, 800))
    assert SPEC.parse_styles("none", None, 800) == ((), ())
    assert SPEC.parse_styles("value, lookahead@50", 300, 800) == (
        (full[0], parse_policy("lookahead").full), (300, 50))
    with pytest.raises(RunError, match="give its deals, e.g. lookahead:samples=8@600"):
        SPEC.parse_styles(["value", "lookahead:samples=8"], None, 800)


def test_recommendation_checked_under_each_style(tmp_path):
    """The recommended settings are played under each play style (every
    seat the style, the confirmation's seed, --style-deals deals), each
    style's figures with 95% intervals beside the targets; robust only
    when it meets them under every style, and the verdict names the styles
    it holds for, in the text, tune.json, tune.md, tune.html and tune.toml."""
    from nbsim.policy_specs import parse_policy
    out = tmp_path / "s"
    res = T.tune("ningbo-3baida", ["win_rate=0.5..1"], ["win.min_tai=4,5"], trials=2,
                 deals=400, seed=SEED, out=out, workers=2, confirm_top=1, confirm_deals=400,
                 styles="value,defend:caution=0.9", style_deals=300)
    assert [r["style"] for r in res.styles] == ["defend", "value", "defend:caution=0.9"]
    assert [r["deals"] for r in res.styles] == [400, 300, 300]
    rec_ovs = SPEC.point_overrides(res.spec.keys, res.recommended) if res.recommended_run else []
    for r in res.styles[1:]:
        m = FILES.read_manifest(r["run_dir"])
        assert m["policies"] == [parse_policy(r["style"]).full] * 4
        assert m["seed"] == SEED + 1 and m["deals_done"] == 300 and m["overrides"] == rec_ovs
        e, lo, hi = r["stats"]["win_rate"]
        assert 0.5 < lo <= e <= hi <= 1 and r["verdicts"] == {"win_rate": TARGETS.MEETS}
    assert res.robust and res.holds_for == ["defend", "value", "defend:caution=0.9"]
    assert ("robust: meets every target under every play style tried (defend, value, "
            "defend:caution=0.9)") in res.text
    assert "Play styles:" in res.text
    data = json.loads((out / OUTPUT.TUNE_JSON).read_text())
    assert data["robust"] is True and len(data["styles"]) == 3
    assert data["styles"][1]["stats"]["win_rate"] == res.styles[1]["stats"]["win_rate"]
    assert "## Play styles" in (out / OUTPUT.TUNE_MD).read_text()
    assert "Play styles" in (out / OUTPUT.TUNE_HTML).read_text()
    assert "# under value (300 deals): win_rate" in (out / OUTPUT.TUNE_TOML).read_text()
    # a style that misses: not robust, and the verdict says for which styles it holds
    res.styles[1] = res.styles[1] | {"verdicts": {"win_rate": TARGETS.MISSES}, "meets_all": False}
    assert not res.robust and res.holds_for == ["defend", "defend:caution=0.9"]
    from nbsim.analysis.tune.output import _styles_line
    line = _styles_line(res)[0]
    assert line.startswith("not robust: meets every target under defend, defend:caution=0.9 "
                           "only; value misses win_rate")
