"""Three verdicts: fail on named evidence, pass when close to the context, unverified in between (no judge needed)."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_llmeval import Case, Result
from pytest_llmeval.core.result import verdict_of
from pytest_llmeval.facts.evidence import makes_claim
from pytest_llmeval.facts.names import spacy_model

from tests.verdicts import check_verdict, kinds, one

pytest.importorskip("sentence_transformers")

EXTRACTORS = ["rules", *(["spacy"] if spacy_model() is not None else [])]
NAMES = [
    "Salesforce",
    "Tableau",
    "Oracle",
    "Siemens",
    "Nokia",
    "Ericsson",
    "Maria Lopez",
    "John Carter",
    "Anna Berg",
    "David Chen",
    "Acme Corporation",
    "Globex Industries",
    "Rafael Nadal",
    "Dominic Thiem",
    "Laura Meyer",
    "Peter Novak",
]
VERBS = ["acquired", "sued", "defeated", "hired", "replaced", "overtook", "beat", "bought", "succeeded", "interviewed"]
MUSEUM = [
    "The Harbour Museum opens at 9 a.m. and closes at 5 p.m. from Monday to Friday. Entry is free for children under "
    "12."
]


@pytest.mark.parametrize("entities", EXTRACTORS)
def test_the_two_missed_pairs_fail_naming_what_is_wrong(make, entities):
    grounded = make("groundedness", fail_on="all", entities=entities)
    swap = one(
        grounded, actual="Tableau acquired Salesforce in 2019.", context=["Salesforce acquired Tableau in 2019."]
    )
    assert swap.verdict == "fail" and not swap.passed and kinds(swap) == {"role_swap"}
    assert "swaps the roles of" in swap.reason and "'Tableau'" in swap.reason and "'Salesforce'" in swap.reason
    assert "the context says 'Salesforce acquired Tableau in 2019.'" in swap.reason
    unit = one(grounded, actual="The tank holds 50 gallons.", context=["The tank holds 50 litres."])
    assert (
        unit.verdict == "fail"
        and "'50 gallons' (sentence 1) is not stated in the context: it says '50 litres'" in unit.reason
    )


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    names=st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True),
    verb=st.sampled_from(VERBS),
    year=st.integers(1950, 2024),
    passive=st.booleans(),
    entities=st.sampled_from(EXTRACTORS),
)
# spaCy's small model tags "Tableau hired Salesforce" as one ORG: a verb ends a name
@example(names=["Salesforce", "Tableau"], verb="hired", year=1950, passive=False, entities="spacy")
def test_swapping_two_context_names_in_a_relation_fails_and_restating_it_does_not(
    make, names, verb, year, passive, entities
):
    doer, done = names
    grounded = make("groundedness", fail_on="all", entities=entities)
    context = [f"{doer} {verb} {done} in {year}. The news surprised many observers."]
    # The answer says it actively or passively: swapped, or as the context has it.
    swapped = f"{doer} was {verb} by {done} in {year}." if passive else f"{done} {verb} {doer} in {year}."
    restated = f"{done} was {verb} by {doer} in {year}." if passive else f"{doer} {verb} {done} in {year}."
    wrong = one(grounded, actual=swapped, context=context)
    assert wrong.verdict == "fail" and "role_swap" in kinds(wrong), wrong.reason
    assert f"the context says '{doer} {verb} {done} in {year}." in wrong.reason
    right = one(grounded, actual=restated, context=context)
    assert "role_swap" not in kinds(right) and right.verdict != "fail", right.reason


UNITS = [("gallons", "litres"), ("feet", "metres"), ("miles", "kilometres"), ("lb", "kilograms"), ("ounces", "grams")]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(number=st.integers(2, 999), units=st.sampled_from(UNITS), flip=st.booleans())
def test_the_same_number_in_another_unit_fails_naming_both(make, number, units, flip):
    said, stated = units[::-1] if flip else units
    grounded = make("groundedness", fail_on="all", entities="rules")
    context = [f"The storage tank holds {number} {stated}, its maker says."]
    wrong = one(grounded, actual=f"The storage tank holds {number} {said}.", context=context)
    assert wrong.verdict == "fail", wrong.reason
    assert f"'{number} {said}' (sentence 1) is not stated in the context: it says '{number} {stated}'" in wrong.reason
    right = one(grounded, actual=f"The storage tank holds {number} {stated}.", context=context)
    assert not kinds(right) & {"number", "unit"} and right.verdict == "pass", right.reason


def test_sentences_that_claim_nothing_are_evidence_of_nothing(make):
    assert [
        makes_claim(s)
        for s in (
            "Thanks, hope you enjoy it!",
            "Is it open on Sunday?",
            "Do you like thrillers.",
            "I have never seen it.",
            "No problem.",
            "It opened in 1889.",
        )
    ] == [False] * 5 + [True]
    grounded = make("groundedness", fail_on="all")
    talk = one(
        grounded, actual="You're welcome. Hope you enjoy the visit! Would you like the opening hours?", context=MUSEUM
    )
    assert talk.verdict == "pass" and talk.metrics["claims"] == 0 and "makes no claim" in talk.reason
    # a claim beside them is checked; the thanks do not lower its support
    mixed = one(grounded, actual="Thanks for asking! Entry is free for children under 12.", context=MUSEUM)
    assert mixed.verdict == "pass" and mixed.metrics["claims"] == 1


def test_an_unstated_fact_after_a_sentence_that_claims_nothing_names_its_own_sentence(make):
    result = one(
        make("groundedness", fail_on="all"),
        actual="Thanks for asking! The museum closes at 7 p.m. on weekdays.",
        context=MUSEUM,
    )
    assert result.verdict == "fail" and "(sentence 2)" in result.reason
    assert [(f["fact"], f["sentence"]) for f in result.details["unsupported_facts"]] == [("7 p.m.", 2)]


@pytest.mark.parametrize(
    ("answer", "context", "question"),
    [
        (
            "One in eight workers once worked at McDonald's.",
            ["One in eight Americans have been working at McDonald's."],
            None,
        ),
        (
            "No, you need not go to university to become a technician.",
            ["Becoming a technician means going to a short course."],
            "Do you need university to become a technician?",
        ),
    ],
)
def test_a_word_the_context_holds_in_another_form_is_shared(make, answer, context, question):
    """ "Shares nothing with the context" is said of a claim none of whose words the context uses in any form: "worked"
    is the context's "working"."""
    result = one(make("groundedness"), actual=answer, context=context, question=question)
    assert "shares nothing" not in result.reason and "unshared" not in kinds(result)


def test_an_abstention_after_a_lead_in_claims_nothing(make):
    answer = "Based on the given context, there is no indication that the castle has a moat. It has four towers."
    result = one(make("groundedness"), actual=answer, context=["The castle has four towers and a chapel."])
    assert result.verdict == "pass" and result.metrics["claims"] == 1, result.reason


def test_a_finding_repeated_in_several_sentences_is_said_once(make):
    looping = " ".join(["Refunds are possible."] * 4)
    result = one(make("groundedness", fail_on="all"), actual=looping, context=MUSEUM)
    assert result.verdict == "fail" and result.metrics["evidence"] == 4  # every piece still counts
    assert result.reason.count("shares nothing with the context") == 1
    assert "(the same in sentences 2, 3 and 4)" in result.reason
    assert [e["sentence"] for e in result.details["evidence"]] == [1, 2, 3, 4]


def test_a_short_answer_scored_by_its_words_fails_rather_than_unverified(make):
    accuracy = make("answer_accuracy")
    short = one(accuracy, actual="No", expected="Yes")
    assert short.verdict == "fail" and not short.passed
    same = one(accuracy, actual="yes", expected="Yes")
    assert same.verdict == "pass"


def test_a_reworded_answer_without_evidence_is_unverified_and_says_what_decides_it(make):
    grounded = make("groundedness", fail_on="all")
    result = one(grounded, actual="Kids below twelve get in without paying.", context=MUSEUM)
    assert result.verdict == "unverified" and result.passed and result.metrics["evidence"] == 0
    assert result.failed_metrics() == ["support"]
    [failing] = grounded.evaluate(
        [Case(actual="Kids below twelve get in without paying.", context=MUSEUM)], unverified="fail"
    )
    assert failing.verdict == "unverified" and not failing.passed
    record = json.loads(json.dumps(failing.to_dict()))
    assert record["verdict"] == "unverified" and Result.from_dict(record) == failing
    from pytest_llmeval.run.check import format_failure

    message = format_failure(failing)
    assert message.startswith(
        "llmeval groundedness unverified: no evidence against the answer, but it could not be confirmed"
    )
    assert "--llmeval-judge-model" in message and "--llmeval-detector=FAMILY:MODEL" in message


def test_records_written_before_verdicts_read_as_pass_or_fail():
    old = {
        "evaluator": "rouge",
        "metrics": {"rougeL": 0.2},
        "primary": "rougeL",
        "passed": False,
        "signature": {"evaluator": "rouge", "version": "1"},
    }
    assert verdict_of(old) == "fail" and verdict_of({**old, "passed": True}) == "pass"
    assert Result.from_dict(old).verdict == "fail"
    with pytest.raises(ValueError, match="verdict must be one of pass, fail, unverified"):
        Result.from_dict({**old, "verdict": "maybe"}).verdict  # noqa: B018 - an unknown verdict is refused, not read
    with pytest.raises(ValueError, match="verdict must be one of"):
        Result(
            "rouge",
            {"rougeL": 1.0},
            primary="rougeL",
            passed=True,
            thresholds={},
            higher_is_better={},
            signature=Result.from_dict(old).signature,
            verdict="maybe",
        )


def test_embeddings_method_runs_no_fact_layer(models, make):
    def parses():
        return [(p["model"], p["parsed"], p["cache_hits"]) for p in models.stats()["parsers"]]

    before = parses()
    catalog = one(
        make("groundedness", method="embeddings"),
        actual="The tower is 500 metres tall.",
        context=["The tower is 330 metres tall."],
    )
    assert catalog.verdict == "pass" and catalog.metrics["fact_support"] is None and "evidence" not in catalog.details
    assert parses() == before and "entities" not in catalog.signature.params  # nothing parsed, nothing looked up


def test_similarity_fails_on_a_changed_fact_and_leaves_a_distant_paraphrase_unverified(make):
    similar = make("semantic_similarity")
    changed = one(similar, actual="The tank holds 50 gallons.", expected="The tank holds 50 litres.")
    assert changed.verdict == "fail" and "'50 gallons'" in changed.reason
    distant = one(
        similar, actual="Young visitors are admitted at no charge.", expected="Entry is free for children under 12."
    )
    assert distant.verdict == "unverified" and distant.failed_metrics() == ["similarity"]
    catalog = one(
        make("semantic_similarity", facts=False),
        actual="Young visitors are admitted at no charge.",
        expected="Entry is free for children under 12.",
    )
    assert catalog.verdict == "fail"  # without the fact layer, the similarity alone decides, as the catalog's check


def test_a_judge_check_with_nothing_to_judge_is_unverified_not_a_silent_pass(server, tmp_path):
    pytest.importorskip("openai")
    from pytest_llmeval import Registry
    from pytest_llmeval.judges.cache import VerdictCache
    from pytest_llmeval.judges.openai_judge import OpenAIJudge
    from pytest_llmeval.judges.runner import JudgeRunner

    faithfulness = Registry(entry_points=False).create("faithfulness")
    faithfulness.bind_judge(
        JudgeRunner(
            OpenAIJudge("scripted", base_url=server.base_url, max_retries=0, max_concurrency=1),
            VerdictCache(str(tmp_path), "off"),
        )
    )
    server.script.append({"text": json.dumps({"claims": []})})
    [result] = faithfulness.evaluate([Case(actual="Hello there!", context=["The museum opens at 9 a.m."])])
    check_verdict(faithfulness, result)
    assert result.verdict == "unverified" and result.score is None and result.passed
    assert result.reason == "unverified: the judge found no claims in the answer to check"
    assert result.metrics["parse_failure"] == 0.0 and len(server.requests) == 1


def test_parse_shards_that_are_altered_or_foreign_are_not_trusted(tmp_path):
    from pytest_llmeval.models.stores import ParseStore

    store = ParseStore(str(tmp_path), "spacy:model==1|parse v2")
    entry = {"t": [[0, 5, "Paris", "PROPN", "ROOT", 0]], "s": [[0, 1]], "e": [[0, 5, "GPE"]]}
    path = store.save({"k1": entry, "k2": entry})
    assert ParseStore(str(tmp_path), "spacy:model==1|parse v2").load() == {"k1": entry, "k2": entry}
    assert ParseStore(str(tmp_path), "spacy:model==2|parse v2").load() == {}  # another parser's folder
    with open(path, "rb") as handle:
        head, body = handle.read().split(b"\n", 1)
    with open(path, "wb") as handle:
        handle.write(head + b"\n" + body.replace(b"Paris", b"Rome!"))  # same length, other words
    altered = ParseStore(str(tmp_path), "spacy:model==1|parse v2")
    assert altered.load() == {} and altered.rejected == 1 and not os.path.exists(path)
    store.save({"k3": entry}, name="odd.json")
    with open(store.directory + "/broken.json", "wb") as handle:
        handle.write(b"not json at all")
    survivor = ParseStore(str(tmp_path), "spacy:model==1|parse v2")
    assert survivor.load() == {"k3": entry} and survivor.rejected == 1


def test_any_text_parses_and_comes_back_from_the_cache(tmp_path):
    """Lone surrogates, NUL and empty texts parse, and the next process reads them back instead of parsing."""
    pytest.importorskip("spacy")
    if spacy_model() is None:
        pytest.skip("no spaCy English model installed")
    from pytest_llmeval.facts.syntax import parser_for
    from pytest_llmeval.models.cache import ModelCache

    texts = ["Paris is in France.", "odd \ud800 text\x00 with NUL", ""]
    first = parser_for(ModelCache(cache_dir=str(tmp_path), announce=lambda line: None), spacy_model())
    parsed = first.parse_many(texts)
    first.flush()
    again = parser_for(ModelCache(cache_dir=str(tmp_path), announce=lambda line: None), spacy_model())
    assert again.parse_many(texts) == parsed and again.parsed == 0 and again.hits == 3
    assert [p.text for p in parsed] == ["Paris is in France.", "odd \ufffd text\x00 with NUL", ""]


# -- the verdict on plain contexts: the evidence named, the short answer with its question, the calibrated cut-off --

CONTEXT = [
    "Brazil revenue was 15,969 million in 2023. Growth was 4 percent year on year.",
    "The chief executive officer is Jane Smith. She joined in 2019.",
    "Refunds are granted within 30 days of purchase with a receipt.",
]


def test_groundedness_names_the_ungrounded_sentence(make):
    answer = "Brazil revenue was 15,969 million in 2023. The moon is made of green cheese."
    catalog = one(make("groundedness", method="embeddings"), actual=answer, context=CONTEXT)
    assert not catalog.passed and catalog.primary == "groundedness"
    assert catalog.details["least_grounded"] == 1
    assert "least grounded sentence 'The moon is made of green cheese.'" in catalog.reason
    result = one(make("groundedness", fail_on="all"), actual=answer, context=CONTEXT)
    assert not result.passed and result.primary == "support" and result.metrics["fact_support"] == 1.0
    assert "least supported sentence 2 'The moon is made of green cheese.'" in result.reason
    # the catalog value is the same number whichever method gives the verdict
    assert result.metrics["groundedness"] == catalog.metrics["groundedness"]
    grounded = one(make("groundedness"), actual="Jane Smith is the chief executive officer.", context=CONTEXT)
    assert grounded.passed and grounded.metrics["groundedness"] > 0.75
    assert grounded.details["sentences"][0]["best_match"] == "The chief executive officer is Jane Smith."


def test_groundedness_catches_wrong_facts_and_names_them(make):
    context = ["The Eiffel Tower is 330 metres tall. It was completed in 1889 for the World's Fair in Paris."]
    wrong = one(
        make("groundedness", fail_on="all"),
        actual="The Eiffel Tower is 500 metres tall and was built by the Romans in 300 BC.",
        context=context,
    )
    assert not wrong.passed and wrong.metrics["fact_support"] < 1.0
    assert "'500 metres' (sentence 1) is not stated in the context" in wrong.reason
    assert "'Romans' (sentence 1) appears nowhere in the context" in wrong.reason
    assert {f["fact"] for f in wrong.details["unsupported_facts"]} >= {"500 metres", "Romans"}
    # embedding similarity alone passes it: the catalog value is kept, and is high
    assert wrong.metrics["groundedness"] > 0.75
    restated = one(
        make("groundedness"), actual="The Eiffel Tower is 330 m tall. It was completed in 1889.", context=context
    )
    assert restated.passed, restated.reason


def test_short_answer_is_judged_with_its_question(make):
    context = [
        "Early Work is a poetry collection by Patti Smith, published in 1994. Patricia Lee Smith is an American "
        "singer-songwriter, poet and visual artist who became part of the New York City punk rock movement."
    ]
    question = "What is the nationality of the singer-songwriter who wrote the poetry collection Early Work?"
    right = one(make("groundedness"), actual="American", context=context, question=question)
    assert right.passed and right.details["short_answer"] and right.details["claims"][0]["claim"].startswith("What is")
    # the bare word is far from the paragraph: the catalog value alone would fail it
    assert right.metrics["groundedness"] < 0.5
    wrong = one(make("groundedness", fail_on="all"), actual="Irish", context=context, question=question)
    assert not wrong.passed and "'Irish' (the answer) appears nowhere in the context" in wrong.reason
    long_form = one(make("groundedness", short_answer_words=0), actual="American", context=context, question=question)
    assert not long_form.details["short_answer"]


def test_groundedness_threshold_is_calibrated_per_model_and_signed(make, models):
    evaluator = make("groundedness")
    assert evaluator.model_family() == "all-minilm-l6-v2"
    [result] = evaluator.evaluate([Case(actual="Jane Smith is the CEO.", context=CONTEXT)])
    assert dict(result.thresholds) == {"support": 0.7, "evidence": 0.0, "concerns": 0.0}
    assert dict(result.signature.thresholds) == dict(result.thresholds)
    assert "thresholds=concerns:0,evidence:0,support:0.7" in result.signature.key
    [embeddings] = make("groundedness", method="embeddings").evaluate(
        [Case(actual="Jane Smith is the CEO.", context=CONTEXT)]
    )
    calibrated = type(evaluator).metric_specs()["groundedness"].calibrated
    assert embeddings.thresholds["groundedness"] == calibrated["all-minilm-l6-v2"]
    assert embeddings.signature.key != result.signature.key
