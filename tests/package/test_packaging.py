"""What ``pip install`` puts into site-packages: one import name, ``ringleader``.

The layers live in the repository's top-level folders ``actors/``, ``transport/`` and
``topologies/``; they install as ``ringleader.actors``, ``ringleader.transport`` and
``ringleader.topologies``, never as names of their own (other projects own those).
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.paths import ROOT


@pytest.mark.timeout(300)
def test_the_wheel_installs_one_top_level_package(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--wheel-dir",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=280,
    )
    (wheel,) = tmp_path.glob("ringleader-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        top_level = archive.read(next(n for n in names if n.endswith(".dist-info/top_level.txt")))
        entry_points = archive.read(next(n for n in names if n.endswith("entry_points.txt")))
    packages = {
        name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")
    }
    assert packages == {"ringleader"}
    assert top_level.decode().split() == ["ringleader"]
    for layer in ("actors", "transport", "topologies"):
        assert f"ringleader/{layer}/__init__.py" in names
        assert f"ringleader/{layer}/py.typed" in names
    assert "ringleader/actors/crashes/_member.py" in names
    assert "ringleader/py.typed" in names
    for asset in ("lab.html", "lab.js", "lab.css"):  # the lab works offline: in the wheel
        assert f"ringleader/lab/static/{asset}" in names
    assert b"ringleader = ringleader.cli:main" in entry_points
