"""Sentences that claim nothing about the source, lead-ins that frame a claim, refusals and Markdown answers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval.facts.claims import REASONS, framing, markdown_sentences, non_claim, refusal
from pytest_llmeval.text.basics import split_sentences

QUESTION = "What is the height of the Eiffel Tower?"

FRAMED = [
    (
        "Based on the provided passages, the tower is 330 m tall.",
        "Based on the provided passages",
        "the tower is 330 m tall.",
    ),
    ("According to passage [2], the museum opens at 9 am.", "According to passage [2]", "the museum opens at 9 am."),
    (
        "The context states that the bridge was built in 1932.",
        "The context states that",
        "the bridge was built in 1932.",
    ),
    (
        "As mentioned in the text, the river floods every spring.",
        "As mentioned in the text",
        "the river floods every spring.",
    ),
    (
        "From the information provided, it is clear that the firm has 300 staff.",
        "From the information provided, it is clear that",
        "the firm has 300 staff.",
    ),
    ("Per the documents, the fee is $20.", "Per the documents", "the fee is $20."),
    (
        "As per the JSON data, the store is located in Austin.",
        "As per the JSON data",
        "the store is located in Austin.",
    ),
    (
        "In the passage, the author argues that rents rose by 5%.",
        "In the passage, the author argues that",
        "rents rose by 5%.",
    ),
    ("Passage 2 says the tower is 330 m tall.", "Passage 2 says", "the tower is 330 m tall."),
    ("The article notes that the lake froze in 1963.", "The article notes that", "the lake froze in 1963."),
    (
        "It is stated in the provided context that the park closes at dusk.",
        "It is stated in the provided context that",
        "the park closes at dusk.",
    ),
    (
        "As the passage states, the dam holds 3 billion litres.",
        "As the passage states",
        "the dam holds 3 billion litres.",
    ),
    ("Please note that the store closes at 5 pm.", "Please note that", "the store closes at 5 pm."),
    ("I'm not sure, but I think the ferry leaves at noon.", "I'm not sure, but I think", "the ferry leaves at noon."),
    ("The tower is 330 m tall, according to the article.", "according to the article", "The tower is 330 m tall."),
    ("The tower is 330 m tall [1].", "[1]", "The tower is 330 m tall."),
    ("The museum opened in 1889 (Passage 3).", "(Passage 3)", "The museum opened in 1889."),
    ("Answer: The capital is Canberra.", "Answer", "The capital is Canberra."),
    ("Here are the key facts: the tower is 330 m tall.", "Here are the key facts", "the tower is 330 m tall."),
    (
        "Based on the information provided in the passages, the hotel has 120 rooms.",
        "Based on the information provided in the passages",
        "the hotel has 120 rooms.",
    ),
    (
        "Based solely on the context given, the drug was approved in 2019.",
        "Based solely on the context given",
        "the drug was approved in 2019.",
    ),
    (
        "Looking at the retrieved documents, the CEO is Jane Doe.",
        "Looking at the retrieved documents",
        "the CEO is Jane Doe.",
    ),
    ("Given the data above, revenue grew 12%.", "Given the data above", "revenue grew 12%."),
    ("To answer your question, the train takes 3 hours.", "To answer your question", "the train takes 3 hours."),
    (
        "However, according to documents 1 and 3, the bridge is closed.",
        "However, according to documents 1 and 3",
        "the bridge is closed.",
    ),
    ("The records show that he was born in 1900.", "The records show that", "he was born in 1900."),
    ("Based   on the   passages,\nthe lake is 40 km long.", "Based on the passages", "the lake is 40 km long."),
]


@pytest.mark.parametrize(("sentence", "lead", "claim"), FRAMED)
def test_framing_returns_the_lead_in_and_the_claim_that_remains(sentence, lead, claim):
    assert framing(sentence) == (lead, claim)
    assert non_claim(sentence, QUESTION) is None  # a framed claim is still a claim


NOT_FRAMED = [
    "Based in Paris, the firm employs 300 people.",
    "The article was published in 1990.",
    "In 1990, the article was published.",
    "According to NASA, the comet returns every 76 years.",
    "From Monday to Friday, the shop opens at 9.",
    "Information is power.",
    "The data center is in Oregon.",
    "The text messages were sent at 5 pm.",
    "The sources of the Nile are in Uganda.",
    "It appears in chapter 2.",
    "In context of the war, rationing began in 1940.",
    "Given enough time, the glacier will melt.",
    "The documents were signed in 1648.",
    "You can see the tower from the hotel.",
    "",
    "Based on the passages,",
]


@pytest.mark.parametrize("sentence", NOT_FRAMED)
def test_a_sentence_that_names_no_source_is_not_framed(sentence):
    assert framing(sentence) is None


CATEGORIES = {
    "about the sources": [
        "The passages provide information about the topic.",
        "The provided passages are not relevant to the question.",
        "None of the passages are relevant.",
        "Passage 2 is the most relevant to the question.",
        "Let me analyze the passages.",
        "I reviewed the provided documents carefully.",
        "The answer can be found in passage 3.",
        "According to the provided context:",
        "The passages discuss the same topic.",
        "There are three passages provided.",
        "Both passages contain useful information.",
        "The documents are consistent with each other.",
        "This information is found in the second paragraph.",
        "I've gone through all of the passages to find the answer.",
        "The context is limited.",
        "The passages contain the answer to this question.",
        "The information provided is not sufficient to answer the question.",
        "The relevant passage is passage 2.",
        "Overall, the passages provide a comprehensive overview of the topic.",
    ],
    "prompt echo": [
        "Here is a summary of the article in 94 words:",
        "Here's a description of the business based on the JSON data:",
        "Here are the key points:",
        "Below is a brief overview of the report.",
        "This summary is 94 words long.",
        "(94 words)",
        "Word count: 94",
        "The question asks about the height of the Eiffel Tower.",
        "You asked about the opening hours.",
        "I have summarized the article in 94 words.",
        "I've listed the key points below.",
        "The summary is written in a neutral tone.",
        "What is the height of the Eiffel Tower",
        "The height of the Eiffel Tower.",
        "The following is a rewritten version of the text.",
        "Your question is about the tower's height.",
        "Here's what I found:",
        "To summarize the article in under 100 words:",
        "Let me summarize the key points from the passages.",
        "I've kept the response under 100 words as requested.",
    ],
    "closing": [
        "Let me know if you have any further questions.",
        "I hope this helps!",
        "Hope this helps.",
        "Feel free to ask if you need anything else.",
        "If you have any other questions, just ask.",
        "Have a great day!",
        "Thanks for asking!",
        "Don't hesitate to reach out.",
        "Happy to help!",
        "Please let me know if you need more details.",
        "I hope the information above is useful.",
        "I'm always happy to help.",
        "Enjoy your visit!",
        "Thank you for your question.",
        "Is there anything else I can help you with?",
    ],
    "hedge": [
        "Please note that this information may be outdated.",
        "Prices may vary.",
        "I'm not sure.",
        "I may be wrong.",
        "Please check the official website for the latest hours.",
        "As an AI, I don't have access to real-time data.",
        "It's hard to say.",
        "Note that the hours may change on holidays.",
        "This is only an estimate.",
        "Keep in mind that this list is not exhaustive.",
        "It is always best to confirm directly with the hotel.",
        "I am not entirely certain about this.",
        "I'm not 100% sure about this.",
        "I would recommend checking the museum's website for the most up-to-date information.",
        "Please note that I am an AI and may make mistakes.",
    ],
    "self-assessment": [
        "Therefore, I can confidently answer the question.",
        "Based on the provided passages, I can confidently answer the question.",
        "I cannot be certain.",
        "I am confident in this answer.",
        "This answer is supported by the passages.",
        "This fully answers the question.",
        "I'm fairly confident.",
        "My answer is based solely on the provided context.",
        "I have answered the question.",
        "I cannot be completely sure of this.",
        "The above response is accurate and complete.",
        "I can confidently say that this answer is correct.",
        "Therefore, the question can be answered.",
        "Looking at the passages, I can see the answer.",
        "The answer above is based on the provided context.",
    ],
    "heading": [
        "## Summary",
        "# Key facts about the tower",
        "Key points:",
        "The main ingredients are:",
        "Opening hours:",
        "**Summary**",
        "Step 1:",
        "Pros and cons:",
        "The steps are as follows:",
        "Important details include:",
        "Summary:",
    ],
    "opener": [
        "Great question!",
        "Certainly!",
        "Sure.",
        "Of course!",
        "I'd be happy to help with that.",
        "Absolutely.",
        "Good question.",
        "No problem!",
        "Let's dive in.",
        "Gladly!",
    ],
}


@pytest.mark.parametrize(("reason", "sentence"), [(r, s) for r, ss in CATEGORIES.items() for s in ss])
def test_sentences_that_claim_nothing_are_named(reason, sentence):
    assert reason in REASONS
    assert non_claim(sentence, QUESTION) == reason


CLAIMS = [
    "The museum does not open on Mondays.",
    "The tower is 330 m tall.",
    "The company is not listed on the stock exchange.",
    "There is no evidence that the drug causes cancer.",
    "Breakfast is not provided.",
    "Please note that the store closes at 5 pm.",
    "Here is the Eiffel Tower, built in 1889.",
    "The store has three locations:",
    "Paris is the capital of France.",
    "I could not see the film.",
    "I don't know him personally.",
    "The report did not cover sports.",
    "This is the tallest tower in Paris.",
    "The answer is 42.",
    "The question of succession was settled in 1701.",
    "You can see the tower from the hotel.",
    "The data shows that sales rose 5%.",
    "Let me know if the 3 pm slot works.",
    "Visit the Louvre early in the morning.",
    "I hope to visit Paris in 2025.",
    "The passages describe the construction of the bridge in 1932.",
    "The article was published in 1990.",
    "The exact cause of the fire cannot be determined.",
    "The city lacks affordable housing.",
    "It is hard to overstate the importance of the canal.",
    "The Eiffel Tower is 330 metres tall.",
    "Passage 2 says the tower is 330 m tall.",
    "Contact the store at 555-0100 for reservations.",
    "Prices rose by 5% in 2023.",
    "The documents are stored in the national archive.",
    "The sources of the Nile are in Uganda.",
    "Based in Paris, the firm employs 300 people.",
    "The Eiffel Tower was not designed by Eiffel.",
    "Is the tower open at night?",
    "The information desk is on the ground floor.",
    "The data was collected between 2010 and 2015.",
    "Context matters when interpreting the results.",
    "We don't know who built Stonehenge.",
    "There is no information desk at the station.",
    "No details were spared in the restoration.",
    "Let me explain: the engine has 4 cylinders.",
    "To summarize, the tower is 330 m tall.",
    "Start by preheating the oven to 180 C.",
    "The answer to the riddle is a shadow.",
    "The reviews are mixed.",
    "It seems that the museum is closed on Mondays.",
    "Keep in mind that the park closes at dusk.",
    "In the context of the war, rationing began in 1940.",
]


@pytest.mark.parametrize("sentence", CLAIMS)
def test_near_misses_are_claims(sentence):
    assert non_claim(sentence, QUESTION) is None
    assert not refusal(sentence)


def test_a_lead_in_frames_a_non_claim_too():
    assert non_claim("Based on the passages, I hope this helps.") == "closing"
    assert non_claim("According to the passages, there is no information about parking.") == "refusal"
    assert non_claim("Please note that prices may vary.") == "hedge"


def test_the_question_is_echoed_only_when_the_sentence_adds_nothing():
    assert non_claim("Who designed the Eiffel Tower?", "Who designed the Eiffel Tower?") == "prompt echo"
    assert non_claim("The Eiffel Tower was designed.", "Who designed the Eiffel Tower?") == "prompt echo"
    assert non_claim("Gustave Eiffel designed the Eiffel Tower.", "Who designed the Eiffel Tower?") is None
    assert non_claim("The Eiffel Tower is in Paris.", "Is the Eiffel Tower in Paris?") is None  # answers yes
    assert non_claim("Earth is larger than Mars.", "Which is larger, Mars or Earth?") is None
    assert non_claim("Sure.", "Is the museum open on Sundays?") is None  # a yes


REFUSALS = [
    "The passages do not mention the price.",
    "The provided context does not contain information about parking.",
    "There is no information in the text about the architect.",
    "I could not find the opening date in the provided documents.",
    "The article does not specify the cost.",
    "None of the documents mention the founder.",
    "I don't know.",
    "The answer cannot be determined from the passages.",
    "It is not clear from the context whether the museum is open.",
    "The price is not mentioned.",
    "Based on the passages, I cannot determine the height.",
    "Unfortunately, the information is not available in the documents.",
    "No information about parking is provided.",
    "The passages are silent on the matter.",
    "I don't have enough information to answer that.",
    "The context doesn't say when the bridge opened.",
    "Passage 3 makes no mention of the architect.",
    "There's no mention of a fee in the provided text.",
    "I was unable to find the answer in the passages.",
    "The height is not specified in the article.",
    "Neither passage mentions the date.",
    "The provided documents lack details about the warranty.",
    "I'm sorry, but I couldn't find that information.",
    "Sorry, the provided context doesn't include that.",
    "The answer is not in the provided documents.",
    "It is not possible to determine the opening time from the passages.",
    "I am unable to answer this question based on the provided context.",
    "The passages do not provide a clear answer.",
    "Based on the given context, it is not clear which country is the largest producer of rye.",
    "According to the context, it is not specified what denomination the church belongs to.",
    "It is unclear whether the museum opens on Sundays.",
    "Based on the given context, there is no indication that she has super powers.",
    "According to the passages, there is no evidence that the drug was tested on children.",
]


@pytest.mark.parametrize("sentence", REFUSALS)
def test_refusals_say_the_sources_lack_the_answer(sentence):
    assert refusal(sentence)
    assert non_claim(sentence) == "refusal"


NOT_REFUSALS = [
    "The museum does not open on Mondays.",
    "The company is not listed on the stock exchange.",
    "There is no evidence that the drug causes cancer.",
    "Breakfast is not provided.",
    "I could not see the film.",
    "The bridge was not finished until 1932.",
    "The exact cause of the fire cannot be determined.",
    "The team did not mention the injury at first.",
    "There is no parking at the venue.",
    "The text does not rhyme.",
    "The passage is narrow and steep.",
    "Passage 2 says the museum does not open on Mondays.",
    "Based in Paris, there is no sign of a slowdown at the firm.",
    "It is not clear water that flows from the tap.",
]


@pytest.mark.parametrize("sentence", NOT_REFUSALS)
def test_a_negative_claim_about_the_world_is_not_a_refusal(sentence):
    assert not refusal(sentence)


@pytest.mark.parametrize("sentence", ["(Contexts,", "[Passages 1-3]", "Passage 2."])
def test_a_bare_mention_of_the_sources_is_about_them(sentence):
    """What is left of a truncated citation ("... (Contexts [1], [2]") names the sources and claims nothing."""
    assert non_claim(sentence) == "about the sources"


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (
            "## Summary\n\nThe tower is 330 m tall. It opened in 1889.\n\n### Key facts\n- Height: 330 m\n- Opened: "
            "**1889**\n"
            "- Designer: *Gustave Eiffel*",
            [
                "Summary:",
                "The tower is 330 m tall.",
                "It opened in 1889.",
                "Key facts:",
                "Height: 330 m",
                "Opened: 1889",
                "Designer: Gustave Eiffel",
            ],
        ),
        (
            "Key points:\n1. Preheat the oven to 180 C.\n2. Mix the flour\n   with the sugar.\n3) Bake for 20 minutes.",
            ["Key points:", "Preheat the oven to 180 C.", "Mix the flour with the sugar.", "Bake for 20 minutes."],
        ),
        ("**Hours:** 10 am - 8 pm\n**Address:** 5 Main St.", ["Hours: 10 am - 8 pm", "Address: 5 Main St."]),
        (
            "| Day | Hours |\n|---|:---:|\n| Monday | 9-5 |\n| Tuesday | closed |",
            ["Day: Monday; Hours: 9-5", "Day: Tuesday; Hours: closed"],
        ),
        ("| Monday | 9-5 |\n| Tuesday | closed |", ["Monday; 9-5", "Tuesday; closed"]),
        ("Step 1: Open the app.\nStep 2: Tap `Settings`.", ["Open the app.", "Tap Settings."]),
        ("- [x] Buy milk\n- [ ] Call [Bob](http://example.com)", ["Buy milk", "Call Bob"]),
        ("Title\n=====\nSome text here.", ["Title:", "Some text here."]),
        ("> The museum opens at 9.\n> It closes at 5.", ["The museum opens at 9.", "It closes at 5."]),
        ("- Opens at 9\nCloses at 5.", ["Opens at 9", "Closes at 5."]),
        ("* First item\n* Second item\n\n---\n\nThe end.", ["First item", "Second item", "The end."]),
        ("**Summary**\nThe tower is tall.", ["Summary:", "The tower is tall."]),
        (
            "+ One thing. Another thing.\n+ A ~~third~~ fourth thing",
            ["One thing.", "Another thing.", "A third fourth thing"],
        ),
        (
            "1. **Eiffel Tower** - 330 m\n2. **Tokyo Skytree** - 634 m",
            ["Eiffel Tower - 330 m", "Tokyo Skytree - 634 m"],
        ),
    ],
)
def test_markdown_is_read_as_sentences(text, sentences):
    assert markdown_sentences(text) == sentences


def test_markdown_headings_claim_nothing():
    sentences = markdown_sentences("# Overview\nThe tower is tall.\n\n**Key points**\n- It is 330 m tall.")
    assert [non_claim(s) for s in sentences] == ["heading", None, "heading", None]


@pytest.mark.parametrize(
    "text",
    [
        "One. Two.",
        "The tower is tall. It opened in 1889.\n\nIt has 3 floors.",
        "Dr. Smith arrived at 5 p.m. on Monday.",
        "snake_case names are fine. 2 * 3 = 6.",
        "A | B",
        "",
        "   ",
        "It costs $5. Really.",
        "Hours: 9 to 5\nClosed Sundays.",
    ],
)
def test_plain_prose_is_split_as_before(text):
    assert markdown_sentences(text) == split_sentences(text)


@pytest.mark.parametrize(
    "piece",
    [
        "Based on the ",
        "passage 1 and 2 and ",
        "*a",
        "[1]",
        "(",
        "|",
        "_x",
        "it is clear that ",
        "Here is ",
        "is not mentioned ",
        "I could not find ",
        "there is no evidence ",
        "1. ",
        "- ",
        "**",
        "`",
        "\n",
    ],
)
def test_long_adversarial_text_is_read(piece):
    text = (piece * (10_000 // len(piece) + 1))[:10_000]  # a regex with nested quantifiers would not return
    assert isinstance(markdown_sentences(text), list)
    assert non_claim(text, text) in (*REASONS, None) and refusal(text) in (True, False)
    assert framing(text) is None or framing(text)[1]


CODE_POINTS = st.lists(st.integers(0, 0x10FFFF), max_size=60).map(lambda cs: "".join(map(chr, cs)))
MARKUP = st.lists(
    st.sampled_from(
        [
            "**",
            "*",
            "_",
            "__",
            "`",
            "|",
            "#",
            "- ",
            "1. ",
            "\n",
            " ",
            ":",
            "[",
            "](",
            ")",
            "passage",
            "based on the",
            "according to",
            "not",
            "mention",
            "I",
            "Here is",
            "words",
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), CODE_POINTS, MARKUP), st.one_of(st.none(), st.text(max_size=40), MARKUP))
def test_arbitrary_text_never_raises(text, question):
    sentences = markdown_sentences(text)
    assert isinstance(sentences, list) and all(isinstance(s, str) for s in sentences)
    assert non_claim(text, question) in (*REASONS, None)
    assert refusal(text) in (True, False)
    framed = framing(text)
    assert framed is None or (isinstance(framed[0], str) and isinstance(framed[1], str) and framed[1])
