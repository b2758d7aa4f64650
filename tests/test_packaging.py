"""The distribution as a release builds it (.github/workflows/release.yml): the wheel's contents and metadata, and
``twine check`` on it, before anything is published."""

from __future__ import annotations

import email
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    pytest.importorskip("build")
    # A copy of the sources (what the sdist holds): builds under xdist never share a build folder.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "pytest_llmeval", source / "pytest_llmeval", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    # --no-isolation: the build backend (setuptools) is the test environment's; nothing is downloaded.
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [found] = out.glob("*.whl")
    return found


def test_the_wheel_has_the_package_its_data_and_no_tests(wheel: pathlib.Path):
    from pytest_llmeval._version import __version__

    assert wheel.name == f"pytest_llm_verdict-{__version__}-py3-none-any.whl"
    names = zipfile.ZipFile(wheel).namelist()
    for needed in (
        "pytest_llmeval/__init__.py",
        "pytest_llmeval/plugin.py",
        "pytest_llmeval/py.typed",
        "pytest_llmeval/report/templates/report.html.j2",
        "pytest_llmeval/report/report.schema.json",
        "pytest_llmeval/checks/embedding/groundedness.py",
        "pytest_llmeval/models/detectors.py",
        *(
            f"pytest_llmeval/models/weights/verifier/{name}"
            for name in ("model.safetensors", "config.json", "tokenizer.json", "card.json")
        ),
    ):
        assert needed in names, needed
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/", "docs/", "examples/"))]


def test_the_wheel_metadata_names_the_plugin_and_its_extras(wheel: pathlib.Path):
    archive = zipfile.ZipFile(wheel)
    info = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = email.message_from_bytes(archive.read(info))
    assert metadata["Name"] == "pytest-llm-verdict" and metadata["Requires-Python"] == ">=3.10"
    extras = set(metadata.get_all("Provides-Extra"))
    assert {"embeddings", "judge", "lm", "toxicity", "deepeval", "all"} <= extras
    assert any(r.startswith("pytest>=") for r in metadata.get_all("Requires-Dist"))
    assert "Typing :: Typed" in metadata.get_all("Classifier") and "Framework :: Pytest" in metadata.get_all(
        "Classifier"
    )
    entry_points = archive.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert "[pytest11]\nllmeval = pytest_llmeval.plugin" in entry_points


def test_twine_accepts_the_wheel(wheel: pathlib.Path):
    pytest.importorskip("twine")
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(wheel)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASSED" in done.stdout
