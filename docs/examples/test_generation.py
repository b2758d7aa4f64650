from types import SimpleNamespace

from pytest_llmeval import assert_matches, measure_generation


class Client:  # an OpenAI-style client; here, one recorded reply
    def create(self, model, messages):
        return SimpleNamespace(
            choices=[SimpleNamespace(message=SimpleNamespace(content="Canberra is the capital."))],
            usage=SimpleNamespace(prompt_tokens=42, completion_tokens=6),
        )


def test_answer():
    client = Client()
    with measure_generation(price=(0.15, 0.60), max_latency_ms=3000, max_cost=0.01, model="gpt-4o-mini") as gen:
        gen.usage(client.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Capital of Australia?"}]))
    assert_matches(gen.text, '"Canberra"')
