"""The documentation site (mkdocs.yml, `make docs`): it builds with warnings
as errors, and its generated pages, opened in headless Chromium, show what
the code holds: the commands and their options (mkdocs-click), the Python
API (mkdocstrings), the config keys, the Parquet columns and the scoring
items (docs/gen/*.py).

The build takes about 20 s and each page about 2 s in the browser. Without
the `docs` extra (`make docs` installs it) or without Chromium (`make
browser`) the tests are skipped and say why."""
from __future__ import annotations

import html
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_html import CHROMIUM, needs_browser

ROOT = Path(__file__).resolve().parent.parent
DOCS_PACKAGES = ("mkdocs", "material", "mkdocs_click", "mkdocstrings", "mkdocs_gen_files")
MISSING = [p for p in DOCS_PACKAGES if importlib.util.find_spec(p) is None]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(MISSING), reason=f"the docs extra is not installed "
                       f"({', '.join(MISSING)} missing): `make docs` installs it"),
]

# the visible text of a page's article, written into the DOM once it has loaded
PROBE = """
<script>
window.addEventListener("load", () => {
  const art = document.querySelector("article");
  const out = document.createElement("pre");
  out.id = "nbsim-probe";
  out.textContent = JSON.stringify({title: document.title, text: art ? art.innerText : ""});
  document.body.appendChild(out);
});
</script>
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built by mkdocs --strict (any warning fails the build)."""
    out = tmp_path_factory.mktemp("site")
    res = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                          "-f", str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"mkdocs build --strict failed:\n{res.stderr[-4000:]}"
    return out


def rendered(site: Path, page: str, tmp_path: Path) -> dict:
    """Open ``page`` (a page of the site, "reference/cli") from the disk in
    headless Chromium: its title and the text its article shows once loaded."""
    path = site / f"{page}.html"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
           "--virtual-time-budget=5000", "--dump-dom", path.as_uri()]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"chromium could not be run: {e}")
    m = re.search(r'<pre id="nbsim-probe">(.*?)</pre>', res.stdout, re.S)
    assert m, f"no probe output for {page} (exit {res.returncode}): {res.stderr[-2000:]}"
    return json.loads(html.unescape(m[1]))


def test_site_has_every_page(site):
    pages = {p.relative_to(site).with_suffix("").as_posix() for p in site.rglob("*.html")}
    for page in ("index", "guide/getting-started", "guide/rule-designers", "guide/players",
                 "guide/analysts", "guide/long-runs", "reference/cli", "reference/api",
                 "reference/config", "reference/columns", "reference/items", "rules",
                 "results/ladder", "results/band", "results/calibration",
                 "results/performance", "results/bench", "contributing/index",
                 "contributing/policy", "contributing/variant", "layout", "changelog"):
        assert page in pages, page
    assert not (site / "gen").exists()              # the generator scripts are not pages


@needs_browser
@pytest.mark.parametrize("page, title, shown", [
    ("index", "nbsim", ["What it answers", "Rule designers"]),
    # every command with its options, from the click commands
    ("reference/cli", "Commands", ["nbsim simulate", "--deals INTEGER", "--shard-size",
                                   "nbsim advise", "--offered", "nbsim tune", "--target"]),
    # every config key with its type, default and rule, from the schema
    ("reference/config", "Config keys", ["win.min_tai", "whole number 0 .. 100",
                                         "payments.payment_rule", "scoring.tai.<item>"]),
    # every Parquet column with its dtype, unit and meaning
    ("reference/columns", "Parquet columns", ["tai_self_drawn", "pay_e", "Int32",
                                              "points_yao_ban_san", "wall_exhausted"]),
    ("reference/items", "Tai, fan and fu items", ["full_flush", "清一色", "closed_wait"]),
    ("reference/api", "Python API", ["nbsim.simulate", "nbsim.compare", "ConfigError"]),
])
def test_pages_show_generated_content(site, page, title, shown, tmp_path):
    got = rendered(site, page, tmp_path)
    assert got["title"].startswith(title), got["title"]
    missing = [s for s in shown if s not in got["text"]]
    assert not missing, f"{page} does not show {missing}"
