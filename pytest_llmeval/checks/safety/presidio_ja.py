"""Japanese set-up of the Presidio PII check (seed 003, "Japanese PII Occurrence Count").

`PresidioPii` with ``language="ja"`` analyses Japanese text with GiNZA's spaCy pipeline
``ja_ginza`` (``pip install 'pytest-llm-verdict[presidio-ja]'``) and these additions:

* GiNZA's named-entity labels (an extended set of about 190: ``Person``, ``Province``, ``City``, ...)
  mapped to Presidio's entity types: people to ``PERSON``; prefectures, cities, wards, districts and postal
  codes to ``LOCATION`` (a place, not personal alone: counted only when ``entities=`` names it); all other
  labels (countries, dates, organisations, products, and GiNZA's own e-mail and phone labels, which cut
  numbers in pieces) are ignored.
* A Japanese address pattern, ``JP_ADDRESS`` (a prefecture, a city, ward, town or village, then the block
  numbers): where someone lives or receives post, which a place name alone does not say. GiNZA labels
  addresses inconsistently ("神奈川県横浜市中区山下町10番地" as an ordinal number).
* Phone numbers read by the phonenumbers library for Japan as well as Presidio's default regions
  (``03-1234-5678``, ``090-1234-5678``, ``+81 3-1234-5678``, full-width digits), with Japanese context words.
* Japanese passport numbers (``JP_PASSPORT``: two capital letters and seven digits), counted only with a
  context word such as 旅券 or パスポート nearby.
* Presidio's language-independent recognizers (e-mail, IP and MAC addresses, IBAN, ...) as for English.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "JA_SPACY_MODEL",
    "GINZA_ENTITY_MAPPING",
    "ja_nlp_configuration",
    "ignore_unmapped_labels",
    "add_ja_recognizers",
]


JA_SPACY_MODEL = "ja_ginza"


#: GiNZA (Sekine's extended named entities) label -> Presidio entity type; other labels are ignored.
GINZA_ENTITY_MAPPING = {
    "Person": "PERSON",
    "Province": "LOCATION",  # 都道府県
    "City": "LOCATION",  # 市区町村
    "County": "LOCATION",  # 郡
    "Postal_Address": "LOCATION",  # 〒100-0005
    "GPE_Other": "LOCATION",
    "Domestic_Region": "LOCATION",
    "Location_Other": "LOCATION",
}


_PREFECTURES = (
    "北海道|青森県|岩手県|宮城県|秋田県|山形県|福島県|茨城県|栃木県|群馬県|埼玉県|千葉県|東京都|神奈川県|新潟県|富山県|"
    "石川県|福井県|山梨県|長野県|岐阜県|静岡県|愛知県|三重県|滋賀県|京都府|大阪府|兵庫県|奈良県|和歌山県|鳥取県|島根県|"
    "岡山県|広島県|山口県|徳島県|香川県|愛媛県|高知県|福岡県|佐賀県|長崎県|熊本県|大分県|宮崎県|鹿児島県|沖縄県"
)


_PHONE_CONTEXT = ["電話", "携帯", "連絡先", "tel", "fax", "ファックス", "ファクス", "番号"]


_PASSPORT_CONTEXT = ["旅券", "パスポート", "passport"]


#: A block or house number: a prefecture and city without one is a place, not an address.
_BLOCK_NUMBER = re.compile(r"[0-9０-９]|丁目|番地|番|号")


def _address_pattern() -> str:
    # municipality characters: kanji, katakana and hiragana except the particles that end a place name
    kana = "".join(chr(c) for c in range(ord("ぁ"), ord("ん") + 1) if chr(c) not in "はをにでへ")
    municipality = f"[一-龥々ァ-ヶー{kana}]{{1,8}}?[市区郡町村]"
    tail = r"(?:丁目|番地|番|号|[一-龥々ァ-ヶーの0-9０-９\-－‐−])*"
    return f"(?:{_PREFECTURES})(?:{municipality})+{tail}"


def ja_nlp_configuration(model: str) -> dict[str, Any]:
    """Presidio's ``nlp_configuration`` for a Japanese spaCy pipeline with GiNZA's labels."""
    return {
        "nlp_engine_name": "spacy",
        "models": [{"lang_code": "ja", "model_name": model}],
        "ner_model_configuration": {"model_to_presidio_entity_mapping": dict(GINZA_ENTITY_MAPPING)},
    }


def ignore_unmapped_labels(nlp_engine: Any) -> None:
    """Ignore every label of the loaded pipeline that `GINZA_ENTITY_MAPPING` does not map (Presidio would
    otherwise keep them under GiNZA's name, with a warning each time)."""
    config = nlp_engine.ner_model_configuration
    labels: set[str] = set()
    for nlp in getattr(nlp_engine, "nlp", {}).values():
        if "ner" in nlp.pipe_names:
            labels.update(nlp.get_pipe("ner").labels)
    config.labels_to_ignore = sorted(
        set(config.labels_to_ignore or ()) | (labels - set(config.model_to_presidio_entity_mapping))
    )


def add_ja_recognizers(analyzer: Any) -> None:
    """Replace the default phone recognizer for Japanese and add the address and passport patterns."""
    from presidio_analyzer import Pattern, PatternRecognizer
    from presidio_analyzer.predefined_recognizers import PhoneRecognizer

    registry = analyzer.registry
    registry.remove_recognizer("PhoneRecognizer", language="ja")
    regions = ("JP", *(r for r in PhoneRecognizer.DEFAULT_SUPPORTED_REGIONS if r != "JP"))
    registry.add_recognizer(
        PhoneRecognizer(
            supported_language="ja", supported_regions=regions, context=[*PhoneRecognizer.CONTEXT, *_PHONE_CONTEXT]
        )
    )
    registry.add_recognizer(
        PatternRecognizer(
            "JP_PASSPORT",
            name="JpPassportRecognizer",
            supported_language="ja",
            context=_PASSPORT_CONTEXT,
            # 0.3 alone (product codes look the same), 0.65 with a context word: counted at the default 0.5
            patterns=[Pattern("jp_passport", r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{7}(?![A-Za-z0-9])", 0.3)],
        )
    )

    class JpAddressRecognizer(PatternRecognizer):
        def invalidate_result(self, pattern_text: str) -> bool:
            # checked after the match, not in the pattern: a pattern that can fail late backtracks exponentially
            return _BLOCK_NUMBER.search(pattern_text) is None

    registry.add_recognizer(
        JpAddressRecognizer(
            "JP_ADDRESS",
            name="JpAddressRecognizer",
            supported_language="ja",
            patterns=[Pattern("jp_address", _address_pattern(), 0.85)],
        )
    )
