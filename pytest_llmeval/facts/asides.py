"""The regular expressions that tell a sentence that claims nothing about the sources: a prompt echo ("Here is a
summary in 94 words:"), talk about the sources ("The passages are not relevant."), a closing ("I hope this helps!"),
an opener ("Great question!"), a self-assessment ("I can confidently answer the question.") or a hedge ("Prices may
vary."). They are written from the fragments of `pytest_llmeval.facts.phrasing`; `pytest_llmeval.facts.claims` reads
sentences with them.

>>> bool(ECHOES.search("Here is a summary of the article in 94 words:")), bool(CLOSINGS.search("I hope this helps!"))
(True, True)
"""

from __future__ import annotations

import re

# The shared fragments are read by name in the templates below (`fill()`).
from .phrasing import ADV, CANT, HERE, OPENER, PREP, QUITE, SRC, SRC_LEAD, TAIL, fill  # noqa: F401

__all__ = ["ABOUT", "ASSESSMENTS", "CLOSINGS", "ECHOES", "HEDGES", "OPENERS"]

_I = re.IGNORECASE


def _x(template: str) -> str:
    """``template`` with each ``<NAME>`` in it replaced by the fragment ``NAME`` defined or imported above it."""
    return fill(template, globals())


def _rx(template: str) -> re.Pattern[str]:
    return re.compile(_x(template), _I)


TASK = (
    r"(?:summary|summaries|summari[sz]ation|description|answer|response|reply|list|overview|breakdown|rewrite|"
    r"paraphrase|translation|version|draft|"
    r"explanation|outline|review|paragraph|e-?mail|letter|post|tweet|caption|story|poem|essay|table|report|recap|"
    r"synopsis|abstract|title|headline|"
    r"analysis|comparison|rundown|classification|extraction|key points|main points|points|highlights|takeaways|bullet "
    r"points|steps|instructions|"
    r"options|suggestions|recommendations|ideas|examples|output|json|code|sentences?|itinerary|recipe|bio|biography|"
    r"profile|slogan|categories|tags|"
    r"keywords|information|details|facts|result|results|text)\b"
)
PLAN = (
    r"(?:summari[sz]e|describe|explain|rewrite|paraphrase|answer|list|outline|translate|recap|put it simply|sum up|"
    r"break (?:it|this) down|go through|"
    r"walk you through|provide|give you|start|begin|look at|clarify|address)"
)
# "Here is a summary ...", "The question asks ...", "You asked ...", "Let me summarize ...", "(94 words)", "I have
# summarized ..."
ECHOES = _rx(
    r"^<OPENER>(?:<HERE>|what follows is|this is|these are|attached is|i've (?:put together|compiled|prepared))\b(?: "
    r"(?:a|an|the|my|your|some|"
    r"our))?(?: [\w'’-]+){0,4}? <TASK>(?![^:]*: ?\W*\w)|^<OPENER><HERE> [^:]{0,120}:$|^<OPENER>(?:the|your|this|"
    r"my) (?:user'?s? )?(?:original )?(?:question|query|request|prompt|task|instruction)s? (?:is|was|asks?|asked|is "
    r"asking|wants|requests?|seeks|"
    r"concerns|is about|relates to|refers to|requires|calls for)\b|^<OPENER>(?:you|the user) (?:(?:have|had) )"
    r"?(?:asked|are asking|ask|"
    r"want(?:ed)? to know|would like to know|'d like to know|wish to know|are wondering|were wondering|requested|"
    r"inquired|want me to|"
    r"would like me to|'d like me to)\b|^<OPENER>(?:to <PLAN>\b[^.!?:\d]{0,120}:|(?:let me|let's|let us|i will|i'll|i "
    r"am going to|i'm going to|"
    r"we will|we'll) (?:now |first |briefly )?<PLAN>\b[^.!?:\d]{0,120}[.!:]?)$|^[^.!?:]{0,120}\b(?:in|under|within|"
    r"below|of|to) (?:(?:about|"
    r"around|approximately|exactly|fewer than|less than|no more than|at most|roughly|just) )?\d{1,4} "
    r"words\b[^.!?:]{0,40}:$|"
    r"^\W*(?:\(? ?(?:word count|words|length|total) ?[:=]? ?\d{1,5}(?: words?)? ?\)?|\(? ?(?:approx(?:imately|\.)? |"
    r"about |exactly |"
    r"~ ?)?\d{1,5} words? ?\)?)\W*$|^<OPENER>(?:this|the|my|the above|above|that|the following|the preceding) "
    r"<TASK>(?: above| below)? (?:is|has|"
    r"contains|uses|was|comes to|totals|consists of|runs)(?: (?:exactly|about|approximately|around|under|over|less "
    r"than|fewer than|more than|"
    r"just|roughly|precisely|only))? \d{1,5} (?:words?|sentences?|characters?|paragraphs?|bullet points|points|lines|"
    r"items|tokens)(?: long|"
    r" in length)?\W*$|^<OPENER>(?:this|the|my|the above|that) <TASK>(?: above| below)? (?:is|was|has been|are|were|"
    r"have been) (?:(?:also|"
    r"deliberately|intentionally) )?(?:written|formatted|presented|structured|kept|limited|organi[sz]ed|provided|"
    r"generated|condensed|shortened|"
    r"divided|broken (?:up|down)) (?:in|as|to|under|within|using|into|on)\b|^<OPENER>(?:i|we)(?: (?:have|will|shall|"
    r"also|then|now|tried to|"
    r"aimed to)|'ve|'ll){0,2} (?:written|wrote|write|rewritten|rewrote|kept|keep|formatted|broken down|broke down|"
    r"(?:creat|prepar|provid|generat|"
    r"summari[sz]|draft|compos|rewrit|paraphras|translat|list|outlin|condens|organi[sz]|format|extract|includ|"
    r"highlight|compil)(?:e|"
    r"ed)?)(?: (?:a|an|the|this|my|your|it|that|these|them|below|above|following))?(?: (?:short|brief|concise|detailed|"
    r"quick|simple|new|"
    r"following|requested|above|updated|revised|final|main|key|provided|given))? (?:<TASK>|<SRC>|it\b|them\b|below\b)"
)


# "According to the context:", "The passages are not relevant.", "The answer is in passage 3.", "Let me analyze the
# passages."
ABOUT = _rx(
    r"^<OPENER><PREP> <SRC_LEAD>\W*$|^\W*<SRC_LEAD>\W*$|^<OPENER>(?:(?:all|both|each|some|most|several|many|one|two|"
    r"three|only|only one|neither|"
    r"none) (?:of )?)?<SRC><TAIL> <ADV>(?:(?:is|are|was|were|seems?|appears?)(?: to be)?(?: not)?(?: the)?(?: (?:very|"
    r"most|highly|directly|"
    r"somewhat|partially|partly|all|both|quite|fairly|more|less|least|equally|also|only|not))? (?:relevant|irrelevant|"
    r"related|unrelated|helpful|"
    r"unhelpful|useful|consistent|inconsistent|contradictory|conflicting|ambiguous|unclear|vague|incomplete|sufficient|"
    r"insufficient|limited|brief|"
    r"short|lengthy|long|detailed|informative|similar|identical|the same|different|in agreement|(?:only )?relevant "
    r"(?:one|passage|source|"
    r"document)s?|<SRC>|on (?:the same )?topic|off[ -]topic|about (?:the same (?:topic|subject|thing|person|event)|"
    r"this|that|it|the (?:topic|"
    r"question|subject)))|(?:provides?|provided|contains?|contained|gives?|gave|offers?|offered|includes?|included|has|"
    r"have|had|presents?|"
    r"presented|shares?|lists?) (?:(?:some|more|additional|further|enough|sufficient|limited|relevant|useful|detailed|"
    r"specific|general|"
    r"the following|several|many|a lot of|plenty of|little|lots of|background|contextual|conflicting|different|various|"
    r"important|key|"
    r"the necessary|the relevant|all the|a few|few|helpful|the|an?|any|all|comprehensive|good|clear|brief|thorough|"
    r"complete|direct|partial|"
    r"concise|general) ){0,3}(?:information|info|details?|context|data|facts|evidence|background|insights?|answers?|"
    r"clues?|hints?|points|"
    r"perspectives?|views?|descriptions?|explanations?|accounts?|overview|summary|picture|understanding)|"
    r"(?:discuss(?:es|ed)?|cover(?:s|ed)?|"
    r"address(?:es|ed)?|talks? about|talked about|focus(?:es|ed)? on|deals? with|dealt with|concerns?|relates? to|"
    r"refers? to|describes?|described|"
    r"mentions?|mentioned|(?:is|are) about|answers?|answered|touch(?:es)? on) (?:the same (?:topic|subject|thing|issue|"
    r"event|person|question)|"
    r"this|that|it|them|the (?:topic|question|subject|matter|issue|query)|(?:different|various|several|other|multiple|"
    r"related|similar|"
    r"many) (?:topics|subjects|aspects|things|issues|questions|matters|points)(?: of (?:the|this) (?:topic|subject|"
    r"question))?))(?: (?:about|on|"
    r"regarding|related to|relevant to|for|to|concerning|with|in answering|of|to (?:answer|address|respond to))(?: "
    r"(?:the|this|your|that|each|one|"
    r"our))? (?:question|query|topic|subject|matter|issue|it|this|that|answer|request|task|other|another|user))?\W*$|"
    r"^<OPENER>(?:the (?:answer|"
    r"relevant information|information|details?|relevant details?)|this(?: (?:information|answer|fact|detail))?|"
    r"that(?: (?:information|answer|"
    r"fact|detail))?|it) (?:is|are|was|were|can be|could be|may be) (?:(?:also|only|clearly|explicitly) )?(?:found|"
    r"mentioned|stated|given|"
    r"provided|contained|located|discussed|described|listed|included|explained|shown|available) (?:only )?(?:in|within|"
    r"by|from|"
    r"under) <SRC_LEAD>\W*$|^<OPENER>(?:(?:i|we|let me|let's|let us)(?:'ve|'ll)?(?: (?:will|need to|have|'ve|first|"
    r"carefully|now|then|must|should|"
    r"can|am going to|'ll|shall)){0,3} )?(?:read|review(?:ed)?|analy[sz]e[d]?|look(?:ed)? (?:at|through)|examine[d]?|"
    r"check(?:ed)?|went through|"
    r"go through|gone through|scan(?:ned)?|search(?:ed)?|consider(?:ed)?|evaluate[d]?|compare[d]?|break down|broke "
    r"down|assess(?:ed)?|identif(?:y|"
    r"ied)|extract(?:ed)?|use[d]?|rel(?:y|ied) on|refer(?:red)? to|find|locate)(?: (?:all|each|every|through|both|"
    r"carefully))?(?: of)? <SRC_LEAD>(?: (?:carefully|closely|thoroughly|again|first|above|below|one by one|step by "
    r"step))?(?: (?:to|in order to|"
    r"and|so that) (?:find|answer|determine|identify|see|check|locate|extract|summari[sz]e|understand|address|respond|"
    r"get)\b[^.!?]{0,120})?\W*$|"
    r"^<OPENER>(?:there (?:is|are|were|was) (?:\w+ )?<SRC>(?: (?:provided|given|available|here|above|below))?|(?:i|we) "
    r"(?:was|were|have been|am|"
    r"are|'ve been) (?:given|provided|shown|supplied)(?: with)? (?:\w+ )?<SRC>)\W*$"
)
CLOSINGS = _rx(
    r"^<OPENER>(?:(?:please |do )?let (?:me|us) know\b|(?:i |we )?(?:hope|trust) (?:this|that|it|the above|my "
    r"(?:answer|response)|"
    r"the information|these)\b.{0,40}\b(?:help|helps|helped|helpful|useful|answers|clarifies|clears)|(?:please )"
    r"?(?:feel free|don't hesitate|"
    r"do not hesitate)\b|if you (?:have|need|want|would like|'d like|require)\b.{0,80}\b(?:questions?|help|assistance|"
    r"clarification|"
    r"information|details|anything)\b|(?:i'm|i am|we're|we are|i'd be|i would be|always)(?: always)? (?:here|happy|"
    r"glad|"
    r"more than happy) to help|happy to help|glad (?:i|we) could help|have a (?:great|good|nice|wonderful|lovely) "
    r"(?:day|time|trip|weekend|"
    r"evening|one)|good luck|best (?:regards|wishes)|thanks? (?:you )?for (?:asking|your question|reaching out|the "
    r"question)|you're welcome|"
    r"cheers|happy (?:reading|cooking|travels|travell?ing|learning|coding|exploring)|enjoy (?:your|the) (?:trip|visit|"
    r"meal|day|stay|reading)|"
    r"is there anything else)\b"
)
OPENERS = _rx(
    r"^\W*(?:(?:great|good|excellent|interesting|fair) question|(?:i'd|i would|i am|i'm) (?:be )?(?:happy|glad|"
    r"delighted) to (?:help|assist|"
    r"answer)(?: (?:you|with (?:that|this|your question))){0,2}|(?:sure|certainly|of course|absolutely|no problem|"
    r"gladly|alright)(?: thing)?|"
    r"let's (?:dive in|get started|take a look|see))\W*$"
)
ASSESSMENTS = _rx(
    r"^<OPENER>(?:(?:i|we) (?:can|could|was able to|am able to|have|'ve) (?:now )?(?:see|find|found|identify|"
    r"identified|determine|"
    r"determined|give|provide|locate|located) (?:the|an|a clear|a) answer(?: to (?:the|this|your) question| here| now)"
    r"?|(?:the|this|"
    r"your) question (?:can|could) (?:now )?be (?:(?:fully|confidently|accurately|easily|partially|clearly) )"
    r"?answered(?: (?:based on|using|"
    r"from) <SRC_LEAD>)?)\W*$|^<OPENER>(?:(?:i|we)(?: (?:can|could|am able to|was able to|have|will|now|therefore|thus|"
    r"hence|confidently|"
    r"fully|accurately|correctly|definitively|successfully|hopefully)|'ve|'ll){0,3} |(?:this|that|it) (?:(?:should|"
    r"will|would|hopefully|"
    r"fully|completely|directly|now) ){0,2})(?:answers?|answered|address(?:es|ed)?|respond(?:s|ed)? to|cover(?:s|ed)?|"
    r"resolve[sd]?|"
    r"satisf(?:y|ies|ied)) (?:the|this|your|all (?:the|of (?:the|your))|this|that|it)(?: (?:user's )?(?:question|query|"
    r"request|prompt|task|"
    r"inquiry|questions|points))?(?: (?:fully|completely|accurately|correctly|confidently|asked|now|(?:based on|using|"
    r"from) <SRC_LEAD>))?\W*$|^<OPENER>(?:i'?m|i am|we're|we are) (?:(?:fairly|very|quite|highly|reasonably|completely|"
    r"absolutely|100%|"
    r"entirely|pretty) )?(?:confident|certain|sure|positive)(?: (?:that )?(?:this|my|the|of|about|in)(?: (?:this|my|"
    r"the|"
    r"that))?(?: (?:answer|response|information|assessment|conclusion)(?: is (?:correct|accurate|right))?)?)?\W*$|"
    r"^<OPENER>(?:i|"
    r"we) <CANT> (?:be (?:(?:100%|completely|entirely|absolutely|fully|totally) )?(?:certain|sure|confident|positive)|"
    r"say (?:for (?:sure|"
    r"certain)|with (?:certainty|confidence)|definitively))(?: (?:of|about) (?:this|that|it|my answer))?\W*$|"
    r"^<OPENER>(?:this|my|the|"
    r"the above|that) (?:answer|response|summary|information|reply|explanation|conclusion)(?: above)? (?:is|should be|"
    r"seems|appears|was|"
    r"remains) (?:(?:fully|entirely|completely|directly|well|also|therefore|thus|hopefully) )?(?:(?:accurate|correct|"
    r"complete|comprehensive|"
    r"sufficient|reliable|true|right|concise|clear)(?:,? (?:and )?(?:accurate|correct|complete|comprehensive|"
    r"sufficient|reliable|true|"
    r"concise|clear)){0,2}|(?:consistent with|supported by|based (?:solely |only |entirely )?on|grounded in|derived "
    r"from|drawn from|"
    r"taken from|faithful to|in line with) <SRC_LEAD>)\W*$"
)
HEDGES = _rx(
    r"^<OPENER>(?:i'?m|i am) not <QUITE>(?:sure|certain|confident|positive)(?: (?:about|of) (?:this|that|it|the answer|"
    r"my answer))?\W*$|"
    r"^<OPENER>i (?:may|might|could) be (?:wrong|mistaken|incorrect)\W*$|^<OPENER>(?:(?:please |also )?(?:note|keep in "
    r"mind|bear in mind|"
    r"remember|be aware)(?: that| ?:) )?(?:(?:this|the|my|that|these|such|the above|the provided|all the|all this|any|"
    r"some)(?: (?:information|"
    r"answer|response|summary|data|details|figures?|estimates?|numbers|list|description|advice|content|translation|"
    r"info|prices|hours|times|"
    r"schedules?|availability))?|prices|hours|opening hours|times|schedules?|availability|details|information|policies|"
    r"rates|fees) (?:(?:may|"
    r"might|could|can) (?:(?:not|also) )?(?:change|vary|differ|be (?:outdated|out of date|incomplete|inaccurate|"
    r"different|subject to change|"
    r"up[ -]to[ -]date|current|accurate|complete|exhaustive)|have changed|contain (?:errors|inaccuracies)|reflect)|"
    r"(?:is|are) (?:(?:only|"
    r"just) )?(?:an? )?(?:approximate|approximation|estimate|rough estimate|approximations|estimates|subject to change|"
    r"not (?:exhaustive|"
    r"comprehensive|complete|definitive|guaranteed|an exhaustive list|a complete list|professional|legal|medical|"
    r"financial|intended)))|"
    r"^<OPENER>(?:(?:please|always|i (?:would )?(?:recommend|suggest|advise)|(?:it is|it's|it would be) (?:always )"
    r"?(?:best|a good idea|"
    r"advisable|recommended|wise|important) to|you (?:may|might|should|could)(?: (?:want|wish) to)?|be sure to|make "
    r"sure to|"
    r"consider) ){0,2}(?:verify|check|confirm|double[ -]check|consult|contact|reach out to|refer to|visit|call|"
    r"seek)(?:ing)?\b.{0,160}?\b(?:official|website|directly|professional|doctor|physician|expert|lawyer|attorney|"
    r"advisor|adviser|"
    r"up[ -]to[ -]date|latest|current|most recent|accurate|accuracy|more (?:information|details)|further "
    r"(?:information|details)|before|source|"
    r"sources)\b|^<OPENER>(?:as an ai|as a (?:language|ai) model|i'?m an ai|i am an ai|(?:i|we) (?:do not|"
    r"don't) have (?:access to )?(?:real[ -]time|current|up[ -]to[ -]date|live|personal|browsing)|my (?:knowledge|"
    r"training data|"
    r"information) (?:is |was )?(?:cut|only|limited|current|up to))|^<OPENER>(?:(?:it is|it's|that is|that's|it can be|"
    r"it may be) )?(?:hard|"
    r"difficult|tough|tricky|impossible) to (?:say|tell|know|be sure)(?: (?:for (?:sure|certain)|definitively|exactly|"
    r"precisely|"
    r"with certainty))?\W*$"
)
