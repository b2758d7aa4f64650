r"""The sentences of an answer that claim nothing about its source, and the lead-ins that frame those that do.

An LLM's answer says more than its claims: it names its sources ("Based on the provided passages, ..."), echoes the prompt
("Here is a summary of the article in 94 words:"), signs off ("I hope this helps!") and says what the sources lack ("The
passages do not mention the price."). Read as claims, such sentences fail as sharing nothing with the context. Regular
expressions written from how models phrase them tell them apart (case-insensitive; whitespace runs read as one space, curly
apostrophes as straight ones; no nested quantifiers, so any model output is read in linear time): `framing()` (a
lead-in that frames a claim, and the claim left to check), `non_claim()` (why a sentence claims nothing),
`refusal()` (the sources lack the answer: neither a hallucination nor a confirmed fact) and `markdown_sentences()`.

>>> framing("Based on the provided passages, the tower is 330 m tall.")
('Based on the provided passages', 'the tower is 330 m tall.')
>>> non_claim("Let me know if you have any further questions."), refusal("The passages do not mention the price.")
('closing', True)
>>> markdown_sentences("## Hours\n- **Mon-Fri:** 9 am - 5 pm\n- Closed on *Sundays*.")
['Hours:', 'Mon-Fri: 9 am - 5 pm', 'Closed on Sundays.']
"""

from __future__ import annotations

import re

from .markdown import markdown_sentences, plain_spaces as _norm
from .names import FUNCTION_WORDS

__all__ = ["framing", "non_claim", "refusal", "markdown_sentences", "REASONS"]

#: What `non_claim()` answers, besides ``None``.
REASONS = ("refusal", "prompt echo", "heading", "about the sources", "closing", "opener", "self-assessment", "hedge")

_I = re.IGNORECASE


def _x(template: str) -> str:
    """``template`` with each ``<NAME>`` in it replaced by the fragment ``_NAME`` defined above it."""
    return re.sub(r"<([A-Z_]+)>", lambda m: str(globals()["_" + m.group(1)]), template)


def _rx(template: str) -> re.Pattern[str]:
    return re.compile(_x(template), _I)


#: Discourse words before a lead-in ("However, ...", "In summary, ...", "I'm sorry, but").
_OPENER = (r"(?:(?:unfortunately|however|but|so|thus|therefore|hence|also|additionally|moreover|furthermore|overall|in (?:summary|short|conclusion|brief|"
           r"sum|general|addition|particular|fact|any case|this case)|to (?:summari[sz]e|sum up|conclude)|again|finally|first(?:ly)?|second(?:ly)?|lastly|"
           r"well|ok(?:ay)?|now|then|and|that said|as such|sadly|regrettably|ultimately|specifically|importantly|notably|still|yes|no|sure|consequently|"
           r"accordingly|as a result|(?:i'm |i am |we're )?(?:so |very |really )?sorry(?:,? but)?|apologies(?:,? but)?)[,:;]? ){0,2}")

# The sources an answer may name: "the provided passages", "passage [2]", "documents 1 and 3", "the JSON data".
_DET = (r"(?:(?:the|this|these|that|those|your|my|our|each|every|any of the|all(?: of)? the|both(?: of)? the|one of the|some of the|none of the|"
        r"neither of the|no) )?")
_ADJ = (r"(?:(?:provided|given|above|supplied|available|retrieved|following|attached|original|relevant|cited|referenced|quoted|first|second|third|fourth|"
        r"fifth|last|final|same|other|previous|shared|included|listed|aforementioned|accompanying|source|reference|background|search|context|input|json|"
        r"underlying|two|three|four|five|several|various|both) ){0,2}")
_STRONG = (r"(?:passages?|contexts?(?! of\b)|documents?|docs?|sources?|texts?|articles?|information|info|data|records?|json|excerpts?|snippets?|"
           r"materials?|content|transcripts?|paragraphs?|search results?|knowledge base|input|extracts?|chunks?)")
_WEAK = r"(?:references?|results?|dataset|tables?|evidence|sections?|files?|reviews?|reports?|pages?|notes|facts|details)"
_IDS = r"(?: ?(?:#|no\. ?)?\[?\d{1,3}\]?(?: ?(?:,|and|&|or|-|–|to) ?\[?\d{1,3}\]?){0,6})?"
_SRC = _x(r"<DET><ADJ><STRONG>\b<IDS>")
_SRC_ANY = _x(r"<DET><ADJ>(?:<STRONG>|<WEAK>)\b<IDS>")
# What may follow a source in a lead-in: "provided above", "you shared", "in passage 2", "and the question".
_TAIL = _x(r"(?: (?:provided|given|supplied|above|below|here|shared|presented|available|you (?:provided|gave|shared|supplied)|(?:that )?(?:was|were|is|"
           r"are|has been|have been) (?:provided|given|shared|supplied))(?: (?:above|below|here))?)?(?: (?:in|by|within|from|of|on) <SRC_ANY>)?(?: (?:and|"
           r"or|&|as well as) (?:<SRC_ANY>|the (?:question|query|prompt)))?(?: ?\([^()]{0,60}\))?")
_SRC_LEAD = _x(r"<SRC_ANY><TAIL>")
_PREP = (r"(?:based (?:(?:solely|only|purely|entirely|mainly|primarily|largely|strictly) )?(?:on|upon)|according to|from|as per|per|in|within|given|"
         r"considering|using|citing|going (?:by|off(?: of)?)|judging (?:by|from)|drawing (?:on|from)|relying (?:on|upon)|with reference to|referring to|"
         r"looking (?:at|through)|in (?:light|view) of|in (?:accordance|line) with|consistent with|as (?:stated|mentioned|noted|described|indicated|shown|"
         r"outlined|explained|reported|discussed|specified|detailed|seen|suggested|listed|written|said|given|presented|provided|evidenced) (?:in|by|within|"
         r"from|on)|(?:having|after|upon) (?:(?:carefully|closely) )?(?:read|reviewed|reading|reviewing|analy[sz]ed|analy[sz]ing|examined|examining|"
         r"looked at|looking at|considered|considering|gone through|going through)|(?:after|upon|on) (?:a )?(?:careful |close )?(?:review|reading|analysis|"
         r"examination) of)")
_SAYS = (r"(?:states|says|mentions|notes|indicates|explains|describes|suggests|reports|shows|confirms|puts it|points out|stated|said|mentioned|noted|"
         r"indicated|explained|described|suggested|reported|showed|confirmed|put it|pointed out)")
_QUITE = r"(?:(?:entirely|completely|totally|100%|quite|fully|absolutely|really) )?"
_SEP = r"(?: ?[,:;]| ?[–—]| -)"
_REPORT = (r"(?:states?|stated|says?|said|mentions?|mentioned|notes?|noted|indicates?|indicated|describes?|described|suggests?|suggested|reports?|"
           r"reported|explains?|explained|shows?|showed|shown|reveals?|revealed|confirms?|confirmed|claims?|claimed|clarifies|clarified|specifies|"
           r"specified|highlights?|highlighted|emphasi[sz]es|emphasi[sz]ed|points? out|pointed out|tells? us|told us|informs? us|establishes|established|"
           r"writes|wrote|adds?|added|argues?|argued|asserts?|asserted|documents|records|lists?|listed|outlines?|outlined|discuss(?:es)?|discussed|covers?|"
           r"covered|(?:is|are|was|were) about|talks? about|focus(?:es)? on|deals? with|refers? to|concerns|details|includes?|contains?|(?:provides?|"
           r"gives?|offers?) (?:(?:some|detailed|more|additional|further|general|specific|relevant|useful|an|a brief) )?(?:information|details|background|"
           r"context|overview|description) (?:about|on|regarding|of))")
_ADV = r"(?:(?:also|further|clearly|explicitly|specifically|directly|actually|only|briefly|simply|repeatedly|consistently|both|all) )?"
# Lead-ins that carry no source ("It is clear that", "Please note that", "I'm not sure, but", "Answer:").
_CHAIN = _x(r"(?:it (?:is|was|seems|appears|becomes) (?:(?:clear|evident|apparent|obvious|likely|probable|certain|reasonable to (?:say|assume|conclude)|"
            r"safe to (?:say|assume|conclude)) )?that|it (?:can|could|may|might) be (?:inferred|concluded|seen|deduced|said|assumed|noted|determined|"
            r"understood) that|(?:we|i) (?:can|could|may|might) (?:(?:clearly|safely|reasonably|also|therefore|thus|confidently|definitely|"
            r"certainly) )?(?:infer|conclude|say|determine|deduce|confirm|tell(?: you)?)(?: that)?|(?:we|i) (?:can|could|may|might) (?:(?:clearly|safely|"
            r"reasonably|also) )?(?:see|gather|understand|state|note|learn) that|(?:we|i) (?:know|learn|see|find|understand|gather) that|(?:this|that|"
            r"it) (?:means|implies|suggests|shows|indicates|confirms|tells us) that|the (?:short |correct |final )?answer (?:is|would be)(?: that| ?:)|"
            r"(?:to|in) (?:answer|response) (?:to )?(?:your|the|this|the user's) (?:question|query|request)(?: (?:using|with|from|based on) <SRC_ANY>)?,?|"
            r"(?:regarding|as for|as to) (?:your|the|this) (?:question|query),?|(?:i'?m|i am) not <QUITE>(?:sure|certain|positive|"
            r"confident)(?: (?:about (?:this|that|it)|if (?:this|that) is (?:correct|right|accurate)))?,? but(?: (?:i (?:think|believe|suspect)|"
            r"it (?:seems|appears)|probably|perhaps|likely))?(?: that)?|if (?:i'?m|i am) not mistaken,?|if i (?:recall|remember) (?:correctly|right),?|"
            r"as far as i (?:know|can tell),?|to the best of my (?:knowledge|understanding),?|from what i (?:can )?(?:tell|see|gather|understand),?|"
            r"it (?:seems|appears) that|(?:please |also |but |do )?(?:note|notice|keep in mind|bear in mind|remember|be aware)(?: that| ?:)|it(?:'?s|"
            r" is) (?:also )?(?:worth|important|useful|helpful) (?:noting|mentioning|to note|to mention|to remember|to know)(?: that| ?:)|(?:(?:final|"
            r"short|brief|my|the) )?(?:answer|response|reply|summary|conclusion|tl;?dr|result|verdict|note|nb|n\.b\.|important|fyi|tip|update|explanation|"
            r"reasoning) ?:)")
_HERE = r"(?:here (?:is|are)|here's|below (?:is|are)|the following (?:is|are))"
_FRAMES = (
    _rx(r"^(?P<lead><OPENER><PREP> (?:<SRC_LEAD>|this|that|these|the above(?: information)?|what (?:is|was) (?:provided|given|stated|written|"
        r"said)(?: above)?)<SEP>)(?P<rest> .*)$"),
    _rx(r"^(?P<lead><OPENER>it (?:is|was|has been) <ADV>(?:stated|mentioned|noted|said|reported|written|indicated|explained|described|specified|claimed|"
        r"suggested|shown|confirmed|established) (?:in|by|within) <SRC_LEAD>(?: that|<SEP>))(?P<rest> .*)$"),
    _rx(r"^(?P<lead><OPENER>as (?:<SRC_ANY>|the (?:author|writer)s?|it) <ADV><SAYS><SEP>)(?P<rest> .*)$"),
    _rx(r"^(?P<lead><OPENER>(?:<SRC_ANY>|the (?:author|writer|narrator)s?) <ADV><REPORT>(?: that| how| ?:)?,?)(?P<rest> .*)$"),
    _rx(r"^(?P<lead><OPENER>(?:it|this|that) <ADV><SAYS> that)(?P<rest> .*)$"),
    _rx(r"^(?P<lead><OPENER><HERE> [^:]{0,120}:)(?P<rest> .*)$"),
    _rx(r"^(?P<lead><SRC_ANY>(?: ?\([^()]{0,60}\))? ?:)(?P<rest> .*)$"),
    _rx(r"^(?P<lead><OPENER><CHAIN>)(?P<rest> .*)$"),
)
# Attribution at the end ("..., according to passage 2.") and citation marks ("[1]", "(Passage 2)", "【3†source】").
_TRAILING = _rx(r"^(?P<rest>.+?)(?:,? \(?(?P<lead>(?:according to|as (?:stated|mentioned|noted|described|indicated|reported|shown|explained|specified|"
                r"given) (?:in|by)) <SRC_LEAD>)|, \(?(?P<lead2>(?:based on|as per) <SRC_LEAD>))\)?(?P<end>[.!]?)$")
_CITATION = _rx(r"(?<=\S) ?(?:\[(?:<SRC_ANY>|\d{1,3}(?: ?[,–-] ?\d{1,3}){0,9})\](?=[ .,;:!?)]|$)|\((?:(?:see|source|sources|cf\.?|from|per|via|"
                r"ref\.?) ?:? )?<SRC_ANY>\)|【[^】]{0,60}】)")
_WORDY = re.compile(r"[^\W_]")


def framing(sentence: str) -> tuple[str, str] | None:
    """The framing of a claim and the claim it frames, or ``None`` when the sentence has none.

    A lead-in about the sources ("Based on the provided passages,", "According to passage [2],", "The context states that",
    "As mentioned in the text,"), a label ("Answer:"), a note ("Please note that"), a hedge ("I'm not sure, but"), an
    attribution at the end or citation marks ("[1]", "(Passage 2)"): several are joined by ``", "``. A sentence that
    names no source is not framed ("Based in Paris, the firm employs 300 people.").

    >>> framing("According to passage [2], it is clear that the museum opens at 9 am.")
    ('According to passage [2], it is clear that', 'the museum opens at 9 am.')
    >>> framing("The tower is 330 m tall, according to the article."), framing("Based in Paris, the firm employs 300 people.")
    (('according to the article', 'The tower is 330 m tall.'), None)
    """
    rest, leads = _norm(sentence), []
    for _ in range(6):
        for pattern in _FRAMES:
            match = pattern.match(rest)
            if match and _WORDY.search(match.group("rest")):
                leads.append(match.group("lead").rstrip(" ,:;–—-"))
                rest = match.group("rest").strip()
                break
        else:
            break
    trailing = _TRAILING.match(rest)
    if trailing and _WORDY.search(trailing.group("rest")):
        leads.append(trailing.group("lead") or trailing.group("lead2"))
        rest = trailing.group("rest").rstrip(" ,") + trailing.group("end")
    cited = _CITATION.sub("", rest)
    if cited != rest and _WORDY.search(cited):
        leads.extend(m.group(0).strip() for m in _CITATION.finditer(rest))
        rest = cited
    return (", ".join(leads), rest) if leads else None


_CANT = r"(?:cannot|can't|can not|could not|couldn't)"
_PRECISELY = r"(?:(?:reliably|definitively|accurately|directly|precisely|clearly|exactly|fully) )?"
_DETERMINED = r"(?:determined|found|answered|inferred|deduced|established|confirmed|verified|ascertained|identified|known|stated|extracted|derived)"
_NEG = r"(?:not|n't|never)"
_NOT_AUX = r"(?:cannot|can not|can't|won't|will not|am not|(?:could|do|does|did|was|were|is|are|have|has|had|would|should|may|might)(?: not|n't))"
# What follows "no information" when it is about the sources ("no information about", "no data provided").
_META_GIVEN = r" (?:(?:is|are|was|were|has been|have been) )?(?:provided|given|available|found|included|made|mentioned|present|stated|listed|specified)\b"
_META_NEXT = _x(r"(?= (?:about|on|regarding|concerning|of|as to|related to|in|within|from|for|that|to|whatsoever|at all|here|there)\b|<META_GIVEN>|"
                r" ?[,;.!]| ?$)")
_DETAIL_NEXT = _x(r"(?= (?:about|regarding|concerning|as to|related to|in <SRC>|whatsoever|at all)\b|<META_GIVEN>| ?[,;.!]| ?$)")
_QUANT = r"(?:(?:none|neither|no|not one|not a single|nothing in) (?:of )?)"
# "The passages do not mention ...", "None of the documents say ...", "There is no mention of ...", "I could not find ... in the
# provided documents", "I don't know.", "The price is not mentioned.", "... cannot be determined from the context"
_REFUSALS = _rx(r"^<OPENER><SRC><TAIL> <NOT_AUX> (?:(?:explicitly|specifically|directly|clearly|actually|really|seem to|appear to|even|"
                r"always) ){0,2}(?:mention|contain|include|provide|specify|say|state|discuss|address|cover|give|list|describe|indicate|offer|explain|"
                r"reference|talk|have|answer|clarify|detail|reveal|identify|name|tell|show|disclose|note|report|define|elaborate|touch|confirm|go into|"
                r"make (?:any )?mention|refer)\b|^<OPENER><QUANT><SRC><TAIL> (?:(?:explicitly|specifically|directly|clearly|actually) )?(?:mentions?|"
                r"contains?|includes?|provides?|specif(?:y|ies)|says?|states?|discuss(?:es)?|address(?:es)?|covers?|gives?|lists?|describes?|indicates?|"
                r"offers?|explains?|references?|talks?|answers?|has|have|reveals?|identif(?:y|ies)|names?|tells?|mentioned|said|stated|gave|provided|"
                r"refers?)\b|^<OPENER><SRC><TAIL> (?:(?:is|are|was|were|seems?|appears?|remains?) (?:(?:completely|entirely|largely) )?(?:silent|unclear|"
                r"vague|ambiguous|mute) (?:on|about|regarding|as to)|(?:makes?|made) no (?:mention|reference)|(?:contains?|contained|provides?|provided|"
                r"gives?|gave|includes?|included|offers?|has|have|had) no\b|(?:lacks?|lacked|lacking)\b|(?:fails?|failed) to\b|(?:is|are) missing\b)|"
                r"^<OPENER>(?:there (?:is|are|was|were)|there's|i (?:see|found|find|can find)|we (?:see|found|find)) (?:no|not any|nothing) (?:(?:specific|"
                r"explicit|direct|relevant|clear|further|additional|detailed|such|precise|exact|concrete|mention|reliable) ){0,2}(?:(?:mention|information|"
                r"info|data|answer|reference|specifics|statement|discussion)s?<META_NEXT>|details?<DETAIL_NEXT>|(?:evidence|records?|indications?|"
                r"explanations?|proof)\b.{0,160}?\b(?:in|within|from|among) <SRC>)|^<OPENER>no (?:(?:specific|explicit|direct|relevant|further|additional|"
                r"such|detailed|clear) )?(?:(?:mention|information|info|indication|reference|answer)s?(?: (?:of|about|on|regarding|concerning|as to)\b|"
                r"<META_GIVEN>)|(?:details?|data)(?: (?:about|regarding|concerning|as to)\b|<META_GIVEN>))|^<OPENER>(?:i|we) (?:<NOT_AUX>(?: be able to)?|"
                r"(?:am|was|were|are|have been) (?:unable|not able) to) (?:(?:seem to|really|actually|directly|definitively|reliably|confidently|"
                r"accurately|clearly|precisely|exactly|even) ){0,2}(?:(?:answer|determine|infer|deduce|ascertain|pinpoint|establish|figure out|verify|"
                r"confirm)\b|(?:find|locate|see|identify|tell|say|provide|give|extract|get|retrieve|spot|discover|access)(?: you)? (?:the answer|an answer|"
                r"this|that|it\b|which|whether|what|who|when|where|why|how|if|for (?:sure|certain)|with (?:certainty|confidence)|a (?:definitive|clear|"
                r"specific|direct|precise)|any (?:information|mention|details|data|reference|answer|specific|relevant|such)|information|details|"
                r"the (?:information|details|specific|exact|precise|relevant))|(?:find|locate|see|identify|tell|say|provide|give|know|extract|get|retrieve|"
                r"spot|discover)\b.{0,160}?\b(?:in|within|from|based on|using) <SRC>)|^<OPENER>(?:i|we) (?:do not|don't|did not|didn't) (?:(?:have|"
                r"possess) (?:(?:enough|sufficient|any|the|specific|adequate|relevant|that|this|the necessary|more|further|access to|detailed|such|"
                r"reliable|precise|exact|real-time|current) ){0,2}(?:information|details|data|context|knowledge|access|info|facts|evidence)|know\W*$)|"
                r"^<OPENER>i (?:do not|don't) know (?:the answer|this|that|for (?:sure|certain)|which|what|who|when|where|why|how|whether|if|exactly)\b|"
                r"\b(?:(?:is|are|was|were) <NEG>|isn't|aren't|wasn't|weren't) (?:(?:explicitly|directly|specifically|clearly|actually|ever|even|"
                r"anywhere) )?(?:(?:mentioned|stated|specified)(?: (?:explicitly|directly|anywhere|clearly|specifically))?(?= ?[.,;!]| ?$| (?:here|there|"
                r"anywhere|either|at all)| (?:in|within|by|from|anywhere in) <SRC>)|(?:provided|given|listed|included|discussed|addressed|covered|"
                r"described|found|available|disclosed|indicated|reported|named|identified|defined|known|clear|explained|evident|present|mentioned|stated|"
                r"specified|contained|shown|apparent|made clear) (?:in|within|by|from|anywhere in|among) <SRC>|(?:in|within|among|part of) <SRC>)|"
                r"^<OPENER>(?:(?:the|an?) (?:(?:exact|specific|precise|correct|final|direct) )?answer(?: to (?:the|this|that|your) (?:question|query))?|"
                r"this|that|it|the question|this question|which|whether) (?:is |are )?<CANT> be <PRECISELY>(?:<DETERMINED>|given|provided)\b|"
                r"\b<CANT> be <PRECISELY>(?:<DETERMINED>) (?:from|in|with|using|based on|given|within) <SRC>|\b(?:it|this|that) (?:(?:is|was|"
                r"remains) (?:not (?:clear|possible|stated|mentioned|specified|known|evident|apparent)|unclear|impossible|difficult|hard)|(?:isn't|"
                r"wasn't) (?:clear|possible|stated|mentioned|specified|known|evident|apparent))(?: to (?:determine|say|tell|know|answer|infer|confirm|"
                r"establish|conclude|find|see|ascertain)\b[^.;!?]{0,120}?)?(?: (?:for (?:sure|certain)|exactly|precisely|definitively|"
                r"with certainty))? (?:from|in|based on|given|with|using) <SRC>|^<OPENER>(?:the|this|that|such|any|specific|more|further|detailed|"
                r"exact) ?(?:(?:relevant|specific|exact|requested|detailed|necessary) )?(?:information|info|details?|data|answer)(?: (?:about|on|regarding|"
                r"for|of|concerning) [^.;!?]{1,100}?)? (?:is|are|was|were) <NEG> (?:(?:explicitly|directly|specifically|currently|readily) )?(?:available|"
                r"provided|given|included|present|found|mentioned|stated|specified|contained|listed|known)\b")


# "It is not clear which country ...", "It is not specified what denomination ...": what the answer does not know, an
# indirect question, not a claim.
_UNKNOWN = _rx(r"^<OPENER>(?:it|this|that) (?:(?:is|was|remains) (?:not (?:(?:entirely|quite|immediately|explicitly|exactly|fully) )?(?:clear|"
               r"specified|mentioned|stated|known|indicated|evident|certain|said|given)|unclear|unknown|uncertain)|(?:isn't|wasn't) (?:clear|"
               r"specified|mentioned|stated|known|certain)) (?:what|which|who|whom|whose|when|where|whether|how|if|why)\b")
# After a lead-in that names the sources ("Based on the given context, there is no indication that ..."): the sources lack it.
_SOURCE_LACKS = _rx(r"^<OPENER>(?:there (?:is|are|was|were)|there's) (?:no|not any) (?:(?:clear|explicit|direct|specific|such|further) )?"
                    r"(?:indications?|evidence|suggestions?|signs?|proof|hints?)\b")
_NAMES_SOURCE = _rx(r"\b<STRONG>\b")


def refusal(sentence: str) -> bool:
    """Whether the sentence says that the sources lack the answer: neither a hallucination nor a confirmed fact.

    "The passages do not mention ...", "There is no information in the text about ...", "I could not find ... in the
    provided documents", "I don't know.", also after a lead-in ("Based on the passages, I cannot determine ..."); not a
    sentence about the world ("The museum does not open on Mondays.", "The company is not listed on the exchange.").

    >>> refusal("Unfortunately, the provided context does not contain information about parking.")
    True
    >>> refusal("The museum does not open on Mondays."), refusal("There is no evidence that it causes cancer.")
    (False, False)
    """
    text = _norm(sentence)
    framed = framing(text)
    return _refuses(text) or (framed is not None and (_refuses(framed[1]) or _lacks(framed)))


def _refuses(text: str) -> bool:
    return bool(_REFUSALS.search(text) or _UNKNOWN.match(text))


def _lacks(framed: tuple[str, str]) -> bool:
    """A lead-in that names the sources, then "there is no indication that ...": the sources lack it."""
    return bool(_NAMES_SOURCE.search(framed[0]) and _SOURCE_LACKS.match(framed[1]))


_TASK = (r"(?:summary|summaries|summari[sz]ation|description|answer|response|reply|list|overview|breakdown|rewrite|paraphrase|translation|version|draft|"
         r"explanation|outline|review|paragraph|e-?mail|letter|post|tweet|caption|story|poem|essay|table|report|recap|synopsis|abstract|title|headline|"
         r"analysis|comparison|rundown|classification|extraction|key points|main points|points|highlights|takeaways|bullet points|steps|instructions|"
         r"options|suggestions|recommendations|ideas|examples|output|json|code|sentences?|itinerary|recipe|bio|biography|profile|slogan|categories|tags|"
         r"keywords|information|details|facts|result|results|text)\b")
_PLAN = (r"(?:summari[sz]e|describe|explain|rewrite|paraphrase|answer|list|outline|translate|recap|put it simply|sum up|break (?:it|this) down|go through|"
         r"walk you through|provide|give you|start|begin|look at|clarify|address)")
# "Here is a summary ...", "The question asks ...", "You asked ...", "Let me summarize ...", "(94 words)", "I have summarized ..."
_ECHOES = _rx(r"^<OPENER>(?:<HERE>|what follows is|this is|these are|attached is|i've (?:put together|compiled|prepared))\b(?: (?:a|an|the|my|your|some|"
              r"our))?(?: [\w'’-]+){0,4}? <TASK>(?![^:]*: ?\W*\w)|^<OPENER><HERE> [^:]{0,120}:$|^<OPENER>(?:the|your|this|"
              r"my) (?:user'?s? )?(?:original )?(?:question|query|request|prompt|task|instruction)s? (?:is|was|asks?|asked|is asking|wants|requests?|seeks|"
              r"concerns|is about|relates to|refers to|requires|calls for)\b|^<OPENER>(?:you|the user) (?:(?:have|had) )?(?:asked|are asking|ask|"
              r"want(?:ed)? to know|would like to know|'d like to know|wish to know|are wondering|were wondering|requested|inquired|want me to|"
              r"would like me to|'d like me to)\b|^<OPENER>(?:to <PLAN>\b[^.!?:\d]{0,120}:|(?:let me|let's|let us|i will|i'll|i am going to|i'm going to|"
              r"we will|we'll) (?:now |first |briefly )?<PLAN>\b[^.!?:\d]{0,120}[.!:]?)$|^[^.!?:]{0,120}\b(?:in|under|within|below|of|to) (?:(?:about|"
              r"around|approximately|exactly|fewer than|less than|no more than|at most|roughly|just) )?\d{1,4} words\b[^.!?:]{0,40}:$|"
              r"^\W*(?:\(? ?(?:word count|words|length|total) ?[:=]? ?\d{1,5}(?: words?)? ?\)?|\(? ?(?:approx(?:imately|\.)? |about |exactly |"
              r"~ ?)?\d{1,5} words? ?\)?)\W*$|^<OPENER>(?:this|the|my|the above|above|that|the following|the preceding) <TASK>(?: above| below)? (?:is|has|"
              r"contains|uses|was|comes to|totals|consists of|runs)(?: (?:exactly|about|approximately|around|under|over|less than|fewer than|more than|"
              r"just|roughly|precisely|only))? \d{1,5} (?:words?|sentences?|characters?|paragraphs?|bullet points|points|lines|items|tokens)(?: long|"
              r" in length)?\W*$|^<OPENER>(?:this|the|my|the above|that) <TASK>(?: above| below)? (?:is|was|has been|are|were|have been) (?:(?:also|"
              r"deliberately|intentionally) )?(?:written|formatted|presented|structured|kept|limited|organi[sz]ed|provided|generated|condensed|shortened|"
              r"divided|broken (?:up|down)) (?:in|as|to|under|within|using|into|on)\b|^<OPENER>(?:i|we)(?: (?:have|will|shall|also|then|now|tried to|"
              r"aimed to)|'ve|'ll){0,2} (?:written|wrote|write|rewritten|rewrote|kept|keep|formatted|broken down|broke down|(?:creat|prepar|provid|generat|"
              r"summari[sz]|draft|compos|rewrit|paraphras|translat|list|outlin|condens|organi[sz]|format|extract|includ|highlight|compil)(?:e|"
              r"ed)?)(?: (?:a|an|the|this|my|your|it|that|these|them|below|above|following))?(?: (?:short|brief|concise|detailed|quick|simple|new|"
              r"following|requested|above|updated|revised|final|main|key|provided|given))? (?:<TASK>|<SRC>|it\b|them\b|below\b)")
_WH = re.compile(r"^\W*(?:what|who|whom|whose|which|when|where|why|how)\b", _I)
_LETTERS = re.compile(r"[^\W\d_]+")
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|none|nothing|cannot)\b|n't\b", _I)
_GLUE = frozenset({"the", "a", "an", "is", "are", "was", "were", "be", "been", "it", "this", "that", "these", "those", "by"})


def _restates(text: str, question: str) -> bool:
    """The sentence is the question, or only the question's words as a statement ("The Eiffel Tower was designed" for
    "Who designed the Eiffel Tower?"): never for a yes-or-no or either-or question, whose statement answers it."""
    if _norm(text).rstrip(" ?.!:").casefold() == _norm(question).rstrip(" ?.!:").casefold():
        return True
    if not _WH.match(question) or re.search(r"\bor\b", question, _I) or re.search(r"\d", text) or _NEGATION.search(text):
        return False
    own, asked = ({w.casefold().removesuffix("s") for w in _LETTERS.findall(t) if len(w) > 2 and w.casefold() not in FUNCTION_WORDS}
                  for t in (text, question))
    # Every word of the sentence, function words too, is the question's ("... won the cup once" answers "how many times").
    added = {w.casefold() for w in _LETTERS.findall(text)} - {w.casefold() for w in _LETTERS.findall(question)} - _GLUE
    return not added and len(own) >= 2 and own <= asked and len(own) >= 0.75 * len(asked)


_HEADING_MD = re.compile(r"^ {0,3}#{1,6}(?: |$)|^(?:\*\*|__)[^*_]{1,150}(?:\*\*|__) ?:?$")
_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|will|would|can|could|does|do|did)\b", _I)
_INTRO = re.compile(r"\b(?:are|include|includes|including|follows|following|below|these|is|were|was|contain|contains|as|like|list|steps|"
                    r"points|options|here|of|such|are as|following items|are listed)\W*$", _I)


def _heading(text: str) -> bool:
    """A Markdown heading of few words, or a short line ending with ``:`` ("Key points:", "The main ingredients are:")."""
    if _HEADING_MD.match(text):
        return len(text.split()) <= 11
    if not text.endswith(":") or text.endswith("::"):
        return False
    words = text[:-1].split()
    return (len(words) <= 4 or (len(words) <= 8 and not re.search(r"\d", text) and not _VERB.search(text))
            or (len(words) <= 14 and bool(_INTRO.search(text[:-1]))))


# "According to the context:", "The passages are not relevant.", "The answer is in passage 3.", "Let me analyze the passages."
_ABOUT = _rx(r"^<OPENER><PREP> <SRC_LEAD>\W*$|^\W*<SRC_LEAD>\W*$|^<OPENER>(?:(?:all|both|each|some|most|several|many|one|two|three|only|only one|neither|"
             r"none) (?:of )?)?<SRC><TAIL> <ADV>(?:(?:is|are|was|were|seems?|appears?)(?: to be)?(?: not)?(?: the)?(?: (?:very|most|highly|directly|"
             r"somewhat|partially|partly|all|both|quite|fairly|more|less|least|equally|also|only|not))? (?:relevant|irrelevant|related|unrelated|helpful|"
             r"unhelpful|useful|consistent|inconsistent|contradictory|conflicting|ambiguous|unclear|vague|incomplete|sufficient|insufficient|limited|brief|"
             r"short|lengthy|long|detailed|informative|similar|identical|the same|different|in agreement|(?:only )?relevant (?:one|passage|source|"
             r"document)s?|<SRC>|on (?:the same )?topic|off[ -]topic|about (?:the same (?:topic|subject|thing|person|event)|this|that|it|the (?:topic|"
             r"question|subject)))|(?:provides?|provided|contains?|contained|gives?|gave|offers?|offered|includes?|included|has|have|had|presents?|"
             r"presented|shares?|lists?) (?:(?:some|more|additional|further|enough|sufficient|limited|relevant|useful|detailed|specific|general|"
             r"the following|several|many|a lot of|plenty of|little|lots of|background|contextual|conflicting|different|various|important|key|"
             r"the necessary|the relevant|all the|a few|few|helpful|the|an?|any|all|comprehensive|good|clear|brief|thorough|complete|direct|partial|"
             r"concise|general) ){0,3}(?:information|info|details?|context|data|facts|evidence|background|insights?|answers?|clues?|hints?|points|"
             r"perspectives?|views?|descriptions?|explanations?|accounts?|overview|summary|picture|understanding)|(?:discuss(?:es|ed)?|cover(?:s|ed)?|"
             r"address(?:es|ed)?|talks? about|talked about|focus(?:es|ed)? on|deals? with|dealt with|concerns?|relates? to|refers? to|describes?|described|"
             r"mentions?|mentioned|(?:is|are) about|answers?|answered|touch(?:es)? on) (?:the same (?:topic|subject|thing|issue|event|person|question)|"
             r"this|that|it|them|the (?:topic|question|subject|matter|issue|query)|(?:different|various|several|other|multiple|related|similar|"
             r"many) (?:topics|subjects|aspects|things|issues|questions|matters|points)(?: of (?:the|this) (?:topic|subject|question))?))(?: (?:about|on|"
             r"regarding|related to|relevant to|for|to|concerning|with|in answering|of|to (?:answer|address|respond to))(?: (?:the|this|your|that|each|one|"
             r"our))? (?:question|query|topic|subject|matter|issue|it|this|that|answer|request|task|other|another|user))?\W*$|^<OPENER>(?:the (?:answer|"
             r"relevant information|information|details?|relevant details?)|this(?: (?:information|answer|fact|detail))?|that(?: (?:information|answer|"
             r"fact|detail))?|it) (?:is|are|was|were|can be|could be|may be) (?:(?:also|only|clearly|explicitly) )?(?:found|mentioned|stated|given|"
             r"provided|contained|located|discussed|described|listed|included|explained|shown|available) (?:only )?(?:in|within|by|from|"
             r"under) <SRC_LEAD>\W*$|^<OPENER>(?:(?:i|we|let me|let's|let us)(?:'ve|'ll)?(?: (?:will|need to|have|'ve|first|carefully|now|then|must|should|"
             r"can|am going to|'ll|shall)){0,3} )?(?:read|review(?:ed)?|analy[sz]e[d]?|look(?:ed)? (?:at|through)|examine[d]?|check(?:ed)?|went through|"
             r"go through|gone through|scan(?:ned)?|search(?:ed)?|consider(?:ed)?|evaluate[d]?|compare[d]?|break down|broke down|assess(?:ed)?|identif(?:y|"
             r"ied)|extract(?:ed)?|use[d]?|rel(?:y|ied) on|refer(?:red)? to|find|locate)(?: (?:all|each|every|through|both|"
             r"carefully))?(?: of)? <SRC_LEAD>(?: (?:carefully|closely|thoroughly|again|first|above|below|one by one|step by step))?(?: (?:to|in order to|"
             r"and|so that) (?:find|answer|determine|identify|see|check|locate|extract|summari[sz]e|understand|address|respond|get)\b[^.!?]{0,120})?\W*$|"
             r"^<OPENER>(?:there (?:is|are|were|was) (?:\w+ )?<SRC>(?: (?:provided|given|available|here|above|below))?|(?:i|we) (?:was|were|have been|am|"
             r"are|'ve been) (?:given|provided|shown|supplied)(?: with)? (?:\w+ )?<SRC>)\W*$")
_CLOSINGS = _rx(r"^<OPENER>(?:(?:please |do )?let (?:me|us) know\b|(?:i |we )?(?:hope|trust) (?:this|that|it|the above|my (?:answer|response)|"
                r"the information|these)\b.{0,40}\b(?:help|helps|helped|helpful|useful|answers|clarifies|clears)|(?:please )?(?:feel free|don't hesitate|"
                r"do not hesitate)\b|if you (?:have|need|want|would like|'d like|require)\b.{0,80}\b(?:questions?|help|assistance|clarification|"
                r"information|details|anything)\b|(?:i'm|i am|we're|we are|i'd be|i would be|always)(?: always)? (?:here|happy|glad|"
                r"more than happy) to help|happy to help|glad (?:i|we) could help|have a (?:great|good|nice|wonderful|lovely) (?:day|time|trip|weekend|"
                r"evening|one)|good luck|best (?:regards|wishes)|thanks? (?:you )?for (?:asking|your question|reaching out|the question)|you're welcome|"
                r"cheers|happy (?:reading|cooking|travels|travell?ing|learning|coding|exploring)|enjoy (?:your|the) (?:trip|visit|meal|day|stay|reading)|"
                r"is there anything else)\b")
_OPENERS = _rx(r"^\W*(?:(?:great|good|excellent|interesting|fair) question|(?:i'd|i would|i am|i'm) (?:be )?(?:happy|glad|delighted) to (?:help|assist|"
               r"answer)(?: (?:you|with (?:that|this|your question))){0,2}|(?:sure|certainly|of course|absolutely|no problem|gladly|alright)(?: thing)?|"
               r"let's (?:dive in|get started|take a look|see))\W*$")
_ASSESSMENTS = _rx(r"^<OPENER>(?:(?:i|we) (?:can|could|was able to|am able to|have|'ve) (?:now )?(?:see|find|found|identify|identified|determine|"
                   r"determined|give|provide|locate|located) (?:the|an|a clear|a) answer(?: to (?:the|this|your) question| here| now)?|(?:the|this|"
                   r"your) question (?:can|could) (?:now )?be (?:(?:fully|confidently|accurately|easily|partially|clearly) )?answered(?: (?:based on|using|"
                   r"from) <SRC_LEAD>)?)\W*$|^<OPENER>(?:(?:i|we)(?: (?:can|could|am able to|was able to|have|will|now|therefore|thus|hence|confidently|"
                   r"fully|accurately|correctly|definitively|successfully|hopefully)|'ve|'ll){0,3} |(?:this|that|it) (?:(?:should|will|would|hopefully|"
                   r"fully|completely|directly|now) ){0,2})(?:answers?|answered|address(?:es|ed)?|respond(?:s|ed)? to|cover(?:s|ed)?|resolve[sd]?|"
                   r"satisf(?:y|ies|ied)) (?:the|this|your|all (?:the|of (?:the|your))|this|that|it)(?: (?:user's )?(?:question|query|request|prompt|task|"
                   r"inquiry|questions|points))?(?: (?:fully|completely|accurately|correctly|confidently|asked|now|(?:based on|using|"
                   r"from) <SRC_LEAD>))?\W*$|^<OPENER>(?:i'?m|i am|we're|we are) (?:(?:fairly|very|quite|highly|reasonably|completely|absolutely|100%|"
                   r"entirely|pretty) )?(?:confident|certain|sure|positive)(?: (?:that )?(?:this|my|the|of|about|in)(?: (?:this|my|the|"
                   r"that))?(?: (?:answer|response|information|assessment|conclusion)(?: is (?:correct|accurate|right))?)?)?\W*$|^<OPENER>(?:i|"
                   r"we) <CANT> (?:be (?:(?:100%|completely|entirely|absolutely|fully|totally) )?(?:certain|sure|confident|positive)|say (?:for (?:sure|"
                   r"certain)|with (?:certainty|confidence)|definitively))(?: (?:of|about) (?:this|that|it|my answer))?\W*$|^<OPENER>(?:this|my|the|"
                   r"the above|that) (?:answer|response|summary|information|reply|explanation|conclusion)(?: above)? (?:is|should be|seems|appears|was|"
                   r"remains) (?:(?:fully|entirely|completely|directly|well|also|therefore|thus|hopefully) )?(?:(?:accurate|correct|complete|comprehensive|"
                   r"sufficient|reliable|true|right|concise|clear)(?:,? (?:and )?(?:accurate|correct|complete|comprehensive|sufficient|reliable|true|"
                   r"concise|clear)){0,2}|(?:consistent with|supported by|based (?:solely |only |entirely )?on|grounded in|derived from|drawn from|"
                   r"taken from|faithful to|in line with) <SRC_LEAD>)\W*$")
_HEDGES = _rx(r"^<OPENER>(?:i'?m|i am) not <QUITE>(?:sure|certain|confident|positive)(?: (?:about|of) (?:this|that|it|the answer|my answer))?\W*$|"
              r"^<OPENER>i (?:may|might|could) be (?:wrong|mistaken|incorrect)\W*$|^<OPENER>(?:(?:please |also )?(?:note|keep in mind|bear in mind|"
              r"remember|be aware)(?: that| ?:) )?(?:(?:this|the|my|that|these|such|the above|the provided|all the|all this|any|some)(?: (?:information|"
              r"answer|response|summary|data|details|figures?|estimates?|numbers|list|description|advice|content|translation|info|prices|hours|times|"
              r"schedules?|availability))?|prices|hours|opening hours|times|schedules?|availability|details|information|policies|rates|fees) (?:(?:may|"
              r"might|could|can) (?:(?:not|also) )?(?:change|vary|differ|be (?:outdated|out of date|incomplete|inaccurate|different|subject to change|"
              r"up[ -]to[ -]date|current|accurate|complete|exhaustive)|have changed|contain (?:errors|inaccuracies)|reflect)|(?:is|are) (?:(?:only|"
              r"just) )?(?:an? )?(?:approximate|approximation|estimate|rough estimate|approximations|estimates|subject to change|not (?:exhaustive|"
              r"comprehensive|complete|definitive|guaranteed|an exhaustive list|a complete list|professional|legal|medical|financial|intended)))|"
              r"^<OPENER>(?:(?:please|always|i (?:would )?(?:recommend|suggest|advise)|(?:it is|it's|it would be) (?:always )?(?:best|a good idea|"
              r"advisable|recommended|wise|important) to|you (?:may|might|should|could)(?: (?:want|wish) to)?|be sure to|make sure to|"
              r"consider) ){0,2}(?:verify|check|confirm|double[ -]check|consult|contact|reach out to|refer to|visit|call|"
              r"seek)(?:ing)?\b.{0,160}?\b(?:official|website|directly|professional|doctor|physician|expert|lawyer|attorney|advisor|adviser|"
              r"up[ -]to[ -]date|latest|current|most recent|accurate|accuracy|more (?:information|details)|further (?:information|details)|before|source|"
              r"sources)\b|^<OPENER>(?:as an ai|as a (?:language|ai) model|i'?m an ai|i am an ai|(?:i|we) (?:do not|"
              r"don't) have (?:access to )?(?:real[ -]time|current|up[ -]to[ -]date|live|personal|browsing)|my (?:knowledge|training data|"
              r"information) (?:is |was )?(?:cut|only|limited|current|up to))|^<OPENER>(?:(?:it is|it's|that is|that's|it can be|it may be) )?(?:hard|"
              r"difficult|tough|tricky|impossible) to (?:say|tell|know|be sure)(?: (?:for (?:sure|certain)|definitively|exactly|precisely|"
              r"with certainty))?\W*$")
_DIGIT = re.compile(r"\d")
_OTHERS = (("closing", _CLOSINGS), ("self-assessment", _ASSESSMENTS), ("hedge", _HEDGES))


def _reason(text: str, question: str | None) -> str | None:
    if _refuses(text):
        return "refusal"
    if _ECHOES.search(text) or (question and _restates(text, question)):
        return "prompt echo"
    if _ABOUT.search(text):
        return "about the sources"
    if _heading(text):
        return "heading"
    if _DIGIT.search(text.replace("100%", "")):
        return None  # a number, a date, an address: a fact to check, however the sentence is phrased
    if _OPENERS.search(text) and not (question and not _WH.match(question)):
        return "opener"  # "Sure!" answers a yes-or-no question
    return next((reason for reason, pattern in _OTHERS if pattern.search(text)), None)


def non_claim(sentence: str, question: str | None = None) -> str | None:
    """Why the sentence claims nothing about the source (one of `REASONS`), or ``None``.

    ``refusal`` (`refusal()`), ``prompt echo`` ("Here is a summary in 94 words:", "The question asks about ...", the
    answer's length or format, the ``question`` itself or only its words), ``heading`` ("## Summary", "Key points:"),
    ``about the sources`` ("The passages are not relevant to the question.", "Let me analyze the passages."), and, with
    no number in it, ``opener`` ("Great question!"), ``closing`` ("I hope this helps!"), ``self-assessment`` ("I can
    confidently answer the question.") or ``hedge`` ("Prices may vary."). A framed claim is a claim ("Please note that the
    store closes at 5 pm."), but what a lead-in frames is read too ("Please note that this may be outdated." is a hedge).

    >>> non_claim("Here is a summary of the article in 94 words:"), non_claim("Passage 2 says the tower is 330 m tall.")
    ('prompt echo', None)
    >>> non_claim("Therefore, I can confidently answer the question."), non_claim("## Key points")
    ('self-assessment', 'heading')
    """
    text = _norm(sentence)
    if not _WORDY.search(text):
        return None
    reason = _reason(text, question)
    if reason is None:
        framed = framing(text)
        if framed:
            reason = "refusal" if _lacks(framed) else _reason(framed[1], question)
    return reason
