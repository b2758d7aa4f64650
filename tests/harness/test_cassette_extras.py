"""A test that asks for a cassette where vcrpy is not installed gets one error that names the extra to install, and
nothing else fails with it (pytest's own set-up and teardown run whole)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "asks", ["@pytest.mark.llmeval(record=True)\ndef test_answer():", "def test_answer(llmeval_cassette):"]
)
def test_a_missing_vcrpy_is_one_error_naming_the_extra(pytester: pytest.Pytester, asks):
    pytester.makeconftest("import sys\n\nsys.modules['vcr'] = None  # vcrpy not installed\n")
    pytester.makepyfile(
        test_app=f"import pytest\n\n\n{asks}\n    assert True\n\n\ndef test_other():\n    assert True\n"
    )
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "E * pytest.UsageError: llmeval cassettes need vcrpy: pip install 'pytest-llm-verdict[[]record]'",
            "ERROR test_app.py::test_answer - pytest.UsageError: llmeval cassettes need*",
        ]
    )
    assert "KeyError: <_pytest.stash" not in result.stdout.str()
