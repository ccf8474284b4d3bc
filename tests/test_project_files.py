"""The project's own files that a new user meets first (issue #13, point 10)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_license_file_is_the_mit_license_that_pyproject_declares():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert declared == "MIT" and text.startswith("MIT License")
    assert "Copyright (c) 2026 the canasta-sim authors" in text


def test_the_readme_installs_the_dask_extra_the_way_a_checkout_can():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install '.[dask]'" in readme and "pip install 'canasta-sim[dask]'" not in readme
    assert "about half\na minute" not in readme and "half a minute" not in readme.split("## Performance")[0]
