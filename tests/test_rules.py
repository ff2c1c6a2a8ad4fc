"""Variant configs (docs/rules.md §9): the shipped files, validation errors
that name the file, the key and what is allowed, --set overrides, and
``nbsim rules``."""
import tomllib

import pytest

from nbsim.cli import cli
from nbsim.errors import ConfigError
from nbsim.kernels import codes as C
from nbsim.rules.ruleset import (
    _TABLE_MODELS,
    CONFIG_DIR,
    RuleSet,
    as_rules,
    from_dict,
    load_rules,
    shipped_configs,
)

VARIANTS = ["ningbo-3baida", "ningbo-3baida-tianyi", "ningbo-7baida", "ningbo-tongchengyou",
            "ninghai"]


def _data(name):
    return tomllib.loads((CONFIG_DIR / f"{name}.toml").read_text(encoding="utf-8"))


def test_the_five_variants_are_shipped():
    assert shipped_configs() == sorted(VARIANTS)


def test_every_option_is_written_out(shipped_config):
    """Each shipped file names every option of every table (no silent defaults)."""
    name = shipped_config
    data = _data(name)
    for table, model in _TABLE_MODELS.items():
        node = data
        for part in table.split(".") if table else []:
            node = node[part]
        for key in model.model_fields:
            assert key in node, f"{name}: [{table or 'top level'}] lacks {key!r}"


def test_resolved_rules_round_trip_through_toml(shipped_config):
    rs = load_rules(shipped_config)
    again = from_dict(tomllib.loads(rs.to_toml()), source="round trip")
    assert again.hash == rs.hash
    assert (again.array == rs.array).all()
    assert rs.array.shape == (C.R_LEN,) and rs.array.dtype.name == "int64"


def test_names_work_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_rules("ningbo-7baida").config.wilds.wilds == "7baida"


def _bad(tmp_path, edit):
    """Write a copy of ningbo-3baida.toml with ``edit`` applied; load it."""
    text = (CONFIG_DIR / "ningbo-3baida.toml").read_text(encoding="utf-8")
    path = tmp_path / "variant.toml"
    path.write_text(edit(text), encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_rules(path)
    msg = str(e.value)
    assert msg.startswith(str(path)), msg
    return msg


@pytest.mark.parametrize("edit,needles", [
    (lambda t: t.replace("[win]\n", "[win]\nmin_tia = 4\n"),
     ["unknown key 'win.min_tia'", "allowed in [win]: min_tai, self_draw_only"]),
    (lambda t: t + "\n[extra]\nx = 1\n", ["unknown key 'extra'", "allowed in [top level]"]),
    (lambda t: t.replace("min_tai = 4", 'min_tai = "4"'),
     ["win.min_tai", "valid integer", "(got '4')"]),
    (lambda t: t.replace("min_tai = 4", "min_tai = -1"),
     ["win.min_tai", "greater than or equal to 0", "(got -1)"]),
    (lambda t: t.replace('wilds = "3baida"', 'wilds = "5baida"'),
     ["wilds.wilds", "'none', '3baida' or '7baida'", "(got '5baida')"]),
    (lambda t: t.replace("[scoring.tai]", "[scoring.tai]\nlucky_seven = 1 #", 1),
     ["unknown tai item 'lucky_seven'", "allowed: "]),
    (lambda t: t.replace("dice_throws = 1", "dice_throws = 3"),
     ["wall.dice_throws", "less than or equal to 2"]),
    (lambda t: t + "\n[win\n", ["TOML syntax error"]),
])
def test_file_errors_name_file_key_and_allowed(tmp_path, edit, needles):
    msg = _bad(tmp_path, edit)
    for n in needles:
        assert n in msg, msg


def test_seat_flowers_are_checked(tmp_path):
    msg = _bad(tmp_path, lambda t: t.replace('W = ["3f", "8f"]', 'W = ["3f", "2f"]'))
    assert "seat_flowers.W: '2f' is already a seat flower of S" in msg
    msg = _bad(tmp_path, lambda t: t.replace('W = ["3f", "8f"]', 'W = ["3f", "3z"]'))
    assert "'3z' is not one flower 1f-8f" in msg


def test_bad_paths():
    with pytest.raises(ConfigError, match="no such file or shipped config; shipped configs: "
                                          "ningbo-3baida, ningbo-3baida-tianyi"):
        load_rules("ningbo-9baida")
    with pytest.raises(ConfigError, match="is not a file"):
        load_rules(CONFIG_DIR)


def test_overrides_apply_validate_and_change_the_hash():
    base = load_rules("ningbo-3baida")
    five = load_rules("ningbo-3baida", ["win.min_tai=5", "win.allowed_patterns=['all_pungs']"])
    assert five.config.win.min_tai == 5 and five.config.win.allowed_patterns == ["all_pungs"]
    assert five.overrides == ("win.min_tai=5", "win.allowed_patterns=['all_pungs']")
    assert five.hash != base.hash
    assert load_rules("ningbo-3baida", ["scoring.tai.seat_flower=2"]).config.scoring.tai[
        "seat_flower"] == 2


@pytest.mark.parametrize("ov,needle", [
    ("win.min_tai", "expected TABLE.KEY=VALUE"),
    ("win.min_tia=5", "unknown key 'min_tia' in [win]; allowed: min_tai"),
    ("winn.min_tai=5", "unknown table 'winn'; allowed: wall, wilds"),
    ("scoring.tai.lucky=1", "unknown item 'lucky' in [scoring.tai]"),
    ("win.min_tai=abc", "--set 'win.min_tai=abc': win.min_tai: Input should be a valid integer"),
    ("win.min_tai=-3", "--set 'win.min_tai=-3': win.min_tai: Input should be greater than"),
])
def test_override_errors(ov, needle):
    with pytest.raises(ConfigError) as e:
        load_rules("ningbo-3baida", [ov])
    assert needle in str(e.value), str(e.value)


def test_as_rules():
    rs = load_rules("ninghai")
    assert as_rules(rs) is rs
    assert isinstance(as_rules("ninghai"), RuleSet)
    with pytest.raises(ConfigError, match="overrides cannot be applied"):
        as_rules(rs, ["win.min_tai=5"])


def test_rules_command(runner):
    r = runner.invoke(cli, ["rules", "ningbo-7baida", "--set", "win.min_tai=5"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("# ningbo-7baida from ")
    assert "# --set win.min_tai=5" in r.output
    body = tomllib.loads(r.output)
    assert body["win"]["min_tai"] == 5 and body["wilds"]["wilds"] == "7baida"
    r = runner.invoke(cli, ["rules", "ningbo-3baida", "--set", "win.min_tai=abc"])
    assert r.exit_code == 2
    assert "Traceback" not in r.output
    assert r.output.strip().splitlines()[-1].startswith("Error: ")
