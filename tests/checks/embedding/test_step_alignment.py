"""Step alignment: steps written inside one line are steps; decimals, figures and versions are not."""

from __future__ import annotations

import pytest

from pytest_llmeval.checks.embedding.step_alignment import StepAlignment, extract_steps

ROUTER = ["Unplug the router.", "Wait 30 seconds.", "Plug it back in."]


@pytest.mark.parametrize(
    "text, steps",
    [
        ("1. Unplug the router. 2. Wait 30 seconds. 3. Plug it back in.", ROUTER),
        ("To reset it: 1. Unplug the router. 2. Wait 30 seconds. 3. Plug it back in.", ROUTER),
        ("To reset it:\n1. Unplug the router. 2. Wait 30 seconds.\n3. Plug it back in.", ROUTER),
        ("Reset it: 1) unplug the router 2) wait 3) plug it in", ["unplug the router", "wait", "plug it in"]),
        ("Steps: 1. Open settings 2. Tap reset 3. Confirm", ["Open settings", "Tap reset", "Confirm"]),
        ("Step 1: boil water. Step 2: add pasta. Step 3: drain.", ["boil water.", "add pasta.", "drain."]),
        ("1. Set the volume to 2. 2. Restart the app.", ["Set the volume to 2.", "Restart the app."]),
        ("See Fig. 3. 1. Unplug it. 2. Wait.", ["Unplug it.", "Wait."]),
        ("Pack: • a charger • a cable • a case", ["a charger", "a cable", "a case"]),
        ("Options: - fast. - cheap. - good.", ["fast.", "cheap.", "good."]),
        ("Do this: - unplug - wait - plug in", ["unplug", "wait", "plug in"]),
    ],
)
def test_inline_steps_are_found(text, steps):
    assert extract_steps(text) == steps


@pytest.mark.parametrize(
    "text",
    [
        "The CPU runs at 2.5 GHz. See Fig. 3 for the layout. Version 1.2.3 fixed it.",
        "I have 2. Then I got 3. Great.",
        "He was born on Jan. 3. 4 days later he left.",
        "In 2019. 2020 was better.",
        "The items (1) and (2) matter.",
        "It was great - really - great - fine.",
        "Result: 5 - 3 - 1 = 1",
    ],
)
def test_prose_with_numbers_has_no_steps(text):
    assert extract_steps(text) == []


def test_existing_shapes_unchanged_and_version_bumped():
    assert extract_steps("1. Open Settings.\n2. Tap Reset.\n3. Confirm.") == [
        "Open Settings.",
        "Tap Reset.",
        "Confirm.",
    ]
    assert extract_steps("1. Open Settings and set it to 2.5 GHz.") == ["Open Settings and set it to 2.5 GHz."]
    assert extract_steps("First, unplug it. Then wait ten seconds. Finally, plug it back in.") == [
        "unplug it.",
        "wait ten seconds.",
        "plug it back in.",
    ]
    assert StepAlignment.version != "1"


def test_long_lines_stay_linear():
    line = "".join(f"{k}. do item {k}. " for k in range(1, 1000)) * 3
    assert len(extract_steps(line)) == 999
    assert len(extract_steps(" - " * 50_000 + "x")) <= 1
