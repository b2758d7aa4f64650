"""The regular expressions that tell how an answer names its sources and frames a claim, and how it says the sources
lack the answer; `pytest_llmeval.facts.claims` reads sentences with them.

Each pattern is written from fragments: ``<NAME>`` in a template stands for the fragment ``NAME`` (`fill()`), so a
source ("the provided passages", "passage [2]", "documents 1 and 3") is spelt once and read the same in every
lead-in ("Based on the provided passages,", "According to passage [2],") and refusal ("The passages do not mention
...").

>>> bool(FRAMES[0].match("Based on the provided passages, the tower is 330 m tall.")), bool(
...     REFUSALS.search("The passages do not mention the price."))
(True, True)
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = [
    "fill",
    "ADV",
    "CANT",
    "HERE",
    "OPENER",
    "PREP",
    "QUITE",
    "SRC",
    "SRC_LEAD",
    "TAIL",
    "CITATION",
    "FRAMES",
    "NAMES_SOURCE",
    "REFUSALS",
    "SOURCE_LACKS",
    "TRAILING",
    "UNKNOWN",
]

_I = re.IGNORECASE


def fill(template: str, fragments: Mapping[str, object]) -> str:
    """``template`` with each ``<NAME>`` in it replaced by the fragment ``NAME`` of ``fragments`` (a module's
    globals).

    >>> fill("<A> or <B>", {"A": "(?:this)", "B": "that"})
    '(?:this) or that'
    """
    return re.sub(r"<([A-Z_]+)>", lambda m: str(fragments[m.group(1)]), template)


def _x(template: str) -> str:
    """``template`` with each ``<NAME>`` in it replaced by the fragment ``NAME`` defined above it."""
    return fill(template, globals())


def _rx(template: str) -> re.Pattern[str]:
    return re.compile(_x(template), _I)


#: Discourse words before a lead-in ("However, ...", "In summary, ...", "I'm sorry, but").
OPENER = (
    r"(?:(?:unfortunately|however|but|so|thus|therefore|hence|also|additionally|moreover|furthermore|overall|in "
    r"(?:summary|short|conclusion|brief|"
    r"sum|general|addition|particular|fact|any case|this case)|to (?:summari[sz]e|sum up|conclude)|again|finally|"
    r"first(?:ly)?|second(?:ly)?|lastly|"
    r"well|ok(?:ay)?|now|then|and|that said|as such|sadly|regrettably|ultimately|specifically|importantly|notably|"
    r"still|yes|no|sure|consequently|"
    r"accordingly|as a result|(?:i'm |i am |we're )?(?:so |very |really )?sorry(?:,? but)?|apologies(?:,? but)?)[,:;]? "
    r"){0,2}"
)

# The sources an answer may name: "the provided passages", "passage [2]", "documents 1 and 3", "the JSON data".
DET = (
    r"(?:(?:the|this|these|that|those|your|my|our|each|every|any of the|all(?: of)? the|both(?: of)? the|one of the|"
    r"some of the|none of the|"
    r"neither of the|no) )?"
)
ADJ = (
    r"(?:(?:provided|given|above|supplied|available|retrieved|following|attached|original|relevant|cited|referenced|"
    r"quoted|first|second|third|fourth|"
    r"fifth|last|final|same|other|previous|shared|included|listed|aforementioned|accompanying|source|reference|"
    r"background|search|context|input|json|"
    r"underlying|two|three|four|five|several|various|both) ){0,2}"
)
STRONG = (
    r"(?:passages?|contexts?(?! of\b)|documents?|docs?|sources?|texts?|articles?|information|info|data|records?|json|"
    r"excerpts?|snippets?|"
    r"materials?|content|transcripts?|paragraphs?|search results?|knowledge base|input|extracts?|chunks?)"
)
WEAK = (
    r"(?:references?|results?|dataset|tables?|evidence|sections?|files?|reviews?|reports?|pages?|notes|facts|details)"
)
IDS = r"(?: ?(?:#|no\. ?)?\[?\d{1,3}\]?(?: ?(?:,|and|&|or|-|–|to) ?\[?\d{1,3}\]?){0,6})?"
SRC = _x(r"<DET><ADJ><STRONG>\b<IDS>")
SRC_ANY = _x(r"<DET><ADJ>(?:<STRONG>|<WEAK>)\b<IDS>")
# What may follow a source in a lead-in: "provided above", "you shared", "in passage 2", "and the question".
TAIL = _x(
    r"(?: (?:provided|given|supplied|above|below|here|shared|presented|available|you (?:provided|gave|shared|supplied)|"
    r"(?:that )?(?:was|were|is|"
    r"are|has been|have been) (?:provided|given|shared|supplied))(?: (?:above|below|here))?)?(?: (?:in|by|within|from|"
    r"of|on) <SRC_ANY>)?(?: (?:and|"
    r"or|&|as well as) (?:<SRC_ANY>|the (?:question|query|prompt)))?(?: ?\([^()]{0,60}\))?"
)
SRC_LEAD = _x(r"<SRC_ANY><TAIL>")
PREP = (
    r"(?:based (?:(?:solely|only|purely|entirely|mainly|primarily|largely|strictly) )?(?:on|upon)|according to|from|as "
    r"per|per|in|within|given|"
    r"considering|using|citing|going (?:by|off(?: of)?)|judging (?:by|from)|drawing (?:on|from)|relying (?:on|upon)|"
    r"with reference to|referring to|"
    r"looking (?:at|through)|in (?:light|view) of|in (?:accordance|line) with|consistent with|as (?:stated|mentioned|"
    r"noted|described|indicated|shown|"
    r"outlined|explained|reported|discussed|specified|detailed|seen|suggested|listed|written|said|given|presented|"
    r"provided|evidenced) (?:in|by|within|"
    r"from|on)|(?:having|after|upon) (?:(?:carefully|closely) )?(?:read|reviewed|reading|reviewing|analy[sz]ed|"
    r"analy[sz]ing|examined|examining|"
    r"looked at|looking at|considered|considering|gone through|going through)|(?:after|upon|on) (?:a )?(?:careful |"
    r"close )?(?:review|reading|analysis|"
    r"examination) of)"
)
SAYS = (
    r"(?:states|says|mentions|notes|indicates|explains|describes|suggests|reports|shows|confirms|puts it|points out|"
    r"stated|said|mentioned|noted|"
    r"indicated|explained|described|suggested|reported|showed|confirmed|put it|pointed out)"
)
QUITE = r"(?:(?:entirely|completely|totally|100%|quite|fully|absolutely|really) )?"
SEP = r"(?: ?[,:;]| ?[–—]| -)"
REPORT = (
    r"(?:states?|stated|says?|said|mentions?|mentioned|notes?|noted|indicates?|indicated|describes?|described|"
    r"suggests?|suggested|reports?|"
    r"reported|explains?|explained|shows?|showed|shown|reveals?|revealed|confirms?|confirmed|claims?|claimed|clarifies|"
    r"clarified|specifies|"
    r"specified|highlights?|highlighted|emphasi[sz]es|emphasi[sz]ed|points? out|pointed out|tells? us|told us|informs? "
    r"us|establishes|established|"
    r"writes|wrote|adds?|added|argues?|argued|asserts?|asserted|documents|records|lists?|listed|outlines?|outlined|"
    r"discuss(?:es)?|discussed|covers?|"
    r"covered|(?:is|are|was|were) about|talks? about|focus(?:es)? on|deals? with|refers? to|concerns|details|includes?|"
    r"contains?|(?:provides?|"
    r"gives?|offers?) (?:(?:some|detailed|more|additional|further|general|specific|relevant|useful|an|a brief) )"
    r"?(?:information|details|background|"
    r"context|overview|description) (?:about|on|regarding|of))"
)
ADV = (
    r"(?:(?:also|further|clearly|explicitly|specifically|directly|actually|only|briefly|"
    r"simply|repeatedly|consistently|both|all) )?"
)
# Lead-ins that carry no source ("It is clear that", "Please note that", "I'm not sure, but", "Answer:").
CHAIN = _x(
    r"(?:it (?:is|was|seems|appears|becomes) (?:(?:clear|evident|apparent|obvious|likely|probable|certain|reasonable "
    r"to (?:say|assume|conclude)|"
    r"safe to (?:say|assume|conclude)) )?that|it (?:can|could|may|might) be (?:inferred|concluded|seen|deduced|said|"
    r"assumed|noted|determined|"
    r"understood) that|(?:we|i) (?:can|could|may|might) (?:(?:clearly|safely|reasonably|also|therefore|thus|"
    r"confidently|definitely|"
    r"certainly) )?(?:infer|conclude|say|determine|deduce|confirm|tell(?: you)?)(?: that)?|(?:we|i) (?:can|could|may|"
    r"might) (?:(?:clearly|safely|"
    r"reasonably|also) )?(?:see|gather|understand|state|note|learn) that|(?:we|i) (?:know|learn|see|find|understand|"
    r"gather) that|(?:this|that|"
    r"it) (?:means|implies|suggests|shows|indicates|confirms|tells us) that|the (?:short |correct |final )?answer "
    r"(?:is|would be)(?: that| ?:)|"
    r"(?:to|in) (?:answer|response) (?:to )?(?:your|the|this|the user's) (?:question|query|request)(?: (?:using|with|"
    r"from|based on) <SRC_ANY>)?,?|"
    r"(?:regarding|as for|as to) (?:your|the|this) (?:question|query),?|(?:i'?m|i am) not <QUITE>(?:sure|certain|"
    r"positive|"
    r"confident)(?: (?:about (?:this|that|it)|if (?:this|that) is (?:correct|right|accurate)))?,? but(?: (?:i (?:think|"
    r"believe|suspect)|"
    r"it (?:seems|appears)|probably|perhaps|likely))?(?: that)?|if (?:i'?m|i am) not mistaken,?|if i (?:recall|"
    r"remember) (?:correctly|right),?|"
    r"as far as i (?:know|can tell),?|to the best of my (?:knowledge|understanding),?|from what i (?:can )?(?:tell|see|"
    r"gather|understand),?|"
    r"it (?:seems|appears) that|(?:please |also |but |do )?(?:note|notice|keep in mind|bear in mind|remember|be aware)"
    r"(?: that| ?:)|it(?:'?s|"
    r" is) (?:also )?(?:worth|important|useful|helpful) (?:noting|mentioning|to note|to mention|to remember|to know)"
    r"(?: that| ?:)|(?:(?:final|"
    r"short|brief|my|the) )?(?:answer|response|reply|summary|conclusion|tl;?dr|result|verdict|note|nb|n\.b\.|important|"
    r"fyi|tip|update|explanation|"
    r"reasoning) ?:)"
)
HERE = r"(?:here (?:is|are)|here's|below (?:is|are)|the following (?:is|are))"
FRAMES = (
    _rx(
        r"^(?P<lead><OPENER><PREP> (?:<SRC_LEAD>|this|that|these|the above(?: information)?|what (?:is|was) "
        r"(?:provided|given|stated|written|"
        r"said)(?: above)?)<SEP>)(?P<rest> .*)$"
    ),
    _rx(
        r"^(?P<lead><OPENER>it (?:is|was|has been) <ADV>(?:stated|mentioned|noted|said|reported|written|indicated|"
        r"explained|described|specified|claimed|"
        r"suggested|shown|confirmed|established) (?:in|by|within) <SRC_LEAD>(?: that|<SEP>))(?P<rest> .*)$"
    ),
    _rx(r"^(?P<lead><OPENER>as (?:<SRC_ANY>|the (?:author|writer)s?|it) <ADV><SAYS><SEP>)(?P<rest> .*)$"),
    _rx(
        r"^(?P<lead><OPENER>(?:<SRC_ANY>|the (?:author|writer|narrator)s?) <ADV><REPORT>(?: that| how| ?:)?,?)"
        r"(?P<rest> .*)$"
    ),
    _rx(r"^(?P<lead><OPENER>(?:it|this|that) <ADV><SAYS> that)(?P<rest> .*)$"),
    _rx(r"^(?P<lead><OPENER><HERE> [^:]{0,120}:)(?P<rest> .*)$"),
    _rx(r"^(?P<lead><SRC_ANY>(?: ?\([^()]{0,60}\))? ?:)(?P<rest> .*)$"),
    _rx(r"^(?P<lead><OPENER><CHAIN>)(?P<rest> .*)$"),
)
# Attribution at the end ("..., according to passage 2.") and citation marks ("[1]", "(Passage 2)", "【3†source】").
TRAILING = _rx(
    r"^(?P<rest>.+?)(?:,? \(?(?P<lead>(?:according to|as (?:stated|mentioned|noted|described|indicated|reported|shown|"
    r"explained|specified|"
    r"given) (?:in|by)) <SRC_LEAD>)|, \(?(?P<lead2>(?:based on|as per) <SRC_LEAD>))\)?(?P<end>[.!]?)$"
)
CITATION = _rx(
    r"(?<=\S) ?(?:\[(?:<SRC_ANY>|\d{1,3}(?: ?[,–-] ?\d{1,3}){0,9})\](?=[ .,;:!?)]|$)|\((?:(?:see|source|sources|cf\.?|"
    r"from|per|via|"
    r"ref\.?) ?:? )?<SRC_ANY>\)|【[^】]{0,60}】)"
)


CANT = r"(?:cannot|can't|can not|could not|couldn't)"
PRECISELY = r"(?:(?:reliably|definitively|accurately|directly|precisely|clearly|exactly|fully) )?"
DETERMINED = (
    r"(?:determined|found|answered|inferred|deduced|established|confirmed|verified|"
    r"ascertained|identified|known|stated|extracted|derived)"
)
NEG = r"(?:not|n't|never)"
NOT_AUX = (
    r"(?:cannot|can not|can't|won't|will not|am not|(?:could|do|does|did|was|were|is|are|"
    r"have|has|had|would|should|may|might)(?: not|n't))"
)
# What follows "no information" when it is about the sources ("no information about", "no data provided").
META_GIVEN = (
    r" (?:(?:is|are|was|were|has been|have been) )?(?:provided|given|available|found|included|"
    r"made|mentioned|present|stated|listed|specified)\b"
)
META_NEXT = _x(
    r"(?= (?:about|on|regarding|concerning|of|as to|related to|in|within|from|for|that|to|whatsoever|at all|here|there)"
    r"\b|<META_GIVEN>|"
    r" ?[,;.!]| ?$)"
)
DETAIL_NEXT = _x(
    r"(?= (?:about|regarding|concerning|as to|related to|in <SRC>|whatsoever|at all)\b|<META_GIVEN>| ?[,;.!]| ?$)"
)
QUANT = r"(?:(?:none|neither|no|not one|not a single|nothing in) (?:of )?)"
# "The passages do not mention ...", "None of the documents say ...", "There is no mention of ...", "I could not find
# ... in the
# provided documents", "I don't know.", "The price is not mentioned.", "... cannot be determined from the context"
REFUSALS = _rx(
    r"^<OPENER><SRC><TAIL> <NOT_AUX> (?:(?:explicitly|specifically|directly|clearly|actually|really|seem to|appear to|"
    r"even|"
    r"always) ){0,2}(?:mention|contain|include|provide|specify|say|state|discuss|address|cover|give|list|describe|"
    r"indicate|offer|explain|"
    r"reference|talk|have|answer|clarify|detail|reveal|identify|name|tell|show|disclose|note|report|define|elaborate|"
    r"touch|confirm|go into|"
    r"make (?:any )?mention|refer)\b|^<OPENER><QUANT><SRC><TAIL> (?:(?:explicitly|specifically|directly|clearly|"
    r"actually) )?(?:mentions?|"
    r"contains?|includes?|provides?|specif(?:y|ies)|says?|states?|discuss(?:es)?|address(?:es)?|covers?|gives?|lists?|"
    r"describes?|indicates?|"
    r"offers?|explains?|references?|talks?|answers?|has|have|reveals?|identif(?:y|ies)|names?|tells?|mentioned|said|"
    r"stated|gave|provided|"
    r"refers?)\b|^<OPENER><SRC><TAIL> (?:(?:is|are|was|were|seems?|appears?|remains?) (?:(?:completely|entirely|"
    r"largely) )?(?:silent|unclear|"
    r"vague|ambiguous|mute) (?:on|about|regarding|as to)|(?:makes?|made) no (?:mention|reference)|(?:contains?|"
    r"contained|provides?|provided|"
    r"gives?|gave|includes?|included|offers?|has|have|had) no\b|(?:lacks?|lacked|lacking)\b|(?:fails?|failed) to\b|"
    r"(?:is|are) missing\b)|"
    r"^<OPENER>(?:there (?:is|are|was|were)|there's|i (?:see|found|find|can find)|we (?:see|found|find)) (?:no|not any|"
    r"nothing) (?:(?:specific|"
    r"explicit|direct|relevant|clear|further|additional|detailed|such|precise|exact|concrete|mention|reliable) )"
    r"{0,2}(?:(?:mention|information|"
    r"info|data|answer|reference|specifics|statement|discussion)s?<META_NEXT>|details?<DETAIL_NEXT>|(?:evidence|"
    r"records?|indications?|"
    r"explanations?|proof)\b.{0,160}?\b(?:in|within|from|among) <SRC>)|^<OPENER>no (?:(?:specific|explicit|direct|"
    r"relevant|further|additional|"
    r"such|detailed|clear) )?(?:(?:mention|information|info|indication|reference|answer)s?(?: (?:of|about|on|regarding|"
    r"concerning|as to)\b|"
    r"<META_GIVEN>)|(?:details?|data)(?: (?:about|regarding|concerning|as to)\b|<META_GIVEN>))|^<OPENER>(?:i|we) "
    r"(?:<NOT_AUX>(?: be able to)?|"
    r"(?:am|was|were|are|have been) (?:unable|not able) to) (?:(?:seem to|really|actually|directly|definitively|"
    r"reliably|confidently|"
    r"accurately|clearly|precisely|exactly|even) ){0,2}(?:(?:answer|determine|infer|deduce|ascertain|pinpoint|"
    r"establish|figure out|verify|"
    r"confirm)\b|(?:find|locate|see|identify|tell|say|provide|give|extract|get|retrieve|spot|discover|access)(?: you)? "
    r"(?:the answer|an answer|"
    r"this|that|it\b|which|whether|what|who|when|where|why|how|if|for (?:sure|certain)|with (?:certainty|confidence)|a "
    r"(?:definitive|clear|"
    r"specific|direct|precise)|any (?:information|mention|details|data|reference|answer|specific|relevant|such)|"
    r"information|details|"
    r"the (?:information|details|specific|exact|precise|relevant))|(?:find|locate|see|identify|tell|say|provide|give|"
    r"know|extract|get|retrieve|"
    r"spot|discover)\b.{0,160}?\b(?:in|within|from|based on|using) <SRC>)|^<OPENER>(?:i|we) (?:do not|don't|did not|"
    r"didn't) (?:(?:have|"
    r"possess) (?:(?:enough|sufficient|any|the|specific|adequate|relevant|that|this|the necessary|more|further|access "
    r"to|detailed|such|"
    r"reliable|precise|exact|real-time|current) ){0,2}(?:information|details|data|context|knowledge|access|info|facts|"
    r"evidence)|know\W*$)|"
    r"^<OPENER>i (?:do not|don't) know (?:the answer|this|that|for (?:sure|certain)|which|what|who|when|where|why|how|"
    r"whether|if|exactly)\b|"
    r"\b(?:(?:is|are|was|were) <NEG>|isn't|aren't|wasn't|weren't) (?:(?:explicitly|directly|specifically|clearly|"
    r"actually|ever|even|"
    r"anywhere) )?(?:(?:mentioned|stated|specified)(?: (?:explicitly|directly|anywhere|clearly|specifically))?(?= "
    r"?[.,;!]| ?$| (?:here|there|"
    r"anywhere|either|at all)| (?:in|within|by|from|anywhere in) <SRC>)|(?:provided|given|listed|included|discussed|"
    r"addressed|covered|"
    r"described|found|available|disclosed|indicated|reported|named|identified|defined|known|clear|explained|evident|"
    r"present|mentioned|stated|"
    r"specified|contained|shown|apparent|made clear) (?:in|within|by|from|anywhere in|among) <SRC>|(?:in|within|among|"
    r"part of) <SRC>)|"
    r"^<OPENER>(?:(?:the|an?) (?:(?:exact|specific|precise|correct|final|direct) )?answer(?: to (?:the|this|that|your) "
    r"(?:question|query))?|"
    r"this|that|it|the question|this question|which|whether) (?:is |are )?<CANT> be <PRECISELY>(?:<DETERMINED>|given|"
    r"provided)\b|"
    r"\b<CANT> be <PRECISELY>(?:<DETERMINED>) (?:from|in|with|using|based on|given|within) <SRC>|\b(?:it|this|that) "
    r"(?:(?:is|was|"
    r"remains) (?:not (?:clear|possible|stated|mentioned|specified|known|evident|apparent)|unclear|impossible|"
    r"difficult|hard)|(?:isn't|"
    r"wasn't) (?:clear|possible|stated|mentioned|specified|known|evident|apparent))(?: to (?:determine|say|tell|know|"
    r"answer|infer|confirm|"
    r"establish|conclude|find|see|ascertain)\b[^.;!?]{0,120}?)?(?: (?:for (?:sure|certain)|exactly|precisely|"
    r"definitively|"
    r"with certainty))? (?:from|in|based on|given|with|using) <SRC>|^<OPENER>(?:the|this|that|such|any|specific|more|"
    r"further|detailed|"
    r"exact) ?(?:(?:relevant|specific|exact|requested|detailed|necessary) )?(?:information|info|details?|data|answer)"
    r"(?: (?:about|on|regarding|"
    r"for|of|concerning) [^.;!?]{1,100}?)? (?:is|are|was|were) <NEG> (?:(?:explicitly|directly|specifically|currently|"
    r"readily) )?(?:available|"
    r"provided|given|included|present|found|mentioned|stated|specified|contained|listed|known)\b"
)


# "It is not clear which country ...", "It is not specified what denomination ...": what the answer does not know, an
# indirect question, not a claim.
UNKNOWN = _rx(
    r"^<OPENER>(?:it|this|that) (?:(?:is|was|remains) (?:not (?:(?:entirely|quite|immediately|explicitly|exactly|fully)"
    r" )?(?:clear|"
    r"specified|mentioned|stated|known|indicated|evident|certain|said|given)|unclear|unknown|uncertain)|(?:isn't|"
    r"wasn't) (?:clear|"
    r"specified|mentioned|stated|known|certain)) (?:what|which|who|whom|whose|when|where|whether|how|if|why)\b"
)
# After a lead-in that names the sources ("Based on the given context, there is no indication that ..."): the sources
# lack it.
SOURCE_LACKS = _rx(
    r"^<OPENER>(?:there (?:is|are|was|were)|there's) (?:no|not any) (?:(?:clear|explicit|direct|specific|such|further) "
    r")?"
    r"(?:indications?|evidence|suggestions?|signs?|proof|hints?)\b"
)
NAMES_SOURCE = _rx(r"\b<STRONG>\b")
