"""The notebooks in notebooks/ run from top to bottom without an error, are
stored without outputs, and use nbsim's Python API only.

Each notebook is executed with nbclient in a kernel started from *this*
interpreter: a kernelspec whose argv is ``sys.executable -m
ipykernel_launcher`` is written into a temporary folder and handed to the
kernel manager, so nothing is installed into the venv or the user's Jupyter
folders, and a kernelspec named ``python3`` elsewhere on the machine (which
may point at another Python without nbsim) is never used.
"""
from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
KERNEL = "nbsim-test-python"


def test_notebooks_exist():
    assert [p.name for p in NOTEBOOKS] == ["01_deal_statistics.ipynb",
                                           "02_game_statistics.ipynb",
                                           "03_compare_variants.ipynb",
                                           "04_play_styles.ipynb",
                                           "05_advise.ipynb",
                                           "06_tune.ipynb",
                                           "07_review.ipynb"]


@pytest.fixture(scope="module")
def kernel_manager_factory(tmp_path_factory):
    from ipykernel.kernelspec import write_kernel_spec
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    kernels = tmp_path_factory.mktemp("kernels")
    write_kernel_spec(kernels / KERNEL)          # argv: [sys.executable, -m, ipykernel_launcher]
    specs = KernelSpecManager(kernel_dirs=[str(kernels)])
    assert specs.find_kernel_specs()[KERNEL] == str(kernels / KERNEL)

    def make():
        return KernelManager(kernel_name=KERNEL, kernel_spec_manager=specs)
    return make


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_stored_clean(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    for c in code:
        assert c.outputs == [] and c.execution_count is None, "store notebooks without outputs"
        # nbsim's API only: no kernels, no engine, no hand-made Parquet paths
        assert "nbsim.kernels" not in c.source and "nbsim.run.game_mode" not in c.source
        assert "read_parquet" not in c.source and "scan_parquet" not in c.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, kernel_manager_factory, tmp_path):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, km=kernel_manager_factory(), kernel_name=KERNEL, timeout=600,
        resources={"metadata": {"path": str(tmp_path)}})
    client.execute()                  # raises CellExecutionError naming the failing cell
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "Traceback" not in text
    if path.stem.startswith("03"):
        assert "Difference run 2 - run 1" in text
