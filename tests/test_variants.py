"""One's own variant (docs/variants.md): a config that extends a shipped one
and changes a few keys (tables merged, lists replaced), the worked example
of the docs played, and a config under which no hand can win refused with
the reason."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from nbsim.cli import cli
from nbsim.errors import ConfigError
from nbsim.rules.ruleset import load_rules, min_tai_bound, shipped_configs

DATA = Path(__file__).parent / "data"
DOCS = Path(__file__).parent.parent / "docs" / "variants.md"
EXAMPLE = DATA / "ningbo-strict.toml"


def test_docs_example_is_the_tested_file():
    """The worked example of docs/variants.md is the file the tests play."""
    blocks = re.findall(r"```toml\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert blocks and blocks[0] == EXAMPLE.read_text(encoding="utf-8")


def test_example_merges_over_its_base_and_plays(tmp_path):
    import nbsim
    base, rs = load_rules("ningbo-3baida"), load_rules(EXAMPLE)
    assert rs.name == "ningbo-strict" and len(rs.extends) == 1
    assert Path(rs.extends[0]).samefile(base.source)
    assert rs.config.win.min_tai == 5 and rs.config.scoring.tai["self_drawn"] == 2
    # everything the file does not say comes from the base
    assert rs.config.scoring.tai["all_pungs"] == base.config.scoring.tai["all_pungs"] == 2
    assert rs.config.payments == base.config.payments
    assert rs.config.win.discard_win_wild_rule == "forbid_wild_pair"
    assert len(rs.config.sources) == 2                  # a list is replaced whole
    assert rs.hash != base.hash
    import polars as pl

    from nbsim.run.files import scan_run
    nbsim.simulate(EXAMPLE, deals=60, seed=5, out=tmp_path / "run", mode="game", workers=1,
                   progress=False)
    wins = scan_run(tmp_path / "run").filter(pl.col("winner").is_not_null()).collect()
    assert wins.height > 0 and wins["tai"].min() >= 5


def test_chain_tables_lists_and_own_keys(tmp_path):
    (tmp_path / "house").mkdir()
    (tmp_path / "house" / "base.toml").write_text(
        'extends = "ningbo-3baida"\nname = "base"\ndescription = "the base"\n'
        '[win]\nallowed_patterns = ["all_pungs", "full_flush"]\n'
        '[flowers.seat_flowers]\nE = ["1f"]\n', encoding="utf-8")
    (tmp_path / "mine.toml").write_text(
        'extends = "house/base.toml"\nname = "mine"\n'
        '[win]\nallowed_patterns = ["half_flush"]\n[payments]\ncap = 500\n', encoding="utf-8")
    rs = load_rules(tmp_path / "mine.toml")
    assert rs.config.win.allowed_patterns == ["half_flush"]           # replaced, not appended
    assert rs.config.flowers.seat_flowers["E"] == ["1f"]              # from the middle file
    assert rs.config.flowers.seat_flowers["S"] == ["2f", "6f"]        # from the shipped one
    assert rs.config.payments.cap == 500 and rs.config.payments.base_points == 1
    assert rs.config.description == ""                                # not inherited
    assert [Path(p).name for p in rs.extends] == ["base.toml", "ningbo-3baida.toml"]
    r = CliRunner().invoke(cli, ["rules", str(tmp_path / "mine.toml")])
    assert r.exit_code == 0, r.output
    assert "# extends " in r.output and "base.toml <-" in r.output   # long paths wrap after "<-"
    assert '#   payments.cap = 500 (base: 1000)' in r.output
    assert '#   win.allowed_patterns = ["half_flush"] (base: ["all_pungs", "full_flush"])' \
        in r.output
    j = json.loads(CliRunner().invoke(cli, ["rules", str(tmp_path / "mine.toml"),
                                            "--json"]).output)
    assert len(j["extends"]) == 2 and j["rules"]["payments"]["cap"] == 500


@pytest.mark.parametrize("text, message", [
    ('extends = "ningbo-3baida"\nname = "x"\n[win]\nmin_tia = 5\n',
     ["x.toml", "unknown key 'win.min_tia'", "allowed in [win]: min_tai"]),
    ('extends = "ningbo-3baida"\n[win]\nmin_tai = 5\n', ["needs its own name"]),
    ('extends = "ningbo-9baida"\nname = "x"\n', ["no such file", "shipped configs: ningbo-3baida"]),
    ('extends = 3\nname = "x"\n', ["extends must be the name of a shipped config"]),
    ('extends = "x.toml"\nname = "x"\n', ["extends makes a loop"]),
])
def test_bad_extends_one_clear_error(tmp_path, text, message):
    p = tmp_path / "x.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_rules(p)
    assert all(m in str(e.value) for m in message), str(e.value)
    assert "\n" not in str(e.value)


def test_no_hand_can_win_is_refused(tmp_path):
    """The reported file (a name and a minimum, no tai items) is refused,
    saying why; so is a minimum above the largest tai the items allow."""
    p = tmp_path / "mine.toml"
    p.write_text('name = "mine"\n[win]\nmin_tai = 5\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"no hand can win: win.min_tai is 5 but "
                                          r"\[scoring.tai\] lists no item"):
        load_rules(p)
    r = CliRunner().invoke(cli, ["rules", str(p)])
    assert r.exit_code == 2 and "no hand can win" in r.output and "Traceback" not in r.output
    bound, terms = min_tai_bound(load_rules("ningbo-3baida").config)
    with pytest.raises(ConfigError, match=rf"--set 'win.min_tai={bound + 1}': no hand can win.* "
                                          rf"the most tai any hand can count toward it is "
                                          rf"{bound} \(one wait item 1 \+"):
        load_rules("ningbo-3baida", [f"win.min_tai={bound + 1}"])
    assert load_rules("ningbo-3baida", [f"win.min_tai={bound}"]).config.win.min_tai == bound
    with pytest.raises(ConfigError, match="most fan any hand can count toward it is 3"):
        load_rules("ninghai", ["win.min_tai=4"])
    assert load_rules("ninghai", ["win.min_tai=3"]).config.win.min_tai == 3
    for name in shipped_configs():          # every shipped variant can be won
        rs = load_rules(name)
        assert min_tai_bound(rs.config)[0] >= rs.config.win.min_tai


def test_bound_is_above_a_real_big_hand():
    """The bound is never below what a hand scores: a heavenly all-honours
    hand with three dragon pungs, the seat and round wind and all eight
    flowers scores 33 tai; the bound is at least that (and not far above),
    and a minimum of 33 accepts that hand as a win."""
    from nbsim.rules.scorer import score_hand
    hand = dict(hand="555z666z777z11z22z", win_tile="1z", win_by="self_draw", seat="E",
                round_wind="E", indicator="9m", flowers="1f2f3f4f5f6f7f8f",
                context=["heavenly"])
    r = score_hand("ningbo-3baida", **hand)
    assert r.win and r.tai == 33
    bound = min_tai_bound(load_rules("ningbo-3baida").config)[0]
    assert 33 <= bound <= 33 + 5
    assert score_hand("ningbo-3baida", overrides=["win.min_tai=33"], **hand).win
