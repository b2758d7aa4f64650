"""A tiny RAG function: the application under test. It retrieves passages and asks a model through the openai client."""

import os

import openai

PASSAGES = {
    "museum": "The city museum opens at 9 am. A guided tour costs 8 euros and lasts 45 minutes.",
    "harbour": "Ferries leave the harbour every hour from 7 am; the last one returns at 10 pm.",
}


def retrieve(question: str) -> list[str]:
    words = set(question.lower().replace("?", "").split())
    return [text for key, text in PASSAGES.items() if key in words] or list(PASSAGES.values())


def answer(question: str) -> tuple[str, list[str]]:
    """The model's answer to ``question`` from the retrieved passages, and the passages."""
    context = retrieve(question)
    client = openai.OpenAI(
        base_url=os.environ.get("RAG_BASE_URL"), api_key=os.environ.get("OPENAI_API_KEY") or "none-on-replay"
    )
    reply = client.chat.completions.create(
        model=os.environ.get("RAG_MODEL", "gpt-4o-mini"),
        messages=[
            {"role": "system", "content": "Answer from these passages only:\n" + "\n".join(context)},
            {"role": "user", "content": question},
        ],
        temperature=0,
    )
    return reply.choices[0].message.content or "", context
