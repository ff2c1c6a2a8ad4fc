"""The public functions at their edges: a string where a sequence is
expected is one item (or a clear refusal), never split into characters; and
wrong types or values give an NbsimError, never another exception
(hypothesis, bounded and quick: no input it draws starts a simulation)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nbsim
from nbsim.errors import ConfigError, NbsimError, RunError

HAND = "234m567p345s67s55m"
WRONG = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=True),
                  st.integers(max_value=-1), st.integers(min_value=2**70),
                  st.text(max_size=4), st.binary(max_size=3),
                  st.lists(st.integers(), min_size=1, max_size=2),
                  st.dictionaries(st.text(max_size=2), st.integers(), min_size=1, max_size=1),
                  st.builds(object))
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _only_nbsim_errors(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except NbsimError as e:
        assert str(e) and "\n" not in str(e).strip()
    # any other exception fails the test with its traceback


# ------------------------------------------------------------------ strings as sequences
def test_one_string_is_one_item(tmp_path):
    rs = nbsim.load_rules("ningbo-3baida", overrides="win.min_tai=5")
    assert rs.config.win.min_tai == 5 and rs.overrides == ("win.min_tai=5",)
    r = nbsim.score_hand("ningbo-3baida", "234m567p55m67s", "8s", melds="pung:777z",
                         win_by="self_draw", indicator="9m", context="last_tile",
                         overrides="win.min_tai=1")
    assert r.win and r.items["dragon_pung"] == 1 and r.items["last_tile_draw"] == 1
    with pytest.raises(RunError, match=r"at least 2 run folders, got 1 \('runs/a'\)"):
        nbsim.compare("runs/a")
    # one policy spec is the policy of every seat
    res = nbsim.simulate("ningbo-3baida", mode="game", deals=5, seed=1, out=tmp_path / "p",
                         policies="value", progress=False)
    assert res.deals_done == 5
    rec = nbsim.replay("ningbo-3baida", 1, 1, policies="value")
    assert [rec.row[f"policy_{s}"] for s in "eswn"] == ["value"] * 4
    with pytest.raises(RunError, match="give 4 policies"):
        nbsim.replay("ningbo-3baida", 1, 1, policies=("value", "greedy"))
    with pytest.raises(RunError, match="summarize needs a run folder.*got None"):
        nbsim.summarize(None)
    with pytest.raises(ConfigError, match="expected a shipped config name"):
        nbsim.load_rules(None)
    with pytest.raises(ConfigError, match="overrides: expected text or a list"):
        nbsim.load_rules("ningbo-3baida", overrides=5)


# ------------------------------------------------------------------ wrong types and values
@SETTINGS
@given(WRONG)
def test_load_rules(v):
    _only_nbsim_errors(nbsim.load_rules, v)
    _only_nbsim_errors(nbsim.load_rules, "ningbo-3baida", overrides=v)


@SETTINGS
@given(st.sampled_from(["config", "hand", "win_tile", "melds", "win_by", "seat", "round_wind",
                        "indicator", "flowers", "context", "discarder", "fed", "kong_from",
                        "overrides"]), WRONG)
def test_score_hand(field, v):
    kw = dict(config="ningbo-3baida", hand=HAND, win_tile="8s", indicator="9m")
    kw[field] = v
    cfg, hand, tile = kw.pop("config"), kw.pop("hand"), kw.pop("win_tile")
    _only_nbsim_errors(nbsim.score_hand, cfg, hand, tile, **kw)


@SETTINGS
@given(st.sampled_from(["config", "deals", "seed", "out", "mode", "policies", "overrides",
                        "workers", "shard_size"]), WRONG)
def test_simulate(tmp_path, field, v):
    # deals stays 0 unless it is the field drawn, and every WRONG value is an
    # invalid deal count too: nothing is ever simulated
    kw = dict(config="ningbo-3baida", deals=0, seed=1, out=tmp_path / "run", mode="game")
    kw[field] = v
    cfg = kw.pop("config")
    _only_nbsim_errors(nbsim.simulate, cfg, **kw)


@SETTINGS
@given(WRONG)
def test_reports(v):
    _only_nbsim_errors(nbsim.summarize, v)
    _only_nbsim_errors(nbsim.compare, v)
    _only_nbsim_errors(nbsim.compare, [v, v])


@SETTINGS
@given(st.sampled_from(["config", "seed", "deal", "policies"]), WRONG)
def test_replay(field, v):
    kw = dict(config="ningbo-3baida", seed=1, deal=-1, policies=("value",) * 4)
    kw[field] = v
    _only_nbsim_errors(nbsim.replay, kw["config"], kw["seed"], kw["deal"], kw["policies"])


@SETTINGS
@given(st.sampled_from(["config", "a", "b", "deals", "seed"]), WRONG)
def test_duel(field, v):
    kw = dict(config="ningbo-3baida", a="value", b="greedy", deals=1, seed=1)
    kw[field] = v
    _only_nbsim_errors(nbsim.duel, kw["config"], kw["a"], kw["b"], kw["deals"], kw["seed"])


@SETTINGS
@given(st.sampled_from(["config", "vary", "deals", "seed", "out", "mode", "policies",
                        "overrides"]), WRONG)
def test_sweep(tmp_path, field, v):
    kw = dict(config="ningbo-3baida", vary="win.min_tai=9,nine", deals=0, seed=1,
              out=tmp_path / "sw")
    kw[field] = v
    cfg, vary = kw.pop("config"), kw.pop("vary")
    _only_nbsim_errors(nbsim.sweep, cfg, vary, **kw)
