"""GitHub Actions as a user meets it: the composite action run step by step the way the runner runs it, the step
summary written with no flag, a pull-request comment that fits at any size, and the action and the example
workflows clean under actionlint and zizmor (offline)."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import venv
from typing import Any

import pytest

from pytest_llmeval.checks.lexical.exact_match import ExactMatch
from pytest_llmeval.core.case import Case
from pytest_llmeval.report.aggregate import summarize
from pytest_llmeval.report.baseline import compare
from pytest_llmeval.report.github import COMMENT_LIMIT, MARKER, render_comment, step_summary_path

yaml = pytest.importorskip("yaml")

ROOT = pathlib.Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
WORKFLOWS = sorted((ROOT / "examples" / "workflows").glob("*.yml"))
BIN = pathlib.Path(sys.executable).parent


def _tool(name: str) -> str:
    found = shutil.which(name, path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if found is None:
        pytest.skip(f"{name} is not installed (the test extra installs it)")
    return found


# -- linting ---------------------------------------------------------------------


RELEASE = ROOT / ".github" / "workflows" / "release.yml"
DOCS_CI = ROOT / "docs" / "ci.md"
#: How docs/ci.md shows the action (its major tag) and the tests a user's repository runs.
DOCUMENTED = {
    "      - uses: ./\n": (
        "      - uses: pytest-llmeval/pytest-llmeval@v1 # the release's major tag; or pin its commit\n"
    ),
    "pytest-args: examples -n auto": "pytest-args: tests/llm -n auto",
}


def documented_workflow() -> str:
    """The first YAML block of docs/ci.md: the complete workflow a user copies."""
    return re.search(r"```yaml\n(.*?)```", DOCS_CI.read_text(encoding="utf-8"), flags=re.S).group(1)


@pytest.fixture
def project(tmp_path: pathlib.Path) -> pathlib.Path:
    """The example workflows where a repository keeps them, beside the action they use (``uses: ./``), with the release
    workflow and the workflow docs/ci.md shows (the action's tags allowed in zizmor.yml, as that page says)."""
    folder = tmp_path / "repo"
    (folder / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(ACTION, folder / "action.yml")
    for workflow in [*WORKFLOWS, RELEASE]:
        shutil.copy(workflow, folder / ".github" / "workflows" / workflow.name)
    (folder / ".github" / "workflows" / "documented.yml").write_text(documented_workflow(), encoding="utf-8")
    (folder / "zizmor.yml").write_text(
        "rules:\n  unpinned-uses:\n    config:\n      policies:\n"
        "        pytest-llmeval/*: ref-pin\n        actions/*: hash-pin\n        '*': hash-pin\n"
    )
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def test_the_documented_workflow_is_the_example_with_the_released_action():
    example = (ROOT / "examples" / "workflows" / "llmeval.yml").read_text(encoding="utf-8")
    example = "".join(line for line in example.splitlines(keepends=True) if not line.startswith("#"))
    for local, released in DOCUMENTED.items():
        example = example.replace(local, released)
    assert documented_workflow() == example
    assert "\non:\n" in documented_workflow()  # a workflow that runs (actionlint: '"on" section is missing')


def test_the_release_workflow_builds_checks_tests_publishes_and_tags():
    release = yaml.safe_load(RELEASE.read_text(encoding="utf-8"))
    assert release[True]["push"]["tags"] == ["v*.*.*"]  # YAML 1.1 reads the key "on" as True
    jobs = release["jobs"]
    assert list(jobs) == ["build", "test-wheel", "publish", "tag-action"]
    steps = {
        name: "\n".join(str(step.get("run", "")) + str(step.get("uses", "")) for step in job["steps"])
        for name, job in jobs.items()
    }
    assert "python -m build" in steps["build"] and "twine check --strict" in steps["build"]
    assert "[embeddings]" in steps["test-wheel"] and "pytest examples" in steps["test-wheel"]
    assert "download.pytorch.org/whl/cpu" in steps["test-wheel"]
    assert (
        jobs["publish"]["permissions"] == {"id-token": "write"} and "pypa/gh-action-pypi-publish@" in steps["publish"]
    )
    assert (
        jobs["tag-action"]["permissions"] == {"contents": "write"}
        and 'git push --force origin "refs/tags/$major"' in steps["tag-action"]
    )


def test_there_are_the_two_example_workflows():
    assert [w.name for w in WORKFLOWS] == ["llmeval-sharded.yml", "llmeval.yml"]


def test_actionlint_finds_nothing(project: pathlib.Path):
    """actionlint also checks every ``with:`` against the action's declared inputs."""
    done = subprocess.run([_tool("actionlint"), "-no-color"], cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_sees_a_wrong_input(project: pathlib.Path):
    workflow = project / ".github" / "workflows" / "llmeval.yml"
    workflow.write_text(
        workflow.read_text().replace("extras: embeddings", "extras: embeddings\n          extra: embeddings")
    )
    done = subprocess.run([_tool("actionlint"), "-no-color"], cwd=project, capture_output=True, text=True)
    assert done.returncode == 1 and 'input "extra" is not defined in action' in done.stdout


def test_zizmor_finds_nothing_of_medium_or_high_severity(project: pathlib.Path):
    done = subprocess.run(
        [_tool("zizmor"), "--offline", "--format", "json", "."], cwd=project, capture_output=True, text=True
    )
    findings = json.loads(done.stdout)
    serious = [
        (f["ident"], f["determinations"]["severity"], f["locations"][0]["symbolic"]["key"])
        for f in findings
        if f["determinations"]["severity"] not in ("Informational", "Low", "Unknown")
    ]
    assert serious == []
    assert done.returncode in (0, 10, 11, 12), done.stderr  # 1x: findings at that level (low only, as asserted)


def test_every_action_used_is_pinned_by_commit():
    uses = re.findall(
        r"(?m)^\s*(?:- )?uses:\s*(\S+)", ACTION.read_text() + "".join(w.read_text() for w in [*WORKFLOWS, RELEASE])
    )
    assert uses and all(u == "./" or re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", u) for u in uses), uses


# -- the step summary and the comment -----------------------------------------------


def test_step_summary_path_follows_the_setting():
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": "/s.md"}
    assert step_summary_path("auto", env) == "/s.md"
    assert step_summary_path("auto", {"GITHUB_STEP_SUMMARY": "/s.md"}) is None  # not under GitHub Actions
    assert step_summary_path("off", env) is None
    assert step_summary_path("on", {"GITHUB_STEP_SUMMARY": "/s.md"}) == "/s.md"
    assert step_summary_path("on", {}) is None


SUITE = """
    import os
    import pytest
    from pytest_llmeval import assert_exact_match

    @pytest.mark.parametrize("case", range(12))
    def test_answer(case):
        assert_exact_match(os.environ.get("ANSWER", "yes") + "\\ud800", "yes\\ud800", model="m")
"""


def test_a_run_under_github_actions_appends_its_summary_with_no_flag(pytester: pytest.Pytester, monkeypatch):
    pytester.makepyfile(test_suite=SUITE)
    summary = pytester.path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=12)
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n# LLM evaluation\n") and "12 checks on 1 model: **12 passed**" in text
    summary.write_text("")
    pytester.runpytest("-p", "no:randomly", "--override-ini=llmeval_step_summary=off").assert_outcomes(passed=12)
    assert summary.read_text() == ""
    monkeypatch.delenv("GITHUB_ACTIONS")
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=12)
    assert summary.read_text() == ""  # not under GitHub Actions: nothing, unless asked with =on


def _records(count: int, answer: str) -> list[dict[str, Any]]:
    evaluator = ExactMatch()
    cases = [
        Case(actual=answer if i % 3 else "yes", expected="yes", model=f"model-{i % 4}", case_id=f"case-{i}")
        for i in range(count)
    ]
    return [
        {**r.to_dict(), "nodeid": f"tests/test_x.py::test_{i}[{'x' * 60}-{i}]"}
        for i, r in enumerate(evaluator.evaluate(cases))
    ]


def test_the_comment_of_30000_checks_fits_and_leads_with_what_decides():
    before = _records(30_000, "yes")
    now = _records(30_000, "no")
    report = {
        "summary": summarize(now).to_dict(),
        "results": now,
        "tests": {},
        "baseline": compare(now, {"results": before}, name="main").to_dict(),
    }
    actions = {"GITHUB_ACTIONS": "true"}
    comment = render_comment(report, environ=actions)
    assert len(comment) <= COMMENT_LIMIT < 65_536
    assert comment.startswith(MARKER)
    verdict, regressed, failed = (
        comment.index(s) for s in ("**Verdict: regressed", "### Regressed", "### Failed checks")
    )
    assert verdict < regressed < failed
    assert "more failed checks (of 20000) are in the report artifact" in comment
    small = render_comment(report, limit=3_000, environ=actions)
    assert len(small) <= 3_000 and "**Verdict: regressed" in small and "### Regressed" in small
    assert "more failed checks (of 20000)" in small and small.endswith("artifact of this workflow run.</sub>\n")
    # A local run's comment.md points to the reports beside it: there is no workflow run, and no artifact.
    local = render_comment(report, limit=3_000, environ={})
    assert "artifact" not in local and "more failed checks (of 20000) are in the full report" in local
    assert local.endswith("the JSON, Markdown and HTML reports written beside this comment.</sub>\n")


# -- the action, run as the runner runs it ---------------------------------------------

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class Runner:
    """Runs the composite action's steps like GitHub's runner: ``run`` steps with ``bash --noprofile --norc -eo
    pipefail``,
    ``${{ }}`` expressions in ``env`` / ``with`` / ``if``, step outputs through ``$GITHUB_OUTPUT``; the ``uses`` steps
    (other
    actions: artifacts, the comment) are stood in for and recorded."""

    def __init__(self, workspace: pathlib.Path, env: dict[str, str], inputs: dict[str, str]) -> None:
        self.action = yaml.safe_load(ACTION.read_text())
        self.workspace, self.env = workspace, env
        self.outputs: dict[str, dict[str, str]] = {}
        self.used: list[tuple[str, dict[str, str]]] = []
        self.failed = False
        self.log = ""
        self.last_status = 0
        self.inputs = {name: str(spec.get("default", "")) for name, spec in self.action["inputs"].items()} | inputs
        self.inputs = {k: self.expand(v) for k, v in self.inputs.items()}

    def value(self, path: str) -> Any:
        contexts = {
            "inputs": self.inputs,
            "github": {"action_path": str(ROOT), "token": "t0ken", "event_name": self.env["GITHUB_EVENT_NAME"]},
            "runner": {"temp": self.env["RUNNER_TEMP"]},
            "steps": {k: {"outputs": v} for k, v in self.outputs.items()},
        }
        node: Any = contexts
        for part in path.split("."):
            node = node.get(part, "") if isinstance(node, dict) else ""
        return node

    def expand(self, text: str) -> str:
        return EXPRESSION.sub(lambda m: str(self.value(m.group(1))), str(text))

    def condition(self, text: str) -> bool:
        if not text:
            return not self.failed
        expression = EXPRESSION.sub(r"\1", text)
        python = re.sub(
            r"\b(inputs|steps|github|runner)((?:\.[\w-]+)+)", lambda m: repr(self.value(m.group(0))), expression
        )
        python = python.replace("&&", " and ").replace("||", " or ").replace("always()", "True")
        return bool(eval(python, {"__builtins__": {}}))  # noqa: S307 - the action's own few conditions

    def run(self) -> None:
        for step in self.action["runs"]["steps"]:
            if not self.condition(step.get("if", "")):
                continue
            if "run" in step:
                output = self.workspace / f"output-{len(self.outputs)}"
                output.write_text("")
                env = {
                    **self.env,
                    **{k: self.expand(v) for k, v in step.get("env", {}).items()},
                    "GITHUB_OUTPUT": str(output),
                }
                script = self.workspace / "step.sh"
                script.write_text(step["run"])
                done = subprocess.run(
                    ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                    cwd=self.workspace,
                    env=env,
                    capture_output=True,
                    text=True,
                )
                self.log += done.stdout + done.stderr
                values = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
                if "id" in step:
                    self.outputs[step["id"]] = values
                if done.returncode != 0 and not step.get("continue-on-error"):
                    self.failed = True
                    self.last_status = done.returncode
            else:
                self.used.append(
                    (step["uses"].split("@")[0], {k: self.expand(v) for k, v in step.get("with", {}).items()})
                )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A fresh virtual environment (on this one's packages) into which the action's install step installs the plugin."""
    folder = tmp_path_factory.mktemp("venv")
    venv.create(folder, system_site_packages=True, with_pip=True)
    return folder / "bin"


def _runner(tmp_path: pathlib.Path, installed: pathlib.Path, event: str, answer: str, **inputs: str) -> Runner:
    workspace = tmp_path / event
    workspace.mkdir()
    (workspace / "test_suite.py").write_text(SUITE.replace("\n    ", "\n"))
    fake = tmp_path / "fake-bin"
    fake.mkdir(exist_ok=True)
    (fake / "gh").write_text('#!/bin/sh\necho "$@" >> "$RUNNER_TEMP/gh-calls"\necho 4242\n')  # the latest run on main
    (fake / "gh").chmod(0o755)
    (tmp_path / "temp").mkdir(exist_ok=True)
    env = {
        "PATH": f"{fake}{os.pathsep}{installed}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "ANSWER": answer,
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event,
        "GITHUB_REPOSITORY": "acme/app",
        "GITHUB_WORKFLOW_REF": "acme/app/.github/workflows/llmeval.yml@refs/pull/7/merge",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_STEP_SUMMARY": str(workspace / "step-summary.md"),
        "RUNNER_TEMP": str(tmp_path / "temp"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "HF_HUB_OFFLINE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if event == "pull_request":
        env["GITHUB_BASE_REF"] = "main"
    else:
        env["GITHUB_REF_NAME"] = "main"
    return Runner(workspace, env, {"extras": "", "pytest-args": "-p no:randomly -p no:cacheprovider", **inputs})


@pytest.mark.subprocess
def test_the_action_on_main_then_on_a_pull_request_that_regresses(tmp_path: pathlib.Path, installed: pathlib.Path):
    # On main: installs the plugin from the action's source, runs, keeps the reports; no baseline, no comment.
    main = _runner(tmp_path, installed, "push", "yes")
    main.run()
    assert not main.failed, main.log
    assert main.outputs["run"]["exit-code"] == "0" and main.outputs["run"]["baseline"] == ""
    # no baseline lookup on a push, no comment; main's saved runs restored from the cache, and saved with this one
    restore, _, save = main.used
    assert [name for name, _ in main.used] == ["actions/cache/restore", "actions/upload-artifact", "actions/cache/save"]
    assert restore[1] == {
        "path": ".llmeval/runs",
        "key": "llmeval-runs-llmeval-report-main-",
        "restore-keys": "llmeval-runs-llmeval-report-main-",
    }  # the key ends in the run's id (empty here): a miss that restores the newest of the branch's saved runs
    assert save[1] == {"path": ".llmeval/runs", "key": "llmeval-runs-llmeval-report-main-"}
    [saved] = (main.workspace / ".llmeval" / "runs").iterdir()
    reports = main.workspace / "llmeval-report"
    assert sorted(p.name for p in reports.iterdir()) == ["comment.md", "report.html", "report.json", "report.md"]
    assert (main.workspace / "step-summary.md").read_text().startswith("# LLM evaluation")
    assert re.search(r"Successfully installed .*pytest-llm-verdict-", main.log), main.log[
        -2000:
    ]  # from the action's source

    # A pull request whose answers all got worse: the baseline is main's latest report (the download step stood in for).
    baseline = tmp_path / "temp" / "llmeval-baseline"
    baseline.mkdir()
    shutil.copy(reports / "report.json", baseline / "report.json")
    pr = _runner(tmp_path, installed, "pull_request", "no", install="false")
    shutil.copytree(main.workspace / ".llmeval", pr.workspace / ".llmeval")  # what the restore step restores
    pr.run()
    calls = (tmp_path / "temp" / "gh-calls").read_text()
    assert "run list --repo acme/app --workflow llmeval.yml --branch main --event push" in calls
    assert pr.outputs["baseline"]["run-id"] == "4242"
    assert pr.outputs["run"]["exit-code"] == "1" and pr.outputs["run"]["baseline"].endswith(
        "llmeval-baseline/report.json"
    )
    restore, download, upload, comment = pr.used  # a pull request saves no runs to the cache
    assert restore == (
        "actions/cache/restore",
        {"path": ".llmeval/runs", "key": "llmeval-runs-llmeval-report-main-", "restore-keys": restore[1]["key"]},
    )
    history = json.loads((pr.workspace / "llmeval-report" / "report.json").read_text())["history"]
    assert [run["id"] for run in history["runs"]] == [saved.stem.rpartition("-")[2], ""]  # main's run, then this one
    assert download == (
        "actions/download-artifact",
        {"name": "llmeval-report", "path": str(baseline), "run-id": "4242", "github-token": "t0ken"},
    )
    assert upload[0] == "actions/upload-artifact" and upload[1]["path"] == "llmeval-report"
    assert comment[0] == "marocchino/sticky-pull-request-comment" and comment[1]["header"] == "llmeval-report"
    body = (pr.workspace / comment[1]["path"]).read_text()
    assert body.startswith(MARKER) and "**Verdict: regressed" in body and "### Regressed against the baseline" in body
    assert pr.failed and pr.last_status == 1  # the last step passes pytest's verdict on
    summary = (pr.workspace / "step-summary.md").read_text()
    assert "Compared with baseline" in summary and "regressed" in summary
