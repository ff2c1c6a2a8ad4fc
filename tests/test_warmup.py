"""nbsim.warmup: the first compile of a kernel group is announced, later
calls are silent, and the warm-up command checks its group names."""
from nbsim import warmup


def test_first_compile_is_announced_then_silent(monkeypatch, tmp_path):
    monkeypatch.setattr(warmup, "_folder", lambda: tmp_path)   # markers only
    said: list[str] = []
    assert not warmup.is_compiled("deal")
    warmup.ensure_compiled("deal", echo=said.append, clock=False)
    assert said[0].startswith("compiling the deal kernels, once, about 25 s")
    assert said[-1].startswith("compiled in ")
    assert warmup.is_compiled("deal") and (tmp_path / "compiled-deal").is_file()
    said.clear()
    warmup.ensure_compiled("deal", echo=said.append, clock=False)
    assert said == []


def test_every_group_has_an_estimate_and_unknown_ones_are_refused(capsys):
    assert set(warmup.GROUPS) == {"game", "match", "wall", "deal", "score"}
    assert all(warmup.ESTIMATE_S[g] > 0 for g in warmup.GROUPS)
    assert warmup.main(["bogus"]) == 2
    err = capsys.readouterr().err
    assert "unknown kernel group 'bogus'" in err and "allowed: game, match" in err
