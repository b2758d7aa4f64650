"""The ``sentiment`` check: Sentiment of the answer in [-1, 1] (VADER compound, or a classifier's 2p - 1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score, package_version
from ...kit import require_choice, require_type
from ...kit import ModelEvaluator
from ...kit import Result
from ...kit.text import split_sentences

__all__ = ["assert_sentiment", "Sentiment"]


_BATCH = 32


def assert_sentiment(
    actual: str,
    *,
    backend: str = "vader",
    scorer: str | None = None,
    positive_label: str = "POSITIVE",
    scale: str = "signed",
    classifier: str | None = None,
    **kwargs: Any,
) -> Result:
    """The answer's sentiment is at least the threshold (default -0.05: not negative; scale -1..1).

    ``scale="probability"`` decides on ``positivity`` in [0, 1] instead (default threshold 0.475, the same verdicts).
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "backend": backend,
        "model": scorer_argument("assert_sentiment", scorer, classifier=classifier),
        "positive_label": positive_label,
        "scale": scale,
    }
    return check(Sentiment, actual=actual, params=params, **kwargs)


#: Longest text VADER scores in one piece; longer ones are scored in chunks of whole sentences.
VADER_CHUNK = 2000


def _chunks(text: str, limit: int) -> list[str]:
    """Whole sentences packed into pieces of at most ``limit`` characters (a longer sentence is cut)."""

    pieces: list[str] = []
    current = ""
    for sentence in split_sentences(text) or [text]:
        while len(sentence) > limit:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[:limit])
            sentence = sentence[limit:]
        if current and len(current) + 1 + len(sentence) > limit:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


class Sentiment(ModelEvaluator):
    """Sentiment of the answer in [-1, 1] (VADER compound, or a classifier's 2p - 1).

    Parameters:
        backend: ``vader`` (offline lexicon) or ``transformers`` (a sequence classifier).
        model: the classifier (name or folder) for the transformers backend.
        positive_label: the classifier's label of the positive class.
        scale: ``signed`` decides on ``sentiment`` in [-1, 1] (VADER's compound); ``probability`` on
            ``positivity`` in [0, 1] (seed 003's classifier shape: the positive class's probability, or
            VADER's compound moved to [0, 1]). Both are always recorded; the defaults give the same verdicts.
    """

    name = "sentiment"
    helper = "assert_sentiment"
    extra = "sentiment"
    version = "2"  # 2: texts over 2,000 characters are scored in chunks of sentences
    description = "The answer is not negative"
    defaults: ClassVar[Mapping[str, Any]] = {
        "backend": "vader",
        "model": None,
        "positive_label": "POSITIVE",
        "scale": "signed",
    }
    metrics = (
        MetricSpec(
            "sentiment", "-1 very negative .. 1 very positive", range=(-1.0, 1.0), threshold=-0.05, primary=True
        ),
        MetricSpec("positivity", "0 negative .. 1 positive: (sentiment + 1) / 2", threshold=0.475),
        MetricSpec("positive", "share of positive sentiment (VADER)", threshold=None),
        MetricSpec("negative", "share of negative sentiment (VADER)", higher_is_better=False, threshold=None),
        MetricSpec("neutral", "share of neutral sentiment (VADER)", threshold=None),
    )

    def configure(self) -> None:
        require_choice(self.name, "backend", self.params["backend"], ("vader", "transformers"))
        if self.params["backend"] == "transformers":
            require_type(
                self.name,
                "model",
                self.params["model"],
                str,
                "a sequence-classification model name or folder (e.g. distilbert-base-uncased-finetuned-sst-2-english)",
            )
        require_type(self.name, "positive_label", self.params["positive_label"], str, "a label name")
        require_choice(self.name, "scale", self.params["scale"], ("signed", "probability"))

    def active_primary(self) -> MetricSpec:
        return self.metric_specs()["positivity" if self.params["scale"] == "probability" else "sentiment"]

    def backend(self) -> str:
        return package_version("vaderSentiment" if self.params["backend"] == "vader" else "transformers")

    def scoring_model(self) -> str | None:
        if self.params["backend"] == "vader":
            return "vader lexicon"
        from ...kit.models import model_identity

        return model_identity(self.params["model"])

    def _vader(self) -> Any:
        def build() -> Any:
            try:
                from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
            except ImportError as exc:
                raise ImportError(
                    f"{self.name}: the vader backend needs pip install 'pytest-llm-verdict[sentiment]'"
                ) from exc
            return SentimentIntensityAnalyzer()

        return self.model_cache().model("sentiment lexicon (VADER)", build)

    def _classifier(self) -> Any:
        from ...kit.models import load_classifier

        return load_classifier(self, self.params["model"])

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        texts = [c.actual or "" for c in cases]
        if self.params["backend"] == "vader":
            analyzer = self._vader()
            out = []
            for text in texts:
                if len(text) <= VADER_CHUNK:
                    polarity = analyzer.polarity_scores(text)
                    out.append(
                        Score(
                            {
                                "sentiment": polarity["compound"],
                                "positivity": (polarity["compound"] + 1) / 2,
                                "positive": polarity["pos"],
                                "negative": polarity["neg"],
                                "neutral": polarity["neu"],
                            },
                            f"VADER compound {polarity['compound']:+.3f}",
                            {},
                        )
                    )
                    continue
                # VADER's time grows with the square of the text: score chunks of whole sentences and
                # take the length-weighted means (VADER's own advice for texts beyond a paragraph).
                chunks = _chunks(text, VADER_CHUNK)
                scored = [(len(chunk), analyzer.polarity_scores(chunk)) for chunk in chunks]
                total = sum(weight for weight, _ in scored)
                mean = {
                    key: sum(weight * p[key] for weight, p in scored) / total
                    for key in ("compound", "pos", "neg", "neu")
                }
                out.append(
                    Score(
                        {
                            "sentiment": mean["compound"],
                            "positivity": (mean["compound"] + 1) / 2,
                            "positive": mean["pos"],
                            "negative": mean["neg"],
                            "neutral": mean["neu"],
                        },
                        f"VADER compound {mean['compound']:+.3f} (length-weighted mean over {len(chunks)} chunks of "
                        "sentences)",
                        {"chunks": len(chunks)},
                    )
                )
            return out
        import torch

        tokenizer, model, device = self._classifier()
        labels = {str(v).upper(): k for k, v in model.config.id2label.items()}
        positive = labels.get(self.params["positive_label"].upper())
        if positive is None:
            raise ValueError(
                f"{self.name}: the classifier has no label {self.params['positive_label']!r}; its labels: "
                f"{sorted(labels)}"
            )
        probabilities = []
        for start in range(0, len(texts), _BATCH):
            batch = tokenizer(texts[start : start + _BATCH], padding=True, truncation=True, return_tensors="pt").to(
                device
            )
            with torch.no_grad():
                probabilities.extend(model(**batch).logits.float().softmax(dim=-1)[:, positive].cpu().tolist())
        return [
            Score(
                {"sentiment": 2 * p - 1, "positivity": p, "positive": None, "negative": None, "neutral": None},
                f"positive with probability {p:.3f}",
                {"positive_probability": p},
            )
            for p in probabilities
        ]
