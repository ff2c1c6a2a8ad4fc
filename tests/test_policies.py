"""The policy table and policy specs (nbsim.policy_specs, kernels/policies/catalog.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import nbsim
from nbsim.cli import cli
from nbsim.errors import RunError
from nbsim.kernels.jit import KernelOnly
from nbsim.kernels.policies import catalog as T
from nbsim.kernels.policies.catalog import DEFAULT_POLICY
from nbsim.policy_specs import (
    Policy,
    as_policies,
    describe,
    kernel_arrays,
    label,
    parse_policies,
    parse_policy,
)
from nbsim.rules.ruleset import load_rules


def test_table_is_consistent():
    names = [p.name for p in T.POLICY_TABLE]
    assert len(set(names)) == len(names) and DEFAULT_POLICY in names
    for i, spec in enumerate(T.POLICY_TABLE):
        assert T.code_of(spec.name) == i
        for j, p in enumerate(spec.params):
            assert p.lo <= p.default <= p.hi, (spec.name, p)
            assert T.param_index(spec.name, p.name) == j


def test_every_policy_module_has_the_four_decisions():
    import importlib
    for spec in T.POLICY_TABLE:
        m = importlib.import_module(f"nbsim.kernels.policies.{spec.module}")
        for d in T.DECISIONS:
            f = getattr(m, d)
            assert callable(f), (spec.name, d)
            # kernels only call it: no Python wrappers to compile (registry.py)
            assert isinstance(f, KernelOnly), (spec.name, d)
            assert f.targetoptions.get("no_cpython_wrapper") is True, (spec.name, d)
            with pytest.raises(TypeError, match="compiled for other kernels only"):
                f()


def test_decision_argtypes_are_what_numba_infers_for_the_engine_calls(tables):
    """``decisions.decision_argtypes`` works out the decisions' argument
    types without compiling: they are the types numba infers for the
    arguments the engine's ``ask_*`` pass (compiled here, as the slow
    reference)."""
    import numba

    from nbsim.kernels.engine import decisions as ED
    from nbsim.kernels.engine.state import new_state
    from nbsim.kernels.jit import njit
    from nbsim.kernels.ref import RefType

    @njit(no_cpython_wrapper=True)
    def args(rules, tables, g, pols):
        v = ED.make_view(rules, tables, g, np.int64(0), pols)
        return (v, pols.params[0], g.prng[0], g.pscr, g.opts, g.allowed, g.chow_ok,
                np.int64(0), np.bool_(False))

    rules = load_rules("ningbo-3baida").array
    pols = kernel_arrays(parse_policies(policies="random,random,random,random"), rules, tables)
    sig = tuple(numba.typeof(x) for x in (rules, tables, new_state(), pols))
    args.compile(sig)
    v, params, prng, scr, opts, allowed, chow_ok, i, b = args.overloads[sig].signature.return_type
    v, scr = RefType(v), RefType(scr)
    assert ED.decision_argtypes(*sig) == ((v, params, prng, scr, i, i),
                                          (v, params, prng, scr, opts, i),
                                          (v, params, prng, scr, i, b, b, chow_ok),
                                          (v, params, prng, scr, allowed))


@pytest.mark.parametrize("text,name,spec,full", [
    ("value", "value", "value", "value"),
    ("defend", "defend", "defend", None),
    ("defend:caution=0.8", "defend", "defend:caution=0.8", None),
    (" defend : caution = 0.8 : bind=0 ", "defend", "defend:caution=0.8:bind=0", None),
])
def test_parse_policy(text, name, spec, full):
    p = parse_policy(text)
    assert p.name == name and p.spec == spec
    defaults = {q.name: q.default for q in T.POLICY_TABLE[T.code_of(name)].params}
    assert [k for k, _ in p.params] == list(defaults)
    if full is not None:
        assert p.full == full
    # the full text parses back to the same policy
    assert parse_policy(p.full) == p and parse_policy(p.spec) == p


@pytest.mark.parametrize("text,msg", [
    ("smart", "unknown policy 'smart'; allowed: random, greedy, value, defend"),
    ("defend:cautoin=0.5", "has no parameter 'cautoin'; its parameters: caution"),
    ("defend:caution=2", "caution must be a number 0 .. 1"),
    ("defend:caution=x", "caution must be a number 0 .. 1"),
    ("defend:caution", "must be key=value"),
    ("defend:caution=0.1:caution=0.2", "given twice"),
    ("value:caution=0.1", "has no parameter 'caution'; its parameters: none"),
    ("", "a policy must be a name"),
    # counts, switches and choices are whole numbers: a fraction is refused, not cut
    ("lookahead:samples=4.5", "samples must be a whole number 4 .. 1024"),
    ("lookahead:opponents=-0.5", "opponents must be a whole number -1 .. 3"),
    ("lookahead:claims=0.5", "claims must be a whole number 0 .. 1"),
    ("lookahead:playout=2.5", "playout must be a whole number 1 .. 3"),
])
def test_bad_specs_name_what_is_allowed(text, msg):
    with pytest.raises(RunError, match=msg.replace(".", r"\.").replace("(", r"\(")):
        parse_policy(text)


def test_parse_policies_and_api_forms():
    d = parse_policy(DEFAULT_POLICY)
    assert parse_policies() == (d,) * 4
    assert parse_policies("value") == (parse_policy("value"),) * 4
    four = parse_policies(policies="defend:caution=0.9,value,greedy,random")
    assert [p.spec for p in four] == ["defend:caution=0.9", "value", "greedy", "random"]
    with pytest.raises(RunError, match="either --policy or --policies"):
        parse_policies("value", "value,value,value,value")
    with pytest.raises(RunError, match="4 policies"):
        parse_policies(policies="value,greedy")
    # the Python API: one spec (never split into characters), four, or None
    assert as_policies("value") == (parse_policy("value"),) * 4
    assert as_policies(None) == (d,) * 4
    assert as_policies(["value", "greedy", "value", "greedy"])[1].name == "greedy"
    assert as_policies("value,greedy,value,greedy")[1].name == "greedy"
    assert as_policies(Policy("value")) == (Policy("value"),) * 4
    with pytest.raises(RunError, match="give 4 policies"):
        as_policies(("value",))
    with pytest.raises(RunError, match="a policy must be a name"):
        as_policies([1, 2, 3, 4])


def test_kernel_arrays_follow_the_table(tables):
    pols = parse_policies(policies="defend:caution=0.7:speed=0.5,value,random,defend")
    record = kernel_arrays(pols, load_rules("ningbo-3baida").array, tables)
    codes, params = record.codes, record.params
    assert isinstance(record, T.Policies)
    assert codes.dtype == np.int64 and params.shape == (4, T.MAX_PARAMS)
    assert codes.tolist() == [T.code_of(n) for n in ("defend", "value", "random", "defend")]
    assert params[0, T.param_index("defend", "caution")] == 0.7
    assert params[0, T.param_index("defend", "speed")] == 0.5
    assert (params[1] == 0).all()
    caution = next(p for p in T.POLICY_TABLE[T.code_of("defend")].params if p.name == "caution")
    assert params[3, 0] == caution.default


def test_kernel_arrays_hold_the_entries_of_the_policies_that_play(tables):
    """The record holds the engine's turn loop and its scorer, and the
    compiled decisions of the seats' policies and of the policy a search
    seat plays in its playouts (its ``playout`` parameter), as entry pairs;
    a policy that does not play is not compiled (its pairs are null)."""
    from nbsim.kernels.engine import loop as EL
    from nbsim.kernels.engine import wins as EWIN
    from nbsim.kernels.entry import entry_at
    from nbsim.kernels.ref import RefType
    rules = load_rules("ningbo-3baida").array
    plain = kernel_arrays(parse_policies(policies="defend,value,value,defend"), rules, tables)
    assert entry_at(plain.engine[0]).dispatcher is EL.play_from
    assert entry_at(plain.scorer[0]).dispatcher is EWIN.try_win
    assert plain.scorer[1] == entry_at(plain.scorer[0]).tag
    played = {T.code_of("defend"), T.code_of("value")}
    for c in range(len(T.POLICY_TABLE)):
        assert (plain.decisions[c] != 0).all() == (c in played)
        assert (plain.decisions[c] == 0).all() == (c not in played)
    searching = kernel_arrays(parse_policies(policies="defend,lookahead:playout=1,value,defend"),
                              rules, tables)
    assert (searching.engine == plain.engine).all()        # one engine for both
    assert (searching.scorer == plain.scorer).all()
    played = {T.code_of(n) for n in ("defend", "lookahead", "value", "greedy")}
    assert (searching.decisions[T.code_of("random")] == 0).all()
    for c, p in enumerate(T.POLICY_TABLE):
        if c not in played:
            continue
        for d, name in enumerate(T.DECISIONS):
            e = entry_at(searching.decisions[c, d, 0])
            assert e.dispatcher.py_func.__name__ == name
            assert e.dispatcher.py_func.__module__.endswith("." + p.module)
            assert searching.decisions[c, d, 1] == e.tag
            # the View and the scratch are passed by their addresses (nbsim.kernels.ref)
            view_t, scr_t = e.signature.args[0], e.signature.args[3]
            assert isinstance(view_t, RefType) and view_t.dtype.__class__.__name__ == "NamedTuple"
            assert "View(" in str(view_t) and "Scratch(" in str(scr_t)
    assert searching.codes.dtype == np.int64
    assert searching.codes.tolist() == [T.code_of(n) for n in ("defend", "lookahead", "value",
                                                               "defend")]


def test_label_and_describe():
    assert label(parse_policies("value")) == "value"
    assert label(parse_policies(policies="defend,value,value,value")) == "defend,value,value,value"
    text = describe()
    for spec in T.POLICY_TABLE:
        assert spec.name in text
        for p in spec.params:
            assert p.name in text


def test_cli_policies_command_and_bad_spec():
    r = CliRunner().invoke(cli, ["policies"])
    assert r.exit_code == 0 and "defend (default)" in r.output and "caution" in r.output
    r = CliRunner().invoke(cli, ["replay", "ningbo-3baida", "--seed", "1", "--deal", "0",
                                 "--policy", "defend:caution=3"])
    assert r.exit_code == 2 and "caution must be a number 0 .. 1" in r.output
    assert "Traceback" not in r.output


def test_manifest_and_rows_record_every_parameter(tmp_path):
    out = tmp_path / "run"
    nbsim.simulate("ningbo-3baida", mode="game", deals=30, seed=3, out=out,
                   policies="defend:caution=0.8,value,value,value", progress=False)
    m = json.loads((out / "manifest.json").read_text())
    full = parse_policy("defend:caution=0.8").full
    assert m["policies"] == [full, "value", "value", "value"]
    df = nbsim.summarize(out)
    assert df is not None
    import polars as pl
    rows = pl.read_parquet(next(out.glob("shard-*.parquet")))
    assert rows["policy_e"].unique().to_list() == [full]


def test_default_policy_is_defend(tmp_path):
    nbsim.simulate("ninghai", mode="game", deals=5, seed=1, out=tmp_path / "d", progress=False)
    m = json.loads((tmp_path / "d" / "manifest.json").read_text())
    assert m["policies"] == [parse_policy("defend").full] * 4
    rec = nbsim.replay("ninghai", 1, 0)
    assert rec.row["policy_e"] == parse_policy("defend").full
