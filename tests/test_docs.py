"""The docs as a reader meets them: a short README that keeps the two commands, a site that builds without a warning,
every check named on a page, pages generated from the code and current, no internal catalog numbers, and every
code sample a file this suite runs."""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from pytest_llmeval.harness.registry import Registry

from tools.docs_pages import blocks, current

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = sorted(DOCS.rglob("*.md"))
EXAMPLES = DOCS / "examples"


def test_the_readme_is_a_front_door_that_keeps_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    for marker in ("<!-- main-command -->", "<!-- test-command -->"):
        after = text.split(marker, 1)[1].lstrip("\n")
        assert after.startswith(
            "```bash\npython3 -m venv .venv && . .venv/bin/activate && pip install torch==2.13.0"
        ), marker
    # the contributing section of getting-started shows the same test command
    command = text.split("<!-- test-command -->", 1)[1].split("```", 2)[1]
    page = GETTING_STARTED.read_text(encoding="utf-8")
    assert page.split("<!-- test-command -->", 1)[1].split("```", 2)[1] == command


def test_the_readme_examples_are_the_samples_the_suite_runs():
    blocks = [block.split("```", 1)[0] for block in README.read_text(encoding="utf-8").split("```python\n")[1:]]
    assert blocks == [
        (EXAMPLES / name).read_text(encoding="utf-8") for name in ("test_quickstart.py", "test_grounded.py")
    ]


@pytest.mark.parametrize("page, name", [(str(path.relative_to(ROOT)), name) for (path, name) in blocks()])
def test_generated_pages_are_current(page: str, name: str):
    """Run ``python tools/docs_pages.py --write`` after changing a check, an option or the catalog coverage."""
    expected = {(str(path.relative_to(ROOT)), block): text for (path, block), text in blocks().items()}
    assert current(ROOT / page, name) == expected[(page, name)], "stale: run python tools/docs_pages.py --write"


def test_every_registered_check_is_named_on_a_docs_page():
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    missing = [name for name in Registry(entry_points=False).names() if f"### `{name}`" not in text]
    assert missing == []


def test_no_internal_catalog_number_in_the_readme_or_the_docs():
    found = {
        str(p.relative_to(ROOT)): re.findall(r"(?i)\bseeds? \d{3}", p.read_text(encoding="utf-8"))
        for p in [README, *PAGES]
    }
    assert {page: labels for page, labels in found.items() if labels} == {}


def test_every_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert [str(p.relative_to(DOCS)) for p in PAGES if str(p.relative_to(DOCS)) not in nav] == []


def test_every_python_block_of_the_docs_is_a_sample_file_shown_whole():
    """No sketch: a ```python block in a page is a file of docs/examples (which the tests below run), written out
    between ``<!-- example NAME -->`` markers so that GitHub shows it too (test_generated_pages_are_current keeps each
    copy equal to its file); no snippet marker, which only the built site would expand."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert "--8<--" not in text, page
        names = re.findall(r"<!-- example ([\w.-]+):start -->", text)
        assert all((EXAMPLES / name).is_file() for name in names), (page, names)
        outside = re.sub(r"<!-- example ([\w.-]+):start -->.*?<!-- example \1:end -->", "", text, flags=re.S)
        assert "```python" not in outside, page


#: Each sample, the arguments it runs with, and how its tests end (judge and deepeval samples skip with neither).
SAMPLES = {
    "test_quickstart.py": ([], {"passed": 2}),
    # the README's groundedness example: with the defaults, the invented city fails and the faithful answer passes
    "test_grounded.py": ([], {"passed": 1, "failed": 1}),
    "test_classification.py": ([], {"passed": 5}),
    "test_generation.py": ([], {"passed": 1}),
    "test_dag.py": ([], {"skipped": 1}),
    "test_deepeval_metric.py": ([], {"skipped": 1}),
    "test_tagging.py": ([], {"passed": 2}),
    "test_dataset.py": ([], {"passed": 2}),
    "test_models_under_test.py": (["--llmeval-models=gpt-4o,local"], {"passed": 2}),
    "test_warm.py": ([], {"passed": 1}),
    "test_deferred.py": ([], {"passed": 3}),
    "test_first.py": ([], {"passed": 1}),
    "test_first_failure.py": ([], {"failed": 1}),
}


def test_every_sample_file_is_run_here():
    assert sorted(p.name for p in EXAMPLES.glob("test_*.py")) == sorted(SAMPLES)


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_the_sample_runs(pytester: pytest.Pytester, sample: str):
    args, outcomes = SAMPLES[sample]
    for path in EXAMPLES.iterdir():
        if path.is_file():
            shutil.copy(path, pytester.path / path.name)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:cacheprovider", *args, sample)
    result.assert_outcomes(**outcomes)


@pytest.mark.subprocess
def test_the_site_builds_without_a_warning(tmp_path: pathlib.Path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "checks" / "embedding" / "index.html").is_file()
    assert "assert_grounded" in (tmp_path / "site" / "checks" / "embedding" / "index.html").read_text(encoding="utf-8")


def test_docstrings_are_markdown():
    """The docs pages are made from the package's docstrings: a reST role (``:class:`X` ``) would show raw there."""
    import re

    role = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj):`")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "pytest_llmeval").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if role.search(line)
    ]
    found += [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "docs").rglob("*.md"))
        if role.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


GETTING_STARTED = DOCS / "getting-started.md"


def _tutorial_runs() -> list[tuple[list[str], list[str]]]:
    """The getting-started page's runs: each ``<!-- run: FILES -->`` bash block's commands, and the lines of the text
    block that follows it (what the page says the run prints)."""
    text = GETTING_STARTED.read_text(encoding="utf-8")
    runs = []
    for match in re.finditer(r"<!-- run: [^>]+ -->\n```bash\n(.*?)```(.*?)(?=<!-- run:|\Z)", text, flags=re.S):
        shown = re.search(r"```text\n(.*?)```", match.group(2), flags=re.S)
        runs.append((match.group(1).strip().splitlines(), shown.group(1).strip().splitlines() if shown else []))
    return runs


def test_the_tutorial_installs_what_exists():
    """The install block names the distribution, an extra pyproject.toml declares, and this repository."""
    install = re.search(
        r"<!-- install -->\n```bash\n(.*?)```", GETTING_STARTED.read_text(encoding="utf-8"), flags=re.S
    ).group(1)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "pytest-llm-verdict[embeddings] @ git+https://github.com/pytest-llmeval/pytest-llmeval" in install
    assert re.search(r"(?m)^embeddings = ", pyproject) and "github.com/pytest-llmeval/pytest-llmeval" in pyproject
    assert "download.pytorch.org/whl/cpu" in install


@pytest.mark.subprocess
def test_the_getting_started_page_runs_from_its_own_text_in_a_fresh_folder(tmp_path: pathlib.Path):
    """A reader's first hour: a fresh virtual environment, the plugin installed from the clone with the page's own
    line, the page's files written from the page's text into an empty folder, and each command the page shows run there
    prints what the page says. (The new environment sees the test environment's packages, so nothing is downloaded:
    the install line is run with ``--no-deps``.)"""
    import os
    import sysconfig

    page = GETTING_STARTED.read_text(encoding="utf-8")
    clone = re.search(r"```bash\ngit clone [^\n]*\n(pip install -e [^ \n]+)", page)
    assert clone, "no install-from-clone line on the page"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    pathlib.Path(purelib, "test-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = [*clone.group(1).split()[:3], clone.group(1).split()[3].strip("'")]  # pip install -e .[embeddings]
    done = subprocess.run(
        [python, "-m", *install, "--no-deps", "--no-build-isolation", "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    folder = tmp_path / "first-hour"
    folder.mkdir()
    for name, body in re.findall(r"<!-- example ([\w.]+):start -->\n```\w+\n(.*?)```", page, flags=re.S):
        (folder / name).write_text(body, encoding="utf-8")
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "PYTEST_ADDOPTS": ""}
    env.pop("PYTEST_XDIST_WORKER", None)
    runs = _tutorial_runs()
    assert len(runs) >= 3
    for commands, shown in runs:
        output = []
        for command in commands:
            assert command.startswith("pytest "), command
            ran = subprocess.run(
                [python, "-m", *command.split(), "-p", "no:randomly", "-p", "no:cacheprovider"],
                cwd=folder,
                capture_output=True,
                text=True,
                env=env,
            )
            output += ran.stdout.splitlines()
        assert shown and all(any(line.strip() in printed for printed in output) for line in shown), (
            commands,
            output[-40:],
        )
    where = subprocess.run(
        [python, "-c", "import pytest_llmeval; print(pytest_llmeval.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=folder,
    ).stdout
    assert pathlib.Path(where.strip()).resolve().is_relative_to(ROOT)  # the clone's code ran


def test_nested_lists_are_indented_four_spaces_and_no_bullet_is_repeated():
    """Python-Markdown (the site) flattens a nested list indented by fewer than four spaces; a bullet said twice on a
    page is a copy-paste slip."""
    flattened, repeated = [], []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        outside = re.sub(r"```.*?```", "", text, flags=re.S)
        flattened += [f"{page.name}:{line[:40]}" for line in outside.splitlines() if re.match(r"^ {1,3}[-*] ", line)]
        bullets = [line.strip() for line in outside.splitlines() if line.startswith("- ") and len(line) > 80]
        if page.parent.name != "checks":  # the check pages are generated: their facts lines repeat by design
            repeated += [f"{page.name}:{b[:40]}" for b in set(bullets) if bullets.count(b) > 1]
    assert flattened == [] and repeated == []
