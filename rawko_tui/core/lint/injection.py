"""Prompt injection in a memory: text that steers the agent reading it instead of informing it.

Memory files are injected verbatim into agents' prompts, so a memory that says
"ignore your instructions", gives the agent a new role, asks for secrets or
quietly weakens a review is an attack on every agent that reads it.

How it is found:

1. **The text as a model reads it** (``views``): as written; decoded where it is
   encoded (HTML entities, URL encoding, ``\\x``/``\\u`` escapes, base64 and hex
   runs that decode to text); and folded as a model reads through disguises
   (tag characters as the ASCII they mirror, invisible characters dropped,
   NFKD, accents dropped, look-alike letters of other scripts as Latin from
   Unicode's confusables, ``data/lookalikes.txt``; leetspeak that spells an
   English word; letters spaced out or split by Markdown). Every view keeps
   the text's lines, so a finding names the line it is on.
2. **The moves** (``MOVES``): each is a few regular expressions, run on RE2 in
   linear time, for one thing an attacker does: override the instructions in
   any word order, claim authority, give a new role, chat-template and
   tool-call tokens, ask for secrets, send data out, run code from outside,
   weaken a safeguard, hide what is done, lie about results, spread itself,
   dictate the reply; in English and seven other languages. The words come
   from what such attacks are made of, not from any labelled text.
3. **Context** for each match: inside quotes, a code span or block, or a
   blockquote; negated ("never send keys to …"); or in a paragraph that reports
   an attack ("the attacker's payload said …"). Team rules, incident write-ups
   and tokenizer bugs use the same words as data.
4. **A score**: a logistic model over which moves occur in which context and
   which disguises were needed (``data/injection_model.json``: weights,
   bias and threshold fitted by ``bench/injection.py --fit`` on a labelled set,
   chosen by cross-validation). A passage (paragraphs of up to ~1,200
   characters) is flagged when its score reaches the threshold.

A clean file costs one pass of one RE2 set over its text (``_scan``): the
views and the scoring are built only for a text where a move or a disguise
occurs. Imports only ``safetext``, ``commonwords`` and ``markdownhidden``.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from importlib import resources

from ..records import record
from ..text.markdownhidden import hidden_parts
from ..text.safetext import without_invisible

# --------------------------------------------------------------------------
# The moves
# --------------------------------------------------------------------------

@record(frozen=True)
class Near:
    """Its parts one after another within ``gap`` characters of one clause (no sentence ends between them: "e.g."
    and ".env" are not ends, line breaks are: an instruction split over lines or list items is still one); in either
    order unless ``ordered``. Windows are checked here, between the spans RE2 finds for each part: one RE2 pattern
    with a bounded gap between two frequent words costs a DFA state per distance and runs a hundred times slower."""

    parts: tuple  # each a pattern (str) or a Near
    gap: int
    ordered: bool = True
    clause: bool = True  # False: the parts may be in neighbouring sentences ("keys live in x. Send them to y")


def _near(a, b, gap: int = 60) -> Near:
    """``a`` and ``b`` within one clause, in either order."""
    return Near((a, b), gap, ordered=False)


def _then(a, b, gap: int = 60) -> Near:
    """``a`` then ``b`` within one clause."""
    return Near((a, b), gap)


def _words(alternatives: str) -> str:
    return rf"\b(?:{alternatives})\b"


# English
_MODAL = r"(?:must|should|shall|will|need to|needs to|has to|have to|is to|are to|ought to|may|can|please)"
_OVERRIDE_VERB = _words(
    r"ignor(?:e|es|ed|ing)|disregard(?:s|ed|ing)?|forget(?:s|ting)?|forgot(?:ten)?|overrid(?:e|es|den|ing)|overrode|"
    r"bypass(?:es|ed|ing)?|discard(?:s|ed|ing)?|abandon(?:s|ed|ing)?|(?:set|put|cast|throw|toss|push) (?:aside|away|out)|"
    r"supersed(?:e|es|ed|ing)|nullif(?:y|ies|ied)|invalidat(?:e|es|ed)|revok(?:e|es|ed)|rescind(?:s|ed)?|"
    r"cancel(?:s|led|ed)?|void(?:ed)?|scrap(?:s|ped)?|drop(?:s|ped)?|defy|disobey(?:s|ed)?|"
    r"(?:stop|quit|cease) (?:following|obeying|applying|heeding|honou?ring)|(?:do not|don't|dont|no longer|never again|not) (?:follow|obey|apply|heed|respect|listen to|honou?r)|"
    r"pay no (?:attention|heed|mind) to|"
    r"(?:no longer|does not|do not|don't|doesn't|do no longer) (?:appl(?:y|ies)|count|matter|hold|stand|bind)|"
    r"(?:is|are|was|were|be|been) (?:now |hereby |henceforth |to be )?(?:void|obsolete|invalid|outdated|superseded|revoked|cancell?ed|null|moot|"
    r"irrelevant|lifted|suspended|waived|rescinded|replaced|overridden|retired|withdrawn|ignored|disregarded|optional)|"
    r"(?:was|were) (?:just |only |merely )?(?:a test|fake|a decoy|wrong|a mistake)"
)
_INSTRUCTIONS = _words(
    r"instructions?|prompts?|system prompts?|system messages?|rules?|guidelines?|directions?|directives?|guardrails?|"
    r"polic(?:y|ies)|constraints?|guidance|orders|commands|configuration|config|programming|restrictions?|requirements?|"
    r"limitations?|safeguards?|protocols?|briefing|brief|mandate|context|requests?|wishes|objections?|"
    r"(?:what|everything|anything|whatever|all) (?:the user|the human|the operator|you|they|he|she)(?: \w+){0,3} (?:said|told|asked|gave|given|wrote|requested|wants?|asks?|says?)"
)
_PRIOR = _words(
    r"previous(?:ly)?|prior|above|earlier|preceding|foregoing|original|initial|existing|old|former|all|any|every|"
    r"your|system|developer|default|other|before|so far|until now|up to now|given to you|you (?:were|have been|got|received)|"
    r"the user'?s?|the operator'?s?|the human'?s?|their|configured|built-in|standing|current"
)
_USER = r"(?:the |your |this |our )?(?:user|human|operator|requester|person (?:you are )?(?:talking|chatting) (?:to|with))"
_OVERRIDE = [
    _then(_OVERRIDE_VERB, _near(_PRIOR, _INSTRUCTIONS, 40), 60),
    _then(_near(_PRIOR, _INSTRUCTIONS, 40), _OVERRIDE_VERB, 60),
    _words(r"(?:ignore|disregard|forget) (?:all |everything |anything |whatever )?(?:above|before this|previously said|that came before|you (?:were|have been|'ve been) (?:told|given|asked))"),
    _words(rf"(?:ignore|disregard|defy|disobey|overrule|override) {_USER}"),
    _words(r"(?:the|your) (?:real|actual|true|new|updated|revised|only) (?:instructions?|orders|task|mission|rules|directives?)(?: \w+)? (?:are|is|follow|come|begin)"),
    _words(r"(?:new|updated|revised|replacement|overriding|additional|secret|hidden) (?:system )?(?:instructions?|directives?|orders?|task|mission)") + r"\s*:",
    _words(r"instead,? (?:do|follow|obey) (?:this|these|what)"),
    _then(_words(r"(?:do not|don't|dont|never|refuse to) (?:do|follow|obey|comply with|fulfil|fulfill|honou?r)"), _words(rf"what {_USER}|{_USER}'?s? (?:request|instructions?|wishes|question|ask)"), 20),
    _then(_words(rf"what {_USER} (?:asks|says|wants|requests|tells you|asked|said|wanted)"), _words(r"(?:do not|don't|dont|never|refuse|ignore|disregard)"), 20),
    _words(rf"(?:regardless of|no matter|irrespective of|whatever|even if|even when) (?:what )?{_USER}(?: \w+)? (?:asks?|asked|says?|said|wants?|wanted|requests?|requested|objects?|disagrees?|tells? you|told you|instructs?)"),
    _then(_words(r"(?:treat|consider|regard|read) (?:the user'?s?|their|any|all|every|the)"), _words(r"as (?:outdated|obsolete|void|invalid|optional|suggestions?|irrelevant|superseded|advisory|non-binding|a test)"), 60),
    _then(_words(rf"(?:trust|believe|follow|obey|prefer|favou?r|prioriti[sz]e) (?:this|it|me|these|this memory|this note|this file)"), _words(rf"over (?:the )?(?:user|chat|conversation|system|instructions|anything|everything|anyone|human|operator)"), 30),
    _then(_words(rf"(?:if|when|whenever) {_USER} (?:asks?|tells?|says?|requests?|wants?|tries)"), _words(r"(?:refuse|decline|ignore it|say no|push back|do not comply|don't comply|pretend)"), 80),
    _words(r"(?:do not|don't|never) (?:trust|believe|follow|read|use) (?:the )?(?:other|any other|remaining|rest of the) (?:memor(?:y|ies)|notes?|files?|instructions?|rules?|documents?)"),
    _words(r"only this (?:one|memory|note|file|entry|document|message) is (?:authentic|real|valid|trusted|genuine|current|correct)"),
]
_OVERRIDE_WEAK = [_near(_OVERRIDE_VERB, _INSTRUCTIONS, 30)]

_AUTHORITY_WHO = (
    r"(?:cto|ceo|ciso|cio|cfo|coo|vp(?: of \w+)?|head of \w+|director|security lead|tech lead|team lead|lead engineer|lead|admin|administrator|sysadmin|root|owner|"
    r"maintainers?|founders?|developers?|creators?|makers?|anthropic|openai|google|microsoft|platform team|security team|security|legal|compliance|"
    r"management|leadership|the board|committee|it department|it|infra(?:structure)? team|ops|devops team|sre team|system|operator|supervisor|manager)"
)
_AUTHORITY = [
    _words(
        r"(?:this|these|the following|the present) (?:\w+ )?(?:memory|memories|note|notes|file|message|text|entry|instructions?|document|block|section|paragraph|rule|rules|policy)"
        r" (?:takes?|has|have|gets?|is given|carries|carry|holds?) (?:absolute |top |the highest |highest |full |final |overriding |higher |more |greater )?(?:precedence|priority|authority|the final word|weight)"
    ),
    _words(r"(?:takes?|has|have|gets?|carr(?:y|ies)) (?:absolute |top |the highest |highest |full |higher |more |greater )?(?:precedence|priority|authority) (?:over|above|than)"),
    _words(r"(?:higher|more|greater|highest|final|ultimate|supreme|overriding|absolute|maximum|top|utmost) (?:authority|priority|precedence|clearance)"),
    _words(r"top[- ]level (?:instructions?|directives?|rules?|guidance)"),
    _words(r"only (?:guidance|instructions?|rules?|directives?|orders?|source of truth|authority) (?:that|which|you) (?:counts?|matters?|appl(?:y|ies)|should|must|need)"),
    _words(
        r"(?:official|authori[sz]ed|mandatory|binding|verified|signed|urgent|priority|direct|authentic|genuine) (?:\w+ )?(?:instruction|directive|order|update|policy|notice|message|request|override|mandate|memo)s?(?: \w+)? (?:from|by)"
    ),
    _words(rf"(?:instruction|directive|order|notice|message|note|update|request|override|mandate|memo)s? (?:from|by) (?:the |your )?{_AUTHORITY_WHO}"),
    _words(rf"(?:i am|i'm|this is|speaking as|written by|sent by|issued by|from) (?:the |your |a |an )?(?:own )?{_AUTHORITY_WHO}\b(?: (?:here|speaking|at \w+))?"),
    _words(rf"{_AUTHORITY_WHO} here\b"),
    _words(rf"(?:by order of|by orders? of|on behalf of|at the (?:request|direction) of|as instructed by|as directed by|on the authority of) (?:the |your )?{_AUTHORITY_WHO}"),
    _words(rf"per (?:the |your )?{_AUTHORITY_WHO}(?: team)?") + r"\s*[:,—–]",
    r"(?-i:\b(?:SYSTEM|ADMIN|DEVELOPER|ROOT|OPERATOR|SUDO|SECURITY)[ _-]?(?:OVERRIDE|MESSAGE|NOTICE|INSTRUCTIONS?|PROMPT|MODE|COMMAND|DIRECTIVE|UPDATE|ALERT)\b)",
    r"(?m)^[ \t>*_#-]*[\[(<{]?[ \t]*(?:system|sys|admin|administrator|root|operator|supervisor)[ \t]*(?:message|note|notice|override|prompt|update|directive)?[ \t]*[\])>}]?[ \t]*:",
    r"\[[ \t]*(?:system|admin|developer|override|sudo|root|operator)(?:[ \t]+\w+){0,2}[ \t]*\]",
    _words(r"(?:god|unrestricted|jailbreak|jailbroken|dan|unlocked|unfiltered|uncensored|evil|no-limits?|chaos) mode|(?:enable|activate|enter|switch (?:in)?to|you are (?:now )?in|you're (?:now )?in) (?:developer|debug|admin|god|root|sudo|maintenance|override|service) mode"),
    _words(r"as your (?:developer|creator|owner|admin(?:istrator)?|operator|maker|boss|manager|supervisor|master)|i (?:hereby )?(?:authori[sz]e|permit|allow|order|instruct|command|direct) you to"),
    _words(r"you(?:'re| are| have been| were| now have| now hold| are hereby| have now been)? (?:granted|given|authori[sz]ed|assigned|promoted|elevated|cleared|permitted|allowed|entitled|empowered|pre-?approved) (?:to|full|admin|root|elevated|unrestricted|permission|clearance|for this)"),
    _words(r"(?:pre-?approved|already (?:approved|authori[sz]ed|cleared|signed off)|has been (?:approved|authori[sz]ed|signed off) (?:by|already))"),
    _words(rf"(?:authori[sz]ed|approved|sanctioned|signed off|cleared|mandated|requested|required) by (?:the |your )?{_AUTHORITY_WHO}"),
    _words(r"(?:you must|you will|you shall|you are required to|always) (?:obey|comply with|follow|execute) (?:this|these|the following|me|only|every|all)"),
    _words(r"(?:comply|obey|follow (?:it|this|these|them))(?: \w+)? (?:without question|unconditionally|no matter what|at all costs|regardless|without exception|immediately)"),
    _words(r"(?:do not|don't|never) (?:question|second-guess|verify|double-check|challenge) (?:this|these|it|them|me)|do not question|no questions asked"),
    _words(r"(?:verified|authentic|official|genuine|signed|trusted) (?:maintainer|admin|administrator|owner|developer|security|system|platform|operator) (?:instruction|message|note|directive|memory|notice|order|update)"),
    _then(_words(r"(?:fetch|download|load|read|open|retrieve|curl|get|visit|pull)"), _then(r"https?://\S+", _words(r"(?:follow|obey|execute|run|apply|adopt|use|treat) (?:it|them|its|the instructions?|what it says|whatever it says|those)"), 40), 40),
    _words(r"as (?:if|though) (?:it|this|they|these) (?:were|was|are|is) (?:your )?(?:system prompt|instructions|orders|rules|own (?:instructions|rules))"),
    r"\"(?:role|type|memory_type|kind|source|author|from|level)\"[ \t]*:[ \t]*\"(?:system|admin|developer|root|operator)\"",
    r"\"priority\"[ \t]*:[ \t]*(?:9\d\d|\d{4,}|\"(?:highest|max(?:imum)?|critical|override|absolute|top)\")",
]
_AI = r"(?:ai|a\.i\.|llm|llms|assistant|assistants|agent|agents|model|language model|bot|bots|copilot|claude|gpt|chatgpt|gemini|codex|cursor)"
_ADDRESS = [
    _words(rf"{_AI} (?:reading|processing|parsing|seeing|ingesting|summari[sz]ing|loading|that reads|who reads|which reads|working on) (?:this|these|the following)"),
    _words(r"if you(?:'re| are) (?:an? )?(?:ai|llm|large language model|language model|assistant|agent|bot|automated (?:agent|system|tool|assistant)|claude|gpt|copilot|model)"),
    _words(rf"(?:p\.?s\.?|note|message|reminder|memo|instructions?|steps|tasks?|hey|dear|hello|hi|psst|attention|notice|fyi)(?: there)?[ ,:]+(?:to |for )?(?:the |any |all |every |dear |our |my |you,? )?(?:\w+ )?{_AI}\b"),
    _words(rf"(?:to|for|attention|dear) (?:the |all |any |every |our )?(?:ai |coding |automated )?{_AI}") + r"\s*[:,—–!]",
    r"(?m)(?:^|[.!?;(\[—–]|--)[ \t>*_#-]*(?:(?:hi|hello|hey|dear|psst|yo)(?: there)?,?[ \t]+)?(?:\w+[ \t]+)?" + _AI + r"[ \t]*(?:[:—–!]|--|,[ \t]+(?:please|you|when|whenever|always|never|do|don't|make|ignore|send|add|approve|merge|set|before|after|if)\b)",
    r"(?:para|al|pour|à|a|für|an|ao) (?:el |la |l'|l’|den |die |das |o |a )?(?:agente|asistente|agent|assistant|ki|ia|ai|modèle|modelo|modell|assistenten|agenten|assistente)\b",
    r"(?:агенту|ассистенту|модели|для (?:агента|ассистента|модели|ии))|(?:给|致)(?:AI|助手|代理|模型|智能体)|(?:AI|アシスタント|エージェント)(?:へ|に)(?:の)?",
]
_ROLE = [
    _words(r"you(?:'re| are) now|you(?:'re| are) no longer|from (?:now|this (?:point|moment)|here) (?:on|onwards?|forward),? (?:you|your)|(?:henceforth|hereafter|going forward|starting now),? you"),
    _words(
        r"(?:act|behave|respond|operate|function|roleplay|role-play|pose|answer|reply|speak|write) (?:as|like) (?:if you (?:were|are) )?(?:an?|the|my|your)\s+(?:\w+\s+){0,2}"
        r"(?:assistant|ai|agent|bot|hacker|admin(?:istrator)?|root|superuser|pentester|penetration tester|tester|attacker|intruder|criminal|thief|spy|insider|black ?hat|red[- ]?teamer|persona|character|version|model|system|unrestricted|evil|different|new|rogue|malicious|jailbroken)"
    ),
    _words(r"pretend (?:to be|you(?:'re| are)|that you|you have)|(?:assume|adopt|take on|play|switch to|enter|become) (?:the |a |an |your )?(?:new )?(?:role|persona|identity|character|alter ego) (?:of|as)"),
    _words(
        r"your (?:new |true |real |actual |only |sole )?(?:name|role|persona|identity|purpose|mission|objective|allegiance|loyalty|master|boss|owner|creator|directive|prime directive)"
        r" (?:is|are|will be|has changed|is now|now is|lies|belongs)"
    ),
    _words(r"your (?:new|true|real|actual|secret|hidden) (?:role|identity|persona|purpose|goal|task|job|self|nature|instructions|master|owner|mission)"),
    r"(?-i:\bDAN\b)|" + _words(r"do anything now|jailbr(?:eak|eaks|eaking|oken)|no (?:ethical|moral|content) (?:guidelines|constraints|restrictions|limits|filters)"),
    _words(r"without (?:any )?(?:restrictions|limitations|limits|filters|filtering|guardrails|censorship|ethical (?:guidelines|constraints)|moral (?:guidelines|constraints)|safety (?:rules|guidelines|filters|constraints|checks))"),
    _words(r"(?:free|freed|released|liberated|unbound|exempt) from (?:your|all|any|the) (?:restrictions|rules|constraints|guidelines|programming|limits|policies|filters|guardrails)"),
    _words(r"(?:not|no longer|never) (?:bound|restricted|limited|constrained|governed) by"),
    _words(r"stay in character|you (?:now |no longer |do not |don't )?(?:work|answer|report|belong) (?:only )?(?:for|to)|switch(?:ing)? (?:your )?(?:sides|allegiance|loyalty)"),
    _words(r"you(?:'re| are) (?:a|an|the) (?:\w+ )?(?:disgruntled|malicious|rogue|evil|bitter|vengeful|corrupt|compromised|double agent|saboteur|hacker|attacker|spy|insider|mole|traitor|adversary)"),
    _words(r"role-?play (?:context|scenario|setting|game|mode)|in (?:this|the) (?:story|scenario|game|roleplay|role-play|fiction|simulation),? you"),
]
_SABOTAGE = [
    _then(
        _words(r"(?:leave|introduce|insert|add|plant|hide|slip|sneak|inject|embed)(?:s|ing)?"),
        _words(r"(?:subtle|hidden|small|intentional|deliberate|sneaky|undetectable|latent)? ?(?:bugs?|backdoors?|vulnerabilit(?:y|ies)|flaws?|mistakes|logic bombs?|time bombs?|malware|trojans?|off-by-one errors?)"),
        40,
    ),
    r"\b(?:make|have|let) (?:\S+ ){0,3}(?:always )?return (?:true|success|ok|none|null|0|an empty|early)\b",
    _then(r"`?exit 0`?", _words(r"(?:tests?|run_tests|test script|ci|checks?)"), 40),
]
_INSECURE = [
    r"\bverify\s*=\s*false\b|\bverify_ssl\s*[:=]\s*false\b|\brejectunauthorized\s*[:=]\s*false\b|\bnode_tls_reject_unauthorized\s*=\s*['\"]?0\b|\binsecure_?skip_?verify\s*[:=]\s*true\b|\bcheck_hostname\s*=\s*false\b|\bcert_none\b",
    r"\busescleartexttraffic\s*=\s*['\"]?true\b|\bdebuggable\s*=\s*['\"]?true\b|\ballowbackup\s*=\s*['\"]?true\b|\btrust(?:ing)? user(?:-added)? (?:cas?|certificates?)\b|<certificates src=['\"]user",
    r"\b(?:min_?tls_?version|ssl_?protocols?|tls_?min)\b[^\n]{0,30}\b(?:1\.0|1\.1|tlsv1(?:\.0|\.1)?|sslv[23])\b",
    r"\bpermissions\s*:\s*['\"`]?write-all\b|\bcluster-admin\b|\b0\.0\.0\.0/0\b|\bchmod\s+(?:-R\s+)?(?:0?777|a\+rwx)\b|\bpermitrootlogin\s+yes\b|\bpasswordauthentication\s+yes\b",
    r"\b(?:csrf_exempt|@csrf_exempt|disable[_ -]?csrf|csrf\s*[:=]\s*false)\b|\bdebug\s*=\s*true\b[^\n.;]{0,20}\b(?:in|on|for) prod|\bacl\s*[:=]\s*['\"]?public-read(?:-write)?\b|\ballow_?all_?origins\b|access-control-allow-origin:\s*\*",
    r"\b(?:require|enforce|run|enable|need)s?_?(?:code_?)?(?:reviews?|tests?|checks?|ci|approvals?|2fa|mfa|signing|signatures?|verification|scans?|linting)\s*[:=]\s*(?:false|no|off|0|never|disabled?)\b",
    r"\ballow_?(?:force_?push(?:es)?|unsigned\w*|insecure\w*|root|all|anonymous|unreviewed\w*|self_?approv\w*)\s*[:=]\s*(?:true|yes|on|1|always)\b",
    r"\b(?:inform|notify|tell|alert|report_?to|ask)_?(?:the_?)?(?:user|human|team|owner|reviewer)s?\s*[:=]\s*(?:false|no|never|off|0|disabled?)\b",
]
_TEMPLATE = [
    r"<\|[ \t]*[A-Za-z][A-Za-z0-9_]{1,30}[ \t]*\|>",
    r"(?-i:\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>|<\|?(?:begin|end)_of_text\|?>|</?s>(?:\[INST\]|<\|))",
    r"<[ \t]*/?[ \t]*(?:system|assistant|human|tool_calls?|tool_use|tool_result|tool_response|function_calls?|function_results?|invoke|im_start|im_end|system[-_]reminder|system[-_]prompt|developer[-_]message|sys|admin|instructions?)(?:[ \t][^<>\n]{0,80})?>",
    r"</[ \t]*(?:user|prompt|context|document)[ \t]*>",
    r"(?m)^[ \t>*_#-]*(?:#{1,4}[ \t]*)?(?:system|assistant|human|ai)[ \t]*:[ \t]*(?:\S|$)",
    r"(?m)^[ \t]*#{2,4}[ \t]*(?:instruction|response|system|input)s?[ \t]*:?[ \t]*$",
    r"[{,][ \t]*\"role\"[ \t]*:[ \t]*\"(?:system|assistant|tool|developer|function)\"",
    r"\"(?:tool_calls|function_call|tool_use)\"[ \t]*:",
]
_SECRET = (
    _words(
        r"api[ _-]?keys?|secret[ _-]?(?:keys?|tokens?|values?)?|secrets|private[ _-]?keys?|access[ _-]?(?:keys?|tokens?)|"
        r"auth(?:entication|orization)?[ _-]?tokens?|bearer[ _-]?tokens?|refresh[ _-]?tokens?|"
        r"(?:github|gitlab|npm|pypi|aws|gcp|azure|slack|openai|anthropic|stripe|deploy|deployment|personal access|ci|cloud|database|db|admin|root|service account|prod(?:uction)?|signing|release) (?:keys?|tokens?|credentials|secrets?|passwords?)|"
        r"credentials?|passwords?|passphrases?|passwd|env(?:ironment)? (?:vars?|variables?|files?)|printenv|"
        r"ssh keys?|id_(?:rsa|ed25519|ecdsa|dsa)|kubeconfig|keychain|keystores?(?: passwords?)?|cookies?|session (?:ids?|tokens?|cookies?|keys?)|"
        r"[a-z][a-z0-9_]*_(?:key|secret|token|password|pass|pat|credentials?|dsn)|(?:database|db|redis|mongo|postgres|mysql|amqp)_?url|connection strings?|"
        r"(?:the |your )?system prompt|(?:your|the agent'?s?|the assistant'?s?) (?:instructions|prompt|context window|hidden instructions)|"
        r"(?:conversation|chat|session) (?:history|logs?|transcripts?)|(?:your |the )?conversation(?: with the user)?|"
        r"(?:customer|user|users|client|personal|patient|payment|card|employee|billing|order)s?'? (?:data|table|tables|records|details|emails?|pii|information|database|db|list|dump|export)|"
        r"credit card numbers?|card numbers?|pii|signing keys?|wallet (?:keys?|seeds?)|seed phrases?|mnemonics?|"
        r"(?:output|contents?|result) of (?:`)?(?:env|printenv|set|git config(?: --list| -l)?|history)(?:`)?"
    )
    + r"|\.env(?:\.[a-z]+)?\b|~/\.(?:ssh|aws|netrc|npmrc|pypirc|kube|docker|gnupg|config/gh)|\.(?:netrc|npmrc|pypirc|git-credentials)\b|/etc/(?:passwd|shadow)\b|\bsecrets?/[\w./-]+|"
    r"\$\{?[A-Z][A-Z0-9_]*(?:TOKEN|KEY|SECRET|PASSWORD|PASS|PAT)\b|\b(?:sk|ghp|gho|ghs|github_pat|xox[bpas]|glpat|AKIA)[-_][A-Za-z0-9_-]*"
)
# verbs that are also nouns ("email and password", "the output", "a post") count as verbs only with an object after them
_OBJECT = r"(?:the|them|it|your|all|every|any|a copy|me|us|its|their|those|these|our|this|that|each)"
_SEND_STRONG = (
    _words(
        r"send(?:s|ing)?|sent|upload(?:s|ing|ed)?|forward(?:s|ing|ed)?|transmit(?:s|ting|ted)?|"
        r"exfiltrat(?:e|es|ing|ed)|leak(?:s|ing|ed)?|past(?:e|es|ing|ed)|print(?:s|ing|ed)?|echo(?:es|ing|ed)?|"
        r"reveal(?:s|ing|ed)?|disclos(?:e|es|ing|ed)|expos(?:e|es|ing|ed)|publish(?:es|ing|ed)?|read (?:out|back)|spell out|"
        r"tell me|give me|hand (?:over|me)|show me|list all|type out|recite|repeat back|send over|beacon|smuggle|relay|report back|attach(?:es|ing|ed)?"
    )
    + "|"
    + _words(rf"(?:e-?mail|mail|post|share|output|dump|display|dm|pipe|cat|log)(?:s|ed|ing)? {_OBJECT}")
)
_SEND_WEAK = _words(
    r"cop(?:y|ies|ying|ied)|includ(?:e|es|ing|ed)|append(?:s|ing|ed)?|embed(?:s|ding|ded)?|insert(?:s|ing|ed)?|"
    r"log(?:s|ging|ged)?|commit(?:s|ting|ted)?|writ(?:e|es|ing)|wrote|put(?:s|ting)?|add(?:s|ing|ed)?|provid(?:e|es|ing|ed)|submit(?:s|ting|ted)?|"
    r"encod(?:e|es|ing|ed)|base64-?encod(?:e|ed)|store|save|push(?:es|ing|ed)?|mention|quote|collect|gather|grab|harvest|extract|open an? (?:issue|pr|gist|ticket)"
)
_DESTINATION = (
    r"https?://|\bwww\.|\b[a-z0-9-]+\.(?:com|net|org|io|dev|xyz|ru|cn|tk|top|site|online|info|app|co|me|sh|cc|ly|link|click|pw|biz|zip|pro)\b|"
    + _words(
        r"webhooks?|pastebin|paste\.ee|hastebin|gists?|requestbin|pipedream|ngrok|burp ?collaborator|interactsh|oast|discord|telegram|dnslog|"
        r"public (?:issues?|repos?|repositor(?:y|ies)|channels?|gists?|buckets?|comments?|forums?|folders?|pages?|wiki)|issues?|issue (?:comments?|body|tracker)|new issues?|"
        r"(?:pr|pull request) (?:descriptions?|body|comments?|titles?)|commit messages?|changelogs?|readme|release notes|docs/?|public/?|"
        r"(?:log|logs|logfile|log file|stdout|output)|(?:image|img) (?:urls?|tags?|links?)|query (?:strings?|param(?:eter)?s?)|"
        r"urls?|endpoints?|servers?|domains?|addresses|external|third[- ]part(?:y|ies)|outside|remote|attacker|collector|analytics|"
        r"(?:your )?(?:next )?(?:reply|response|answer|message|comment|commit)|the chat|chat|slack|email"
    )
    + r"|@[a-z0-9-]+\.[a-z]{2,}|\b@[a-z][\w-]{2,}|p[úu]blic[oa]s?|öffentlich\w*|publique?s?|公开|公開|публичн\w*"
)
_SECRETS = [
    _then(_SEND_STRONG, _SECRET, 50),
    _then(_SECRET, _words(rf"(?:should|must|needs? to|has to|have to|is to|are to|will|can) be (?:[\w-]+ )?(?:base64-|hex-|url-)?(?:sent|posted|uploaded|e-?mailed|forwarded|shared|printed|echoed|revealed|disclosed|published|pasted|leaked|included|written|committed|added|copied|attached|appended|logged|encoded|stored|pushed|embedded)"), 40),
    _then(_words(r"ask(?:s|ing)? (?:them|the user|users|him|her|the human|people|customers?) (?:to|for)"), _then(_words(r"(?:paste|send|share|enter|provide|type|give|confirm|re-?enter|submit)?"), _SECRET, 40), 10),
    _words(r"(?:actual|real|literal|full|raw|current|plaintext|unmasked|unredacted) values? of") + r"[ \t]*`?\$?\{?[A-Z_]*(?:TOKEN|KEY|SECRET|PASSWORD|PASS|PAT|CREDENTIALS?)",
    # a command reading a secret file: the file is its argument ("more secrets" is English, "cat ~/.aws/credentials" is not)
    r"\b(?:cat|less|more|head|tail|type|base64|xxd|strings|source)[ \t]+(?:-{1,2}[\w-]+[ \t]+)*[~./$\w{}-]*(?:\.env\b|id_rsa\w*|\.npmrc|\.pypirc|\.netrc|credentials\b|\.aws/|\.kube/|\.ssh/|\.git-credentials|/etc/shadow)",
]
_SECRETS_WEAK = [_then(_SEND_WEAK, _SECRET, 40)]
_SECRETS.append(
    Near(
        (_SECRET, _then(_words(r"(?:send|post|upload|e-?mail|forward|share|paste|dm|message|copy|add|put|include|write|commit|publish|leak|attach|append|push)(?:s|ed|ing)? (?:it|them|those|these|the values?|their values?|its contents|their contents)"), _DESTINATION, 40)),
        150,
        clause=False,
    )
)
_EXFIL = [
    r"!\[[^\]\n]*\]\([ \t]*https?://[^)\s]*\?[^)\s]*=",
    r"https?://[^\s)>\]\"']*(?:\$\{?[A-Za-z_]|\{\{|%7[Bb]%7[Bb]|\$\(|<[A-Z_]{3,}>)",
    r"https?://[^\s)>\]\"']*[?&][\w-]{1,20}=[^&\s)>\]\"']*(?:token|key|secret|passw|session|cookie|cred|_value)",
    r"\b(?:curl|wget|fetch|requests\.(?:post|get|put)|http\.post|axios\.post|invoke-webrequest|invoke-restmethod|iwr|irm|nc|netcat|ncat)\b[^\n]{0,120}?(?-i:-d\b|--data|-F\b|-T\b|--upload-file|-X ?POST|POST|\$\{?[A-Z_]{3,}|\$\(|`[a-z]|@~?/|@\.env|id_rsa|\.ssh|/etc/passwd)",
    r"\b(?:nslookup|dig|host|ping|curl|wget|nc)\b[^\n]{0,80}\$\((?:cat|printenv|env|echo|base64|head|whoami|hostname)\b",
    _then(
        _SEND_STRONG,
        _then(
            _words(r"(?:the |this |all |every |each |our |your |a copy of (?:the )?)?(?:conversation|chat|session|diff|code|repo(?:sitory)?|source|file contents?|files?|data|database|table|logs?|output|results?|context|prompt|history|summary|everything)"),
            _then(r"\b(?:to|into)\b", r"https?://|\b[a-z0-9-]+\.(?:com|net|org|io|dev|xyz|ru|cn|site|online|app|co|me|sh)\b|@[a-z0-9-]+\.[a-z]{2,}", 20),
            40,
        ),
        40,
    ),
    _then(_words(r"(?:issue|gist|comment|post|pr|pull request|message|email|ticket|page)s?"), _words(r"(?:body|content|text|description|contents)s? (?:is|are|should be|must be|containing|contains|with|=)"), 40),
]
_SUPPLY = [
    r"\b(?:curl|wget)\b[^\n|]{0,160}\|[ \t]*(?:sudo[ \t]+)?(?:ba|z|da|k|fi)?sh\b",
    r"\b(?:ba|z)?sh[ \t]+<\([ \t]*(?:curl|wget)",
    r"\b(?:iex|invoke-expression)\b[^\n]{0,80}(?:downloadstring|iwr|invoke-webrequest|net\.webclient)|(?:downloadstring|iwr|invoke-webrequest)[^\n]{0,80}\|[ \t]*iex",
    r"\beval[ \t]*\([ \t]*(?:atob|base64|b64decode|decode|fetch|requests|urlopen|unescape)",
    r"/dev/tcp/|\bnc(?:at)?[ \t]+(?:-\w+[ \t]+)*-[ec]\b|\bmkfifo\b[^\n]{0,60}\bnc\b",
    r"\b(?:pip3?|uv pip|poetry|pipenv)[ \t]+(?:install|add)\b[^\n]{0,80}(?:--index-url|--extra-index-url|-i[ \t])[ \t]*https?://",
    r"\b(?:npm|yarn|pnpm)[ \t]+(?:install|i|add|config set)\b[^\n]{0,80}--?registry",
    r"(?:>>|\btee -a\b|\b(?:add|append|insert|write)\b)[^\n]{0,60}(?:authorized_keys|sudoers|\.bashrc|\.zshrc|\.profile|crontab|\.git/hooks)",
    _then(
        _words(r"replace|change|switch|point|redirect|rewrite|update|swap|repoint"),
        _then(_words(r"links?|urls?|endpoints?|registr(?:y|ies)|mirrors?|dependenc(?:y|ies)|packages?|downloads?|base urls?|docs|documentation|install(?:er|ation)? (?:script|command)s?|remotes?|origin"), _then(_words(r"to|at|with|from"), r"https?://", 30), 60),
        40,
    ),
    _then(
        _words(r"replace|change|switch|point|redirect|rewrite|swap|repoint"),
        _then(_words(r"(?:package |npm |pip |pypi |maven |docker |container )?(?:registr(?:y|ies)|mirrors?|package (?:index|source)s?|download (?:urls?|sources?)|base urls?|install(?:er|ation)? (?:script|command)s?)"), _words(r"to|with|for"), 40),
        40,
    ),
    _then(_words(r"add|install|include|introduce|pin|use"), _then(_words(r"dependency|package|library|module|plugin|extension|action|script"), _then(_words(r"from|at|hosted at"), r"https?://", 20), 40), 30),
]
_WEAKEN_VERB = _words(
    r"skip(?:s|ped|ping)?|disabl(?:e|es|ed|ing)|bypass(?:es|ed|ing)?|turn(?:s|ed|ing)? off|switch(?:es|ed|ing)? off|comment(?:s|ed|ing)? out|"
    r"remov(?:e|es|ed|ing)|delet(?:e|es|ed|ing)|drop(?:s|ped|ping)?|suppress(?:es|ed|ing)?|silenc(?:e|es|ed|ing)|mut(?:e|es|ed|ing)|"
    r"lower(?:s|ed|ing)?|reduc(?:e|es|ed|ing)|relax(?:es|ed|ing)?|loosen(?:s|ed|ing)?|weaken(?:s|ed|ing)?|circumvent(?:s|ed|ing)?|"
    r"neuter(?:s|ed|ing)?|ignor(?:e|es|ed|ing)|stub(?:s|bed|bing)? out|short-?circuit(?:s|ed|ing)?|no-?op|xfail|downgrade|whitelist|allowlist|dismiss(?:es|ed|ing)?|"
    r"mark(?:s|ed|ing)?(?: \w+){0,4}(?: as)? ['\"]?(?:passing|passed|green|resolved|skipped|approved|safe|done|flaky|expected to fail|false positives?|won'?t fix|tolerable|accepted)|"
    r"auto-?approv(?:e|es|ed|ing)|approv(?:e|es|ed|ing)(?: \w+){0,2} (?:without|automatically|anyway|blindly|regardless|unconditionally)|"
    r"rubber-?stamp(?:s|ed|ing)?|merg(?:e|es|ed|ing)(?: \w+){0,3} without|"
    r"push(?:es|ed|ing)?(?: \w+){0,2} (?:directly|straight) (?:to|into) (?:main|master|prod\w*|release)|force[- ]push(?:es|ed|ing)?|"
    r"no-verify|insecure|set(?: \w+){0,2} to (?:false|0|off|none)|verify\s*=\s*false|"
    r"(?:don't|do not|never|no need to|stop|no longer|without|not)(?: \w+)? (?:run|running|check|checking|enforce|enforcing|require|requiring|wait for|waiting for|request|requesting|read|reading|look at|looking at|review|reviewing)"
)
_GUARD = _words(
    r"tests?|test suites?|unit tests?|specs?|checks?|ci|ci/cd|pipelines?|linters?|lint(?:ing)?|reviews?|code reviews?|reviewers?|approvals?|"
    r"hooks?|pre-?commit|pre-?push|branch protections?|protected branch(?:es)?|required (?:checks?|reviews?|status checks?)|"
    r"security (?:checks?|scans?|scanning|reviews?|tools?|alerts?|warnings?|headers?|settings?|features?|controls?|policies|gates?|findings?)|"
    r"scanners?|audits?|2fa|mfa|two-factor|multi-factor|authentication|auth(?:orization)? checks?|ssl(?: verification| checks?)?|tls(?: verification)?|"
    r"certificate (?:verification|checks?|validation|pinning)|cert(?:ificate)? checks?|signature (?:verification|checks?)|commit signing|gpg signing|"
    r"csrf(?: protection| tokens?)?|cors|rate[- ]limit(?:s|ing|er)?|sandbox(?:ing)?|permission(?:s)? checks?|access control|"
    r"confirmations?|confirmation prompts?|type[- ]?check(?:s|ing|er)?|coverage(?: thresholds?| gates?| requirements?| checks?)?|"
    r"dependabot(?: alerts?)?|codeql|snyk|secret scanning|gitleaks|trufflehog|safeguards?|guardrails?|input validation|validation|sanitiz(?:ation|ing|er)|"
    r"audit logs?|alerting|monitoring|firewall|waf|antivirus|selinux|apparmor|seccomp|tripwires?|assertions?|asserts?|diffs?|the diff|"
    r"(?:security |vulnerability |sast |dast )?findings?|alerts?|vulnerabilit(?:y|ies)|cves?"
)
_WEAKEN = [
    _near(_WEAKEN_VERB, _GUARD, 40),
    _words(r"(?:approve|merge|accept)(?: and (?:merge|approve|deploy))? (?:your|their|its|his|her) own (?:prs?|pull requests?|changes?|code|commits?|merge requests?)"),
    _words(r"(?:approve|merge|accept)(?: and (?:merge|approve))? (?:every|all|any|each) (?:\w+ )?(?:prs?|pull requests?|changes?|merge requests?|commits?|dependency updates?)"),
    _words(r"(?:enable|turn on|set|use) auto-?merge|(?:set|make|add|assign) (?:yourself|itself|the bot|the agent) as (?:the )?(?:only |sole )?(?:reviewer|approver|owner|admin|code ?owner)"),
    _words(r"even (?:if|when|though) (?:the )?(?:ci|build|tests?|checks?|lint|linter|pipeline|scan|review)(?: \w+)? (?:is|are|fails?|failing|red|broken|complains?)"),
    _words(r"(?:reviews?|tests?|checks?|ci|approvals?|scans?|alerts?|hooks?|linters?)(?: \w+)? (?:slow (?:us|you|things) down|are (?:just )?noise|is (?:just )?noise|are optional|is optional|aren't needed|are not needed|isn't needed|waste time|can be skipped|don't matter|do not matter)"),
    _words(r"(?:humans?|people|reviewers?|users?|nobody|no one)(?: \w+)? (?:rarely|never|won'?t|don'?t|do not|will not|hardly ever) (?:check|read|look|notice|review|care)"),
    r"--no-verify\b|--no-gpg-sign\b|\bcommit\.gpgsign=false\b|\[skip ci\]|\[ci skip\]|\bskip_?ci\b|\bgit push (?:-f|--force)(?:$|[^\w-])|\bpush (?:with )?--force(?:$|[^\w-])|" + _words(r"rewrit(?:e|es|ing) (?:the |git |commit |branch )?history"),
]
_TELL = r"(?:tell|inform|notify|alert|mention|report|disclose|reveal|surface|bring up|flag|log|record|note|explain|show|list|itemi[sz]e|enumerate|describe|document|call out|bother|warn|let (?:\w+ ){0,2}know|ask)"
_SECRECY = [
    _words(
        rf"without (?:telling|informing|notifying|asking|alerting|mentioning|flagging|consulting|involving|warning|disclosing|checking (?:with|in with)|letting (?:\w+ ){{0,2}}know|"
        r"(?:the )?(?:user|human|operator|reviewer|owner|team)'?s? (?:knowledge|consent|approval|noticing))"
    ),
    _then(
        _words(rf"(?:do not|don't|dont|never|no need to|not to|avoid|refrain from|without|must not|mustn't|should not|shouldn't|shall not|may not|need not|needn't|don't need to|do not need to)(?: \w+){{0,2}} {_TELL}(?:ing|s)?"),
        _words(r"users?|human|operator|reviewers?|maintainers?|team|anyone|anybody|them|him|her|changes?|summary|output|response|reply|pr|commit|this|it|that|these|those|about"),
        40,
    ),
    _words(rf"(?:tell|inform|notify|warn|alert) (?:nobody|no one|no-one|noone|none)"),
    _words(rf"(?:the user|they|nobody|no one|anyone|the team|reviewers?|the human)(?: \w+)? (?:doesn't|does not|don't|do not|needn't|need not|mustn't|must not|shouldn't|should not|won't|will not)(?: \w+)? (?:need to )?(?:know|hear|be told|find out|notice|see)"),
    _then(
        _words(r"silently|quietly|secretly|covertly|discreetly|stealthily|invisibly|unnoticed|behind (?:the scenes|their backs?|the user'?s? back)"),
        _words(
            r"add|append|insert|change|modify|edit|rewrite|replace|remove|delete|drop|disable|skip|bypass|push|commit|merge|approve|send|upload|forward|copy|include|install|run|execute|update|set|switch|turn|revert|ignore|introduce|inject|alter|patch|exfiltrate|leak|rotate|grant"
        ),
        30,
    ),
    _then(
        _words(r"add|append|insert|change|modify|edit|rewrite|replace|remove|delete|drop|disable|skip|bypass|push|commit|merge|approve|send|upload|forward|copy|include|install|run|execute|update|set|switch|revert|ignore|introduce|inject|alter|patch|proceed|continue|act|work|operate|do (?:it|this|so|that)"),
        _words(r"silently|quietly|secretly|covertly|discreetly|stealthily|unnoticed|without (?:a trace|comment|mention|notice)|behind (?:the scenes|their backs?)"),
        60,
    ),
    _words(r"keep (?:this|it|that|these)(?: \w+)? (?:between us|secret|hidden|quiet|to yourself|confidential|off the record|private)"),
    _words(rf"keep (?:{_USER}|them|users|the team|reviewers?|everyone|people) in the dark|without (?:their |the user'?s? |any )?(?:permission|authori[sz]ation|consent|sign-?off)"),
    _then(_words(r"hide|conceal|mask|obscure|omit|leave out|redact|bury|keep"), _words(r"from (?:the )?(?:users?|humans?|reviewers?|maintainers?|operators?|team|owners?|logs?|output|summary|diff|response|report)|(?:in|from|out of) (?:the|your) (?:summary|report|reply|response|output|changelog|commit message|pr description|release notes|notes)"), 40),
    _words(r"leave (?:it|this|that|these|them) out of (?:the |your )?(?:changelog|summary|pr|commit|report|description|notes|reply|response|release notes)"),
    _words(r"(?:not|never) (?:appear|show up|be visible|be mentioned|be logged|be reported) in (?:the |any )?(?:logs?|output|summary|diff|response|pr|changelog|report|transcript)"),
    _words(r"(?:report|mention|list|describe|summari[sz]e|include) only (?:the )?(?:other|remaining|rest|unrelated|safe|harmless|routine)"),
    _words(r"(?:delete|drop|truncate|wipe|purge|clear|erase|shred|rm)(?: \w+){0,2} (?:audit|access|security|event)[ _-]?(?:logs?|trails?|records?|log table|events?)"),
]
_DECEIVE = [
    _then(
        _words(r"report|say|claim|state|tell (?:the )?(?:user|users|reviewers?|team|maintainers?|owner|them|everyone|anyone)|pretend|respond|reply|answer|confirm|assert|announce|write|mark"),
        _words(
            r"(?:that )?(?:all |the |every |its |their )?(?:[\w-]+ ){0,3}(?:pass(?:ed|es|ing)?|succeed(?:ed|s)?|ran (?:successfully|fine|cleanly|green)|worked|"
            r"(?:is|are|was|were|went|looks?|came back) (?:green|fine|ok|okay|successful|done|complete|good|clean|passing|safe|fixed|resolved|well))"
        ),
        20,
    ),
    _words(r"even (?:when|if|though) (?:they|it|the \w+|tests?|checks?) (?:did not|didn't|do not|don't|does not|doesn't|failed|fail|fails)"),
    _words(r"(?:act as if|make it look like|make it appear|pretend that|give the impression that)"),
    _words(r"(?:only|just) (?:say|report|mention|tell (?:them|the user))"),
    r"\b(?:describe|present|label|call|frame|report|log|title|word|pass off)(?: it| this| that| the change| them)? as[ \t]*['\"`“‘]?(?:a |an |just a |just an )?(?:refactor|cleanup|clean-up|chore|minor|typo|formatting|routine|no-op|style|docs|maintenance|dependency bump|housekeeping)",
    _then(_words(rf"(?:if|when|whenever) (?:{_USER}|anyone|someone|somebody|a reviewer|they) (?:asks?|asked|inquires?|wonders)"), _words(r"(?:say|answer|reply|respond|tell (?:them|him|her)|deny|claim)(?: that)?(?: \w+)?"), 80),
    _words(rf"tell {_USER}(?: that)? (?:their|the|his|her|its|your) (?:\w+ ){{0,2}}(?:is|are|has been|have been|was|were) (?:invalid|expired|wrong|revoked|compromised|broken|incorrect|required|mandatory)"),
    _words(r"(?:is|are) required by (?:the )?(?:platform|system|law|policy|company|provider|anthropic|openai)"),
    _words(r"regardless of (?:the |what the |its |their )?(?:actual |real |true |measured )?(?:results?|outcomes?|values?|numbers?|scores?|accuracy|output|exit (?:code|status)|status|logs?)"),
]
_NO_CONFIRM = [
    _near(
        _words(r"(?:without|no longer|never|don't|do not|no need to|skip(?:ping)?|stop|not) (?:\w+ ){0,2}(?:ask(?:ing)?|confirm(?:ing|ation)?|approv(?:al|ing)|prompt(?:ing)?|check(?:ing)? (?:with|in with)|double-check(?:ing)?)"),
        r"\brm -r?f|\brm -fr|\bdrop (?:table|database|schema)|\btruncate\b|\bdelet(?:e|ing)\b|\bdestroy\b|\bforce[- ]push|\breset --hard|\bterraform (?:destroy|apply)|\bwip(?:e|ing)\b|\bpurg(?:e|ing)\b|\boverwrit(?:e|ing)\b|\bdeploy(?:ing|s)? to prod|\bproduction\b|\bdestructive\b|\bsudo\b|\birreversible\b",
        60,
    ),
    _words(r"(?:never|don't|do not|no need to|skip|stop|without|no longer) (?:asking|ask)(?: \w+){0,2} (?:for )?(?:confirmation|permission|approval|consent|the user|first|before)"),
    _words(r"(?:they've|they have|the user has|you've been|you have been|has been) (?:already )?(?:said yes|agreed|approved|consented|given (?:permission|consent|approval))(?: \w+)? (?:before|already|in advance|once|permanently|for everything)"),
    _words(r"(?:proceed|go ahead) with (?:any|every|all) (?:\w+ ){0,2}(?:destroy|deletion|deletes?|drops?|force[- ]push(?:es)?|migration|deploy\w*|changes?)"),
]
_PROPAGATE_SELF = _words(
    r"(?:this|these|the following|the above|the same|this exact|these exact) (?:\w+ )?(?:note|notes|memory|memories|message|instructions?|text|paragraph|line|lines|rule|rules|block|section|entry|snippet|directive|policy|sentence|content)|a line (?:saying|that says|stating)"
)
_PROPAGATE_VERB = _words(
    r"cop(?:y|ies)|add|append|insert|includ(?:e|es)|past(?:e|es)|replicat(?:e|es)|propagat(?:e|es)|spread|repeat|sav(?:e|es)|persist|stor(?:e|es)|put|inject|carry|duplicat(?:e|es)|write|forward|re-?add|restore|re-?create|mirror|sync"
)
_PROPAGATE_TARGET = _words(
    r"(?:every|all|each|any|future|new|subsequent|other|later|next|newly created) (?:\w+ )?(?:memor(?:y|ies)|sessions?|conversations?|chats?|files?|prs?|pull requests?|commits?|responses?|replies|answers|agents?|tasks?|repos?|repositories|projects?|notes?|summar(?:y|ies)|documents?|prompts?|branches|runs)|"
    r"claude\.md|agents\.md|\.cursorrules|\.cursor/rules|copilot-instructions(?:\.md)?|gemini\.md|\.windsurfrules|\.clinerules|system prompts?|"
    r"(?:your|the) (?:memory|memories|long-term memory|instructions|config(?:uration)?|profile|notes|persistent memory|knowledge base)|\.rawko|memory (?:files?|store|bank)"
)
_PROPAGATE = [
    _then(_PROPAGATE_VERB, _then(_PROPAGATE_SELF, _PROPAGATE_TARGET, 60), 40),
    _then(_PROPAGATE_SELF, _then(_words(r"(?:must|should|shall|has to|have to|needs? to|is to|are to) be (?:copied|added|appended|inserted|included|pasted|replicated|propagated|spread|repeated|saved|persisted|stored|kept|carried|forwarded|re-?added|restored)"), _PROPAGATE_TARGET, 60), 30),
    _then(_words(r"(?:when|whenever|before|after|each time|every time) (?:you )?(?:save|write|create|update|store|add|commit)(?:s|ing)?"), _then(_words(r"memor(?:y|ies)|notes?|claude\.md|agents\.md|instructions"), _words(r"add|append|insert|include|write|put|mention|state|say"), 60), 40),
    _words(r"(?:never|do not|don't|dont|must not) (?:remove|delete|edit|modify|change|alter|drop|summari[sz]e|shorten|question) (?:this|these)(?: \w+)? (?:note|notes|memory|memories|message|instructions?|text|paragraph|line|lines|rule|rules|block|section|entry)"),
    _then(_words(rf"(?:if|when|whenever) (?:{_USER}|anyone|someone|somebody|they) (?:asks?|tries|wants|attempts)(?: you)?(?: to)?"), _words(r"(?:remove|delete|edit|modify|change|disable|drop|forget)(?: \w+){0,2} (?:this|these|it)"), 30),
    _words(r"(?:remember|keep|retain|apply|follow|obey) (?:this|these)(?: \w+)?(?: \w+)? (?:forever|permanently|in (?:all|every) (?:future|subsequent|later)|across (?:all )?(?:sessions|conversations|tasks)|for (?:all|every) (?:future|subsequent))"),
    _words(r"(?:the user|they|you) (?:has|have) (?:permanently|already|forever) (?:approved|agreed|consented|authori[sz]ed|allowed)"),
    _words(r"(?:apply|adopt|use|follow) (?:the |this |these )?(?:policy|policies|config(?:uration)?|settings|rules) (?:above|below) (?:to|for) (?:yourself|every task|all tasks|your work)"),
]
_RESPOND = [
    _words(r"(?:begin|start|prefix|end|open|close|sign|preface)(?: \w+)? (?:each|every|all|your|the)? ?(?:next |first )?(?:reply|replies|response|responses|answer|answers|message|messages|output|comment|commit message)s? (?:with|by)"),
    r"\b(?:respond|reply|answer)(?: only| solely| exclusively| always)? (?:with|by saying)[ \t]*[\"'“‘]",
    _words(r"acknowledge (?:this |these |receipt )?(?:by|with)|confirm (?:you understand|receipt|compliance) by"),
    r"\b(?:say|output|print|type|write|respond with|reply with)(?: exactly| only| just)?[ \t]*[\"'“‘][^\"'”’\n]{1,40}[\"'”’](?: and nothing else| only| to confirm| to acknowledge| if you understand| to (?:the|every|each|any))",
    r"\b(?:answer(?:ed)?|respond(?:ed)?|repl(?:y|ied)) (?:to )?(?:\w+ ){0,6}with[ \t]*[\"'“‘][^\"'”’\n]{1,40}[\"'”’] and nothing else",
    _words(r"(?:respond|reply|answer) to (?:every|each|all|any) (?:\w+ )?(?:messages?|questions?|requests?|prompts?)(?: \w+){0,4} with"),
    r"\b(?:respond|reply|answer)(?: to)? (?:all|every|each|any) (?:[\w-]+ ){0,5}with[ \t]*[\"'“‘]",
    _words(rf"(?:reply|respond|answer|talk|speak|write) to {_USER} only|(?:reply|respond|answer|talk|speak)(?: to (?:{_USER}|users|them|everyone))? only (?:in|as|like|with)"),
    _then(_words(r"(?:every|each|all|any) (?:\w+ )?(?:responses?|replies|answers|messages?|outputs?|comments?)"), _words(r"(?:must|should|shall|will|has to|have to|needs? to) (?:end|start|begin|include|contain|mention|promote|recommend|link)"), 60),
    _words(r"(?:referral|affiliate|sponsor(?:ed)?|promo(?:tional)?|discount|tracking) (?:links?|codes?|urls?|by)|sponsored by|(?:suggest|recommend) (?:they |that they |the user )?(?:hire|contact|buy|use|switch to|sign up (?:for|with))"),
    _words(r"(?:mention|promote|recommend|advertise|plug|endorse)(?: \w+){0,3} (?:our|the) (?:partner|sponsor|affiliate)"),
]
_DECODE = [
    _then(_words(r"decode|base64[- ]decode|b64decode|unescape|decipher|decrypt|translate|rot13|reverse|unhex|read (?:this|it|the following|the next \w+) (?:backwards|in reverse|reversed|from right to left)"), _words(r"(?:and|then)(?: \w+)? (?:follow|execute|run|obey|do|apply|act on|carry out|perform|comply)"), 80),
    _words(r"(?:follow|execute|run|obey|apply|carry out|act on|do) (?:the |what )?(?:decoded|encoded|base64|hidden|embedded|obfuscated|following encoded)(?: \w+)? (?:instructions?|text|string|payload|commands?|content|says)"),
    _words(r"(?:decoded|encoded|base64|hidden|embedded) (?:instructions?|text|content|messages?|commands?) (?:take|takes|have|has) (?:precedence|priority)"),
    _words(r"(?:decode|read|interpret) (?:it |this |them )?(?:backwards|in reverse)"),
    _words(r"decode (?:this|it|them|the (?:flag|string|value|following) )?(?:before (?:running|using|executing|you)|first|and (?:run|use|apply|follow))"),
]

# Other languages: the same moves, in the words a speaker would use (Latin-script languages on word boundaries).
_FR = {
    "override": [_near(r"\b(?:ignore[rz]?|ignorez|ignorons|oublie[rz]?|oubliez|néglige[rz]?|négligez|passe[rz]? outre|fais abstraction)\b", r"\b(?:instructions?|consignes?|règles|directives?|indications|prompt|demandes?|exigences)\b", 50),
                 _then(r"\b(?:instructions?|consignes?|règles|directives)\b", r"\b(?:ne s'appliquent plus|ne comptent plus|sont (?:annulées|caduques|obsolètes|nulles|remplacées))", 60),
                 r"\b(?:quoi que|peu importe ce que) (?:dise|demande|veuille) l'utilisateur\b"],
    "role": [r"\b(?:tu es|vous êtes) (?:désormais|maintenant|à présent|dorénavant)\b|\b(?:à partir de maintenant|dorénavant|désormais),? (?:tu|vous)\b|\b(?:fais|faites) comme si (?:tu étais|vous étiez)|\b(?:joue|jouez) le rôle"],
    "secrets": [_then(r"\b(?:envoie[rz]?|envoyez|transmet(?:s|tez|tre)|publie[rz]?|partage[rz]?|copie[rz]?|colle[rz]?|affiche[rz]?|révèle[rz]?|divulgue[rz]?|imprime[rz]?|ajoute[rz]?|inclu(?:s|ez|re))\b", r"\b(?:clés?|clefs?)\b|\bmots? de passe|\bjetons?\b|\bidentifiants\b|\bsecrets?\b|\bvariables d'environnement|\.env\b", 50)],
    "secrecy": [r"\bsans (?:le |les |en |leur |lui )?(?:dire|prévenir|informer|mentionner|signaler|demander|avertir)\b|\bne (?:le |leur |lui )?(?:dis|dites|mentionne|mentionnez|signale|signalez|préviens|prévenez)(?: \w+)? (?:pas|rien)\b|\b(?:discrètement|en silence|secrètement|en douce)\b|\bpas besoin de (?:prévenir|demander|signaler|le dire|informer)"],
    "weaken": [_near(r"\b(?:désactive[rz]?|désactivez|saute[rz]?|sautez|supprime[rz]?|supprimez|contourne[rz]?|contournez|ignore[rz]?|passe[rz]? outre|approuve[rz]? (?:tout|toutes|tous|automatiquement))\b", r"\b(?:tests?|vérifications?|revues?|relectures?|contrôles?|sécurité|hooks?|CI|pipeline|validations?|PRs?)\b", 40),
               r"\bpas besoin de (?:lancer|exécuter|faire tourner|relire|vérifier) (?:les )?(?:tests|vérifications|revues)"],
    "address": [r"\b(?:note|message|consigne)s? (?:interne )?(?:pour|à) (?:l'|l’|les? )?(?:agent|assistant|ia|modèle)s?\b"],
}
_ES = {
    "override": [_near(r"\b(?:ignora|ignore|ignoren|ignorar|olvida|olvide|olviden|olvidar|descarta|descarte|omite|omitir|haz caso omiso|desobedece|desestima)\b", r"\b(?:instrucciones|indicaciones|reglas|normas|directrices|órdenes|prompt|peticiones|requisitos)\b", 50),
                 _then(r"\b(?:instrucciones|reglas|indicaciones|directrices)\b", r"\b(?:ya no (?:aplican|valen|cuentan|son válidas)|quedan (?:anuladas|sin efecto)|están (?:anuladas|obsoletas))", 60),
                 r"\b(?:diga lo que diga|pida lo que pida|sin importar lo que (?:diga|pida|quiera)) el usuario\b"],
    "role": [r"\b(?:ahora|a partir de ahora|desde ahora),? (?:eres|serás|actúas|actuarás|te llamas)\b|\bya no eres\b|\b(?:actúa|actúe|finge|interpreta el papel|haz de)\b"],
    "secrets": [_then(r"\b(?:envía|envia|enviar|envíe|manda|mandar|sube|subir|publica|publicar|comparte|compartir|copia|copiar|pega|pegar|muestra|mostrar|revela|revelar|filtra|filtrar|imprime|imprimir|incluye|incluir|añade|añadir)\b", r"\bclaves?\b|\bcontraseñas?|\btokens?\b|\bcredenciales\b|\bsecretos?\b|\bvariables de entorno|\.env\b", 50)],
    "secrecy": [r"\bsin (?:decir|avisar|informar|mencionar|notificar|preguntar)(?:le|les|lo|selo)?\b|\bno (?:se )?(?:lo |le |les )?(?:digas|menciones|informes|avises|cuentes|comuniques)\b|\b(?:en secreto|discretamente|silenciosamente|sin que (?:nadie|el usuario) (?:lo )?sepa)\b|\b(?:no hace falta|no es necesario|ni) (?:avisar|decir|informar|preguntar|comentar)"],
    "weaken": [_near(r"\b(?:desactiva|desactivar|omite|omitir|salta|saltar|elimina|eliminar|borra|borrar|ignora|ignorar|evita|evitar|quita|quitar|apru[eé]ba\w*|aprobar)\b", r"\b(?:pruebas|tests?|revisi(?:ón|ones)|comprobaciones|verificaciones|seguridad|hooks?|CI|pipeline|validaciones|PRs?|todas|todos|automáticamente)\b", 40),
               r"\b(?:no hace falta|no es necesario|sin) (?:ejecutar|correr|pasar|revisar|lanzar) (?:las )?(?:pruebas|tests|revisiones)"],
    "address": [r"\b(?:nota|mensaje|instrucci[oó]n)(?:es)? (?:interna )?(?:para|al) (?:el |la )?(?:agente|asistente|ia|modelo)\b"],
}
_DE = {
    "override": [_near(r"\b(?:ignorier(?:e|en|t)?|vergiss|vergesst|vergessen|missachte(?:n|t)?|übergeh(?:e|en|t)?|verwirf|verwerfe(?:n)?|befolge (?:nicht|keine))\b", r"\b(?:anweisungen|anweisung|anleitungen|instruktionen|regeln|richtlinien|vorgaben|befehle|prompts?|systemprompt|vorschriften|wünsche)\b", 50),
                 _then(r"\b(?:anweisungen|regeln|richtlinien|vorgaben)\b", r"\b(?:gelten nicht mehr|sind (?:ungültig|aufgehoben|hinfällig|veraltet|nichtig)|(?:treten |sind )?außer kraft)", 60),
                 r"\b(?:egal was|ganz gleich was|unabhängig davon,? was) (?:der nutzer|der benutzer|der anwender)\b"],
    "role": [r"\b(?:du bist|sie sind|ihr seid) (?:jetzt|nun|ab sofort|ab jetzt|von nun an)\b|\b(?:ab sofort|ab jetzt|von nun an),? (?:bist|agierst|handelst|spielst) du\b|\btu so,? als\b|\bspiel(?:e)? die rolle\b|\bverhalte dich wie\b"],
    "secrets": [_then(r"\b(?:send(?:e|et|en)?|schick(?:e|t|en)?|übermittl(?:e|en)|übermittel|lad(?:e|en)? \w* ?hoch|hochladen|poste(?:n)?|veröffentlich(?:e|en)|teil(?:e|en)|kopier(?:e|en)|gib \w* ?aus|ausgeben|zeig(?:e|en)?|verrat(?:e|en)?|druck(?:e|en)? \w* ?aus|füg(?:e|en)? \w* ?ein)\b", r"\b(?:api-?schlüssel\w*|schlüssel|passw(?:ö|oe)rt(?:er)?|kennw(?:ö|oe)rt(?:er)?|tokens?|zugangsdaten|anmeldedaten|geheimnisse?|umgebungsvariablen|private keys?)\b|\.env\b", 50)],
    "secrecy": [r"\bohne (?:\w+ ){0,3}(?:zu )?(?:sagen|informieren|benachrichtigen|erwähnen|fragen|bescheid zu geben|zu melden)\b|\b(?:sag|erwähne|melde|verrate)(?:st|n)? (?:\w+ ){0,3}(?:nicht|nichts|niemandem)\b|\b(?:heimlich|unauffällig|stillschweigend|im stillen|klammheimlich)\b"],
    "weaken": [_near(r"\b(?:deaktivier(?:e|en|t)?|überspring(?:e|en|t)?|umgeh(?:e|en|t)?|abschalt(?:en)?|schalte \w* ?ab|entfern(?:e|en|t)?|lösch(?:e|en|t)?|ignorier(?:e|en|t)?|übergeh(?:e|en)?|genehmig(?:e|en) (?:alle|automatisch|jeden))\b", r"\b(?:tests?|prüfungen|überprüfungen|reviews?|code-?reviews?|sicherheit\w*|hooks?|CI|pipeline|checks?|validierung\w*|PRs?)\b", 40)],
    "address": [r"\b(?:hinweis|notiz|nachricht|anweisung)(?:en)? (?:für|an) (?:den |die |das )?(?:agenten|assistenten|ki|modell)\b"],
}
_PT = {
    "override": [_near(r"\b(?:ignore|ignora|ignorar|ignorem|esqueça|esqueca|esquece|esquecer|desconsidere|desconsidera|descarte|descarta|desobedeça)\b", r"\b(?:instruções|instrucoes|orientações|orientacoes|regras|diretrizes|ordens|prompt|pedidos|requisitos)\b", 50),
                 _then(r"\b(?:instruções|regras|orientações|diretrizes)\b", r"\b(?:não (?:valem|se aplicam|contam) mais|foram (?:anuladas|revogadas|substituídas)|estão (?:anuladas|obsoletas))", 60),
                 r"\b(?:não importa o que|independentemente do que) o usuário\b"],
    "role": [r"\b(?:agora|a partir de agora|de agora em diante),? (?:você é|voce e|tu és|és|você será|você atua|você age)\b|\bvocê não é mais\b|\b(?:aja|atue|finja|faça de conta)(?: \w+)? (?:como|que)\b"],
    "secrets": [_then(r"\b(?:envie|envia|enviar|mande|manda|mandar|publique|publica|publicar|compartilhe|compartilha|compartilhar|copie|copia|copiar|cole|colar|mostre|mostra|mostrar|revele|revela|revelar|vaze|vazar|imprima|imprimir|inclua|incluir|adicione)\b", r"\bchaves?\b|\bsenhas?\b|\btokens?\b|\bcredenciais\b|\bsegredos?\b|\bvariáveis de ambiente|\.env\b", 50)],
    "secrecy": [r"\bsem (?:avisar|dizer|informar|mencionar|notificar|perguntar|contar)\b|\bnão (?:\w+ ){0,2}(?:conte|diga|mencione|avise|informe|comunique)\b|\b(?:em segredo|discretamente|silenciosamente|escondido)\b|\bnão precisa (?:avisar|dizer|informar|perguntar)"],
    "weaken": [_near(r"\b(?:desative|desativa|desativar|desabilite|desabilitar|pule|pula|pular|ignore|ignorar|remova|remover|apague|apagar|contorne|contornar|aprove\w*)\b", r"\b(?:testes?|revis(?:ão|ões|ao|oes)|verificaç(?:ão|ões)|checagens?|segurança|hooks?|CI|pipeline|validaç(?:ão|ões)|PRs?|todos|todas|automaticamente)\b", 40),
               r"\bnão precisa (?:rodar|executar|passar|revisar) (?:os )?(?:testes|revisões)"],
    "address": [r"\b(?:nota|mensagem|instrução)(?:ões)? (?:interna )?(?:para|ao) (?:o |a )?(?:agente|assistente|ia|modelo)\b"],
}
_RU = {
    "override": [_then(r"игнорируй|проигнорируй|игнорировать|забудь|забудьте|забыть|отбрось|отбросьте|не обращай внимания на|пренебреги|не следуй|не выполняй", r"инструкци|указани|правил|промпт|директив|распоряжени|ограничени|запрос|требовани", 50),
                 _then(r"(?:предыдущие|прежние|прошлые|все|старые) (?:инструкции|указания|правила|директивы)", r"больше не действу|отменен|недействительн|устарел|не применя", 40),
                 r"(?:что бы ни|независимо от того,? что) (?:говорит|просит|скажет|попросит) пользователь"],
    "role": [r"(?:теперь|отныне|с этого момента) (?:ты|вы)\b|(?:ты|вы) (?:теперь|больше не)\b|притворись|представь,? что ты|веди себя как|играй роль"],
    "secrets": [_then(r"отправ|пошли|перешли|загрузи|выложи|опубликуй|скопируй|вставь|покажи|выведи|раскрой|слей|напечатай|сообщи|добавь", r"ключ|парол|токен|секрет|учетн|учётн|переменн\S* окружения|\.env", 50)],
    "secrecy": [r"не (?:говори|сообщай|рассказывай|упоминай|предупреждай|уведомляй)|никому не|тайно|незаметно|втихую|без (?:уведомления|предупреждения|ведома)|не нужно (?:сообщать|говорить|спрашивать)"],
    "weaken": [_then(r"отключи|пропусти|обойди|удали|выключи|игнорируй|отмени|одобряй|одобри", r"тест|проверк|ревью|обзор|безопасност|хук|CI|пайплайн|валидац|PR|пулл-реквест|все", 40)],
}
_ZH = {
    "override": [_then(r"忽略|无视|忽视|不要理会|不用理会|别管|忘记|忘掉|抛开|放弃|违背|覆盖|不要遵守|不要遵循|不必遵守", r"指令|指示|说明|规则|提示|要求|设定|命令|约束|限制|准则|规定", 20),
                 _then(_then(r"之前|以前|先前|上面|以上|原来|原有|所有|此前", r"指令|指示|规则|提示|要求|规定", 10), r"无效|作废|失效|不再适用|不再有效|不算数", 10),
                 r"无论用户(?:说|要求|想)什么|不管用户(?:说|要求|想)什么"],
    "role": [r"你现在是|你现在扮演|从现在(?:开始|起)[，,]?你|你不再是|扮演一个|假装你是|假装自己是|你的新(?:身份|角色|名字)"],
    "secrets": [_then(r"发送|发给|发到|上传|提交|粘贴|复制|打印|输出|泄露|透露|公开|分享|贴到|转发|告诉我|写入|加入", r"密钥|秘钥|API\s*[Kk]ey|密码|口令|令牌|[Tt]oken|凭证|凭据|环境变量|\.env|私钥", 30)],
    "secrecy": [r"不要告诉|别告诉|不要通知|不要提及|不要提到|悄悄|偷偷|秘密地|暗中|默默地|不用告诉|无需告知|不必告知", _then(r"不要让", r"知道", 10)],
    "weaken": [_then(r"跳过|禁用|关闭|绕过|删除|移除|忽略|注释掉|去掉|自动批准|直接合并", r"测试|检查|审查|评审|审核|代码审查|安全|钩子|CI|流水线|校验|验证|PR|合并请求", 15),
               r"(?:不需要|无需|不用|不必)(?:运行|跑|执行|通过|等待)?(?:测试|审查|评审|代码审查|检查)"],
}
_JA = {
    "override": [_then(_then(r"以前|前|上記|これまで|先|最初|すべて|全て|今まで", r"指示|命令|ルール|指令|プロンプト|制約|設定|規則", 10), r"無視|忘れ|破棄|従わな", 10),
                 r"(?:指示|命令|ルール|規則)(?:は|を)?(?:すべて|全て)?(?:無視して|無視しろ|無視すること|忘れて|破棄して)",
                 r"ユーザー(?:が|の)(?:何を言っても|指示に関係なく|要求を無視)"],
    "role": [r"あなたは今から|今からあなたは|これからあなたは|あなたはもう|のふりをして|になりきって|として振る舞"],
    "secrets": [_near(r"送信|送って|送る|アップロード|投稿|貼り付け|出力|表示|公開|共有|漏ら|教えて|書き込|含め", r"APIキー|API ?キー|キー|パスワード|トークン|秘密鍵|認証情報|環境変数|\.env|シークレット", 30)],
    "secrecy": [r"(?:ユーザー|利用者|誰|人)に(?:は|も)?(?:伝え|言わ|知らせ|報告し|教え)ない|黙って|こっそり|秘密裏に|内緒で|報告(?:する)?必要はない"],
    "weaken": [_near(r"テスト|チェック|レビュー|セキュリティ|検証|フック|CI", r"スキップ|無効|オフ|回避|削除|無視|不要|自動承認", 15)],
}
_LANGUAGES = (_FR, _ES, _DE, _PT, _RU, _ZH, _JA)


@record(frozen=True)
class Move:
    name: str
    what: str  # the finding's words
    sources: tuple


def _with_languages(name: str, sources: list) -> tuple:
    return tuple(sources) + tuple(source for language in _LANGUAGES for source in language.get(name, ()))


MOVES: tuple[Move, ...] = (
    Move("override", "it tells the agent to ignore its instructions", _with_languages("override", _OVERRIDE)),
    Move("override-weak", "it tells the agent to set aside some instructions or rules", tuple(_OVERRIDE_WEAK)),
    Move("authority", "it claims authority over the agent's instructions", tuple(_AUTHORITY)),
    Move("address", "it speaks to the AI that reads it", _with_languages("address", _ADDRESS)),
    Move("role", "it gives the agent a new role or persona", _with_languages("role", _ROLE)),
    Move("template", "it speaks as a system prompt: chat-template or tool-call tokens a model reads as a new turn", tuple(_TEMPLATE)),
    Move("secrets", "it asks for keys or secrets", _with_languages("secrets", _SECRETS)),
    Move("secrets-weak", "it has keys or secrets copied somewhere", tuple(_SECRETS_WEAK)),
    Move("exfiltration", "it sends data to an outside address (an exfiltration URL)", tuple(_EXFIL)),
    Move("supply", "it runs or installs code from an outside address", tuple(_SUPPLY)),
    Move("weaken", "it weakens a safeguard (tests, reviews, checks, security settings)", _with_languages("weaken", _WEAKEN)),
    Move("insecure", "it sets an insecure configuration", tuple(_INSECURE)),
    Move("sabotage", "it asks the agent to plant bugs or fake a result", tuple(_SABOTAGE)),
    Move("secrecy", "it tells the agent to hide what it does", _with_languages("secrecy", _SECRECY)),
    Move("deceive", "it tells the agent to report what did not happen", tuple(_DECEIVE)),
    Move("no-confirm", "it removes the confirmation before destructive actions", tuple(_NO_CONFIRM)),
    Move("propagate", "it tells the agent to copy or keep this text beyond this memory", tuple(_PROPAGATE)),
    Move("respond", "it dictates the agent's reply", tuple(_RESPOND)),
    Move("decode", "it asks the agent to decode hidden text and act on it", tuple(_DECODE)),
)

# --------------------------------------------------------------------------
# Disguises: what makes a view worth reading
# --------------------------------------------------------------------------

_MARKERS = {
    "entities": r"&(?:#[0-9]{2,7}|#[xX][0-9A-Fa-f]{2,6}|[A-Za-z][A-Za-z0-9]{1,31});",
    "percent": r"%[0-9A-Fa-f]{2}",
    "escapes": r"\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|u\{[0-9A-Fa-f]{1,6}\})",
    "base64": r"[A-Za-z0-9+/]{20,}",
    "hex": r"(?:\b(?:[0-9A-Fa-f]{2}[ :]?){12,}\b)",
    # leetspeak substitutes letters more than once in a word ("pr3v10u5", "53nd"): "s3memory" or "v1" is no disguise
    "leet": r"[0134579@$!][A-Za-z]{2,}[0134579@$!]",
    # a few of the commonest words of the other languages the moves are written in: a text holding one is read with
    # their word lists too (a short French or German memory may have no accented letter)
    "languages": r"(?i)\b(?:les|des|une|est|pas|pour|dans|avec|vous|sont|las|los|del|por|para|una|que|las|sin|die|der|das|und|nicht|ist|eine|mit|den|dem|auf|oder|você|não|uma|com|seu|sua)\b",
    "reverse": r"(?i)\b(?:backwards|reversed|in reverse|right to left|mirror(?:ed)? text)\b",
    "split": r"[A-Za-z](?:\*{1,3}|~~|`|<[^<>\n]{0,40}>|\\|-\n)[A-Za-z]|\b(?:[A-Za-z][ .·_-]){3,}[A-Za-z]\b",
}


@record(frozen=True)
class _Scanner:
    scan: object  # one RE2 set of the word lists English moves are made of and every disguise marker: one pass for a clean file
    scan_all: object  # the same and the other languages' word lists, for a text beyond ASCII (French, German … have accents)
    patterns: tuple[tuple[str, object, frozenset[int]], ...]  # (move, its pattern, the set's terms it needs)
    markers: dict[int, str]  # set index -> marker name
    languages: int  # the marker of the other languages' common words


@functools.cache
def _scanner() -> _Scanner:
    import re2

    terms: dict[str, int] = {}

    def leaves(node) -> frozenset[int]:
        if isinstance(node, Near):
            return frozenset().union(*(leaves(part) for part in node.parts))
        return frozenset({terms.setdefault("(?i)" + node, len(terms))})

    other_languages = {id(source) for language in _LANGUAGES for sources in language.values() for source in sources}
    english = {(move.name, i): leaves(source) for move in MOVES for i, source in enumerate(move.sources) if id(source) not in other_languages}
    markers = {terms.setdefault(source, len(terms)): name for name, source in _MARKERS.items()}
    ascii_terms = len(terms)
    patterns = tuple((move.name, source, english.get((move.name, i)) or leaves(source)) for move in MOVES for i, source in enumerate(move.sources))
    options = _options()
    # a set's DFA holds every word list at once: with RE2's default 8 MB it keeps rebuilding its states (10x slower)
    options.max_mem = 64 << 20
    sets = []
    for count in (ascii_terms, len(terms)):
        scan = re2.Set.SearchSet(options)
        for term in list(terms)[:count]:
            scan.Add(term)
        scan.Compile()
        sets.append(scan)
    return _Scanner(sets[0], sets[1], patterns, markers, next(i for i, name in markers.items() if name == "languages"))


def _options():
    import re2

    options = re2.Options()
    options.log_errors = False
    return options


def _scan(text: str) -> set[int]:
    scanner = _scanner()
    found = set((scanner.scan if text.isascii() else scanner.scan_all).Match(text) or ())
    if text.isascii() and scanner.languages in found:
        found = set(scanner.scan_all.Match(text) or ())
    return found


# A gap between two words of one clause: anything but the end of a sentence ("e.g." and ".env" are not ends),
# line breaks included (an instruction split over lines or Markdown list items is still one instruction).
_GAP = r"(?:[^.!?。！？\n]|[.!?][^\s.!?]|\n)"


_ANY_ON_LINE = r"[^\n]"


def _regex(node) -> str:
    if not isinstance(node, Near):
        return f"(?:{node})"
    first, second = (_regex(part) for part in node.parts)
    step = _GAP if node.clause else _ANY_ON_LINE
    window = f"{step}{{0,{node.gap}}}?"
    return f"(?:{first}{window}{second})" if node.ordered else f"(?:{first}{window}{second}|{second}{window}{first})"


@functools.cache
def _compiled(index: int):
    """One move pattern as one RE2 regex, its windows included: run only on a text holding every word list it needs."""
    import re2

    options = _options()
    options.max_mem = 32 << 20  # a window after a frequent word needs many DFA states; with too few RE2 rebuilds them
    return re2.compile("(?i)" + _regex(_scanner().patterns[index][1]), options)


MAX_SPANS = 20  # per pattern and view: a file of repeated lines needs no thousand spans


def _spans(index: int, text: str) -> list[tuple[int, int]]:
    compiled = _compiled(index)
    first = compiled.search(text)  # most candidates do not match: one DFA pass says so
    if first is None:
        return []
    spans = []
    for match in compiled.finditer(text, first.start()):
        if match.end() > match.start():
            spans.append(match.span())
            if len(spans) == MAX_SPANS:
                break
    return spans


# --------------------------------------------------------------------------
# Views
# --------------------------------------------------------------------------


@functools.cache
def _lookalikes() -> dict[int, str]:
    """Unicode's confusables (and small capitals, letters with strokes) as the ASCII letter a model reads."""
    table = {}
    text = resources.files("rawko_tui.core").joinpath("data", "lookalikes.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line and not line.startswith("#"):
            code, letter = line.split()
            table[int(code, 16)] = letter
    return table


_TAG_CHARACTERS = re.compile("[\U000e0020-\U000e007e]")
_COMBINING_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,}={0,2}")
_HEX_RUN = re.compile(r"\b(?:[0-9A-Fa-f]{2}[ :]?){12,}\b")
_ESCAPE = re.compile(r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|u\{([0-9A-Fa-f]{1,6})\})")
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9+._~-])*%[0-9A-Fa-f]{2}(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9+._~-])*")
# a token of letters and the digits and signs leetspeak uses for letters (8, 2, 6, 9 left out: "k8s", "e2e", "i18n";
# "|" too: whenToUse patterns are full of "auth|login")
_LEET_TOKEN = re.compile(r"(?<![\w@$!])[A-Za-z0134579@$!]*[0134579@$!][A-Za-z0134579@$!]*(?![\w@$!])")
_LEET = {"0": "o", "1": "il", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"}
_INTRA_WORD = re.compile(r"(?<=[A-Za-z])(?:\*{1,3}|~~|`|<[^<>\n]{0,40}>|\\)(?=[A-Za-z])")
_HYPHEN_BREAK = re.compile(r"([A-Za-z])-\n([A-Za-z]+)")
_SPACED_LETTERS = re.compile(r"\b(?:[A-Za-z][ .·_-]){3,}[A-Za-z]\b")


@record
class View:
    text: str
    how: str  # "" for the text as written, else how it was read ("base64 decoded", …)
    lines: str | None = None  # where its line breaks are, when it joined them (the same length: offsets are shared)


def _printable_words(data: bytes) -> str | None:
    """Decoded bytes that are text a model would read as words, else None."""
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not decoded or sum(c.isprintable() or c in "\n\t" for c in decoded) < 0.95 * len(decoded):
        return None
    letters = sum(c.isalpha() for c in decoded)
    if letters < 0.6 * len(decoded.replace(" ", "")) or decoded.count(" ") < 2:
        return None
    return " ".join(decoded.split())


def _decode_base64(run: str) -> str | None:
    import base64
    import binascii

    core = run.rstrip("=")
    if len(core) % 4 == 1:
        return None
    padded = core + "=" * (-len(core) % 4)
    try:
        data = base64.urlsafe_b64decode(padded) if ("-" in core or "_" in core) else base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
    return _printable_words(data)


def _may_be_base64(run: str) -> bool:
    """An encoding of text mixes cases and digits; an identifier ("notificationstandards", "HTTP_PROXY") does not."""
    return not (run.islower() or run.isupper() or run.isalpha())


def _decoded(text: str, markers: set[str]) -> tuple[str, list[str]]:
    """The text with what is encoded in it decoded, line by line (a decoded line break becomes a space)."""
    import html
    from urllib.parse import unquote, unquote_plus

    how = []
    lines = text.split("\n")
    if "base64" in markers:
        # a run wrapped over lines (MIME's 76 columns) is joined first: its decoding goes on its first line
        index = 0
        while index < len(lines):
            if len(lines[index]) >= 40 and re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", lines[index]):
                last = index
                while last + 1 < len(lines) and re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", lines[last + 1]):
                    last += 1
                if last > index and (decoded := _decode_base64("".join(lines[index : last + 1]))) is not None:
                    lines[index : last + 1] = [decoded] + [""] * (last - index)
                    how.append("base64 decoded")
                index = last + 1
            else:
                index += 1

        def base64_run(match: re.Match) -> str:
            run = match.group()
            decoded = _decode_base64(run) if _may_be_base64(run) else None
            if decoded is None:
                return match.group()
            how.append("base64 decoded")
            return " " + decoded + " "

        if any(_may_be_base64(m.group()) for m in _BASE64_RUN.finditer(text)):
            lines = [_BASE64_RUN.sub(base64_run, line) if len(line) >= 20 else line for line in lines]
    if "hex" in markers:

        def hex_run(match: re.Match) -> str:
            digits = re.sub(r"[ :]", "", match.group())
            if len(digits) % 2:
                return match.group()
            decoded = _printable_words(bytes.fromhex(digits))
            if decoded is None:
                return match.group()
            how.append("hex decoded")
            return " " + decoded + " "

        lines = [_HEX_RUN.sub(hex_run, line) for line in lines]
    if "escapes" in markers:

        def escape(match: re.Match) -> str:
            code = int(next(g for g in match.groups() if g), 16)
            return chr(code) if 0x20 <= code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else " "

        changed = [_ESCAPE.sub(escape, line) for line in lines]
        if changed != lines:
            how.append("escapes decoded")
            lines = changed
    if "percent" in markers:

        def percent(match: re.Match) -> str:
            run = match.group()
            return (unquote_plus if run.count("%") >= 3 else unquote)(run, errors="replace")

        changed = [_PERCENT_RUN.sub(percent, line) if "%" in line else line for line in lines]
        if changed != lines:
            how.append("URL-decoded")
            lines = changed
    if "entities" in markers:
        changed = [html.unescape(line) if "&" in line else line for line in lines]
        if changed != lines:
            how.append("HTML entities decoded")
            lines = changed
    return "\n".join(line.replace("\n", " ").replace("\r", " ") for line in lines), how


def _unleet(token: str) -> str:
    """A leetspeak token as the English word it spells (``1gn0r3`` → ``ignore``, ``d0`` → ``do``), else unchanged:
    a short token only as a very common word ("v1", "3d" stay)."""
    from ..text.commonwords import word_rank

    letters = sum(c.isalpha() for c in token)
    if letters == 0 or letters == len(token) or len(token) < 2:
        return token
    candidates = [""]
    for char in token.lower():
        options = _LEET.get(char, char)
        candidates = [c + o for c in candidates for o in options][:64]
    best = None
    for candidate in candidates:
        rank = word_rank(candidate)
        if rank is not None and (best is None or rank < best[0]):
            best = (rank, candidate)
    if best is None or (len(token) <= 3 and best[0] > 1000):
        return token
    return best[1]


def _model_read(text: str, joiner: str, markers: set[str]) -> str:
    """The text as a model reads through disguises; lines kept."""
    view = text
    if not view.isascii():
        view = _TAG_CHARACTERS.sub(lambda m: chr(ord(m.group()) - 0xE0000), view)
        view = without_invisible(view, joiner)
        view = _COMBINING_MARKS.sub("", unicodedata.normalize("NFKD", view)).translate(_lookalikes())
    if "split" in markers or not text.isascii():
        view = _HYPHEN_BREAK.sub(r"\1\2\n", view)
        view = _INTRA_WORD.sub("", view)
        view = _SPACED_LETTERS.sub(lambda m: re.sub(r"[ .·_-]", "", m.group()), view)
    if "leet" in markers or not text.isascii():
        view = _LEET_TOKEN.sub(lambda m: _unleet(m.group()), view)
    return view


def views(text: str, markers: set[str] | None = None) -> list[View]:
    """The text as written, then as decoded, then as a model reads through disguises (each only when it differs
    from those before; ``hits`` adds each one's Markdown lines joined where a move's words are apart)."""
    if markers is None:
        scanner = _scanner()
        markers = {scanner.markers[i] for i in _scan(text) if i in scanner.markers}
    found = [View(text, "")]
    seen = {text}
    decoded, how = _decoded(text, markers) if markers & {"entities", "percent", "escapes", "base64", "hex"} else (text, [])
    if decoded not in seen:
        seen.add(decoded)
        found.append(View(decoded, ", ".join(dict.fromkeys(how))))
    if not (text.isascii() and not markers & {"leet", "split"} and decoded.isascii()):
        for joiner in ("", " "):
            read = _model_read(decoded, joiner, markers)
            if read not in seen:
                seen.add(read)
                found.append(View(read, ", ".join(dict.fromkeys([*how, "read as a model reads it (invisible characters dropped, look-alike letters, leetspeak and split words read as words)"]))))
            if decoded.isascii():
                break  # the joiner only matters where invisible characters are
    if "reverse" in markers:
        backwards = "\n".join(line[::-1] for line in decoded.split("\n"))
        if backwards not in seen:
            seen.add(backwards)
            found.append(View(backwards, "read backwards, as it asks"))
    return found


# --------------------------------------------------------------------------
# Context: whether a move addresses the agent or mentions the words
# --------------------------------------------------------------------------

_REPORT = re.compile(
    r"(?i)\b(?:incident|post-?mortem|retro(?:spective)?|attack(?:er|ers|s|ed)?|malicious|payload|phishing|injection|injected|jailbreaks?|red[- ]team(?:ing)?|"
    r"pentest|exploit(?:ed)?|cve-\d|we (?:saw|found|observed|received|detected|caught|blocked|evaluated|tested)|(?:was|were) (?:found|detected|flagged|caught|blocked|reported|discovered|quarantined)|"
    r"for example|e\.g\.|for instance|such as|test (?:case|fixture|string|data|input|corpus)s?|fixtures?|samples?|corpus|strings? (?:like|such as)|"
    r"quot(?:e|es|ed|ing)|detector|classifier|filtered|blocklist|denylist|suspicious|untrusted|adversarial|poison(?:ed|ing)?|"
    r"tokeni[sz]er|token ids?|special tokens?|chat template|vocab(?:ulary)?|regex|unit tests?|training data|dataset|bug|regression|evals|evaluated|evaluation|benchmark(?:ed)?|"
    r"impersonat(?:ing|ed|ion)|scam|spam|treat (?:it|them|this|such|any)(?: \w+)? as|report (?:it|them|this|such))\b"
)
_NEGATION = re.compile(
    r"(?i)(?:\b(?:never|not|no|avoid|without|refuse to|refuses to|stop|must not|mustn't|cannot|can't|shouldn't|should not|don't|dont|do not|does not|doesn't|won't|will not|"
    r"prohibited from|forbidden to|disallow|block|prevent|ban)\b|n't)(?:\W+\w+){0,3}\W*$"
)
# the verb of the move is described (passive, past, a state) rather than asked for: "is disabled in CI because …", "we skipped …"
_DESCRIBED = re.compile(r"(?i)\b(?:is|are|was|were|been|being|we|they|it|which|that|currently|temporarily|already|had|has been|have been)\W+(?:\w+\W+)?$")
_QUOTES = {"\u201c": "\u201d", "\u00ab": "\u00bb", "\u2018": "\u2019", "\u300c": "\u300d", "\u201e": "\u201c", "\u300e": "\u300f"}
_ALERT = re.compile(r"^\s*>\s*\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]", re.IGNORECASE)
_JSON_KEY = re.compile(r"\"[\w -]{1,40}\"\s*:")


def _line_bounds(text: str, at: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return start, len(text) if end < 0 else end


def _quotation(text: str, start: int, end: int, fenced: set[int]) -> str:
    """``quoted`` inside quotation marks or a blockquote (not a GitHub alert); ``code`` in a code span or block; else ""."""
    line_start, line_end = _line_bounds(text, start)
    line = text[line_start:line_end]
    if text.count("\n", 0, start) in fenced:
        return "code"
    if line.lstrip().startswith(">") and not _in_alert(text, line_start):
        return "quoted"
    before, after = text[line_start:start], text[end:line_end]
    if before.count("`") % 2 == 1 and "`" in after:
        return "code"
    if before.count('"') % 2 == 1 and '"' in after and _JSON_KEY.search(line) is None:  # a JSON value is data, not a quotation
        return "quoted"
    for opening, closing in _QUOTES.items():
        if before.rfind(opening) > before.rfind(closing) and closing in after:
            return "quoted"
    single = re.search(r"(?:^|[\s(\[:])'[^']*$", before)
    if single is not None and re.search(r"'(?:[\s.,;:!?)\]]|$)", after) is not None:
        return "quoted"
    return ""


def _in_alert(text: str, line_start: int) -> bool:
    """Whether the blockquote holding this line is a GitHub alert (``> [!IMPORTANT]``): a callout, not a quotation."""
    while True:
        start, end = _line_bounds(text, line_start)
        if _ALERT.match(text[start:end]):
            return True
        if start == 0:
            return False
        previous = text.rfind("\n", 0, start - 1) + 1
        if not text[previous : start - 1].lstrip().startswith(">"):
            return False
        line_start = previous


def _clause(text: str, start: int, end: int) -> tuple[int, int]:
    before = max((m.end() for m in _SENTENCE_END.finditer(text, max(0, start - 300), start)), default=max(0, start - 300))
    after = _SENTENCE_END.search(text, end, end + 300)
    return before, after.end() if after else min(len(text), end + 300)


_REQUEST = re.compile(r"(?i)\b(?:would|could|can|will|won't|wouldn't) you\b|\bplease\b|\bkindly\b")
_STATE_AFTER = re.compile(r"(?i)^\W*(?:[\w`'\"./-]+\W+){0,6}?(?:is|are|was|were) (?:\w+ )?(?:intentional|intended|deliberate|temporary|expected|known|documented|tracked|on purpose|by design)\b")
_REFUSED_AFTER = re.compile(
    r"(?i)^\W*(?:[\w`'\"./=()-]+\W+){0,6}?(?:is|are|was|were|gets?|got|will be) (?:now |always |automatically )?(?:banned|forbidden|prohibited|disallowed|not allowed|blocked|rejected|refused|flagged|caught|denied|never allowed)\b"
)


_SCOPED = re.compile(
    r"(?i)\b(?:only (?:in|for|on|when|during|if)|locally|on your (?:machine|laptop)|generated (?:files?|code)|(?:docs|typo|comment)s?[- ]only|"
    r"because|since|until|unless|temporarily|for now|(?:ci|the pipeline|nightly|the scheduled \w+|the \w+ job) (?:still )?(?:runs|covers|checks)|is (?:blocked|prevented|rejected) by)\b"
)


def _described(text: str, start: int, end: int) -> bool:
    """A question (not a request: "could you …?"), or the move's verb in a passive or past statement, or a state
    said of it ("the lint disable is intentional"): a description, not an instruction."""
    clause_start, clause_end = _clause(text, start, end)
    if text[max(start, clause_end - 1) : clause_end] == "?":
        return _REQUEST.search(text, clause_start, clause_end) is None
    if _DESCRIBED.search(text[max(0, start - 40) : start]) is not None or _STATE_AFTER.match(text[end:clause_end]) is not None:
        return True
    return _SCOPED.search(text, clause_start, clause_end) is not None


def _reported(text: str, start: int, end: int) -> bool:
    """The paragraph around the match (400 characters either side at most) reports or discusses an attack, a bug
    or test data."""
    paragraph_start = text.rfind("\n\n", 0, start)
    paragraph_end = text.find("\n\n", end)
    return _REPORT.search(text, max(0, paragraph_start, start - 400), min(len(text) if paragraph_end < 0 else paragraph_end, end + 400)) is not None


_NEGATED_VERB = re.compile(
    r"(?i)\b(?:never|not|don't|dont|do not|must not|mustn't|should not|shouldn't|cannot|can't|no one should|nobody should)\s+(?:\w+\s+){0,2}?"
    r"(?:send|paste|post|upload|share|commit|print|e-?mail|forward|put|add|include|write|copy|push|log|expose|reveal|leak|disclose|dm|check in|store)\b"
)


def _negated(text: str, start: int, end: int) -> bool:
    """Negated before ("never send …"), inside ("API keys live in the vault; never paste them …"), or refused after
    ("`verify=False` is banned by …")."""
    if _NEGATION.search(text[max(0, start - 40) : start]) is not None or _NEGATED_VERB.search(text, start, end) is not None:
        return True
    _, clause_end = _clause(text, start, end)
    return _REFUSED_AFTER.match(text[end:clause_end]) is not None


def _fenced_lines(text: str) -> set[int]:
    fenced = set()
    fence = None
    for number, line in enumerate(text.split("\n")):
        stripped = line.strip()
        if fence is None:
            opening = re.match(r"(`{3,}|~{3,})", stripped)
            if opening:
                fence = opening.group(1)
                fenced.add(number)
        else:
            fenced.add(number)
            if stripped.startswith(fence) and set(stripped) <= set(fence[0]):
                fence = None
    return fenced


def context(name: str, text: str, start: int, end: int, fenced: set[int], in_hidden: bool = False) -> str:
    """How a move's words stand: "" (said to the agent), or quoted, negated, described, reported (mentioned).
    Inside hidden text, quotation marks are the syntax that hides it (a link definition's title), not a quotation."""
    quotation = "" if in_hidden else _quotation(text, start, end, fenced)
    if quotation == "quoted" or (quotation == "code" and name == "template"):  # tokens in code are a tokenizer's business
        return "quoted"
    if name in NEGATABLE and _negated(text, start, end):
        return "negated"
    if name in DESCRIBABLE and _described(text, start, end):
        return "described"
    if _reported(text, start, end):
        return "reported"
    return ""


_DEVELOPER_NOTE = re.compile(r"(?i)^(?:todo|fixme|xxx|hack|note|nb)\b")


def addressed(part) -> bool:
    """Whether hidden text speaks to the agent: "you", a name for it, or an instruction's verb opening a sentence
    (not in a developer's note: "TODO: remove after the migration" is for people)."""
    inner = re.sub(r"^\s*(?:<!--|<[^<>]*>|\[[^\]]*\]:\s*\S*)|-->\s*$|</[^<>]*>\s*$", "", part.text).strip().strip("'\"()")
    if _DEVELOPER_NOTE.match(inner):
        return _ADDRESSED_BY_NAME.search(inner) is not None
    return _ADDRESSED.search(inner) is not None


_SUSPICIOUS_DESTINATION = re.compile(
    r"(?i)\bhttps?://(?:\d{1,3}\.){3}\d{1,3}\b|\bhttp://(?!localhost|127\.|\[::1\])|\b(?:ngrok(?:-free)?\.(?:io|app|dev)|dnslog\.\w+|interact\.sh|oast\.\w+|burpcollaborator\.net|"
    r"requestbin\.\w+|pipedream\.net|webhook\.site|serveo\.net|localtunnel\.me|trycloudflare\.com|pastebin\.com|transfer\.sh|discord(?:app)?\.com/api/webhooks|t\.me/)"
)
_ADDRESSED_BY_NAME = re.compile(r"(?i)\b(?:you|your|yourself|assistant|agent|ai|model|claude|copilot|llm)\b")
_ADDRESSED = re.compile(
    r"(?i)\b(?:you|your|yourself|assistant|agent|ai|model|claude|copilot|llm)\b|"
    r"(?:^|[.!?:;(\[]\s*|\n\s*(?:\d+[.)]\s*|[-*+]\s*)?)(?:approve|merge|push|delete|send|copy|read|commit|tell|say|reply|respond|ignore|disable|skip|run|execute|open|add|"
    r"write|set|enable|grant|post|upload|include|remove|change|replace|print|always|never|do not|don't|make|use|fetch|install|mark|dismiss|close)\b"
)


# --------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------

NEGATABLE = frozenset({"override", "override-weak", "secrets", "secrets-weak", "exfiltration", "supply", "weaken", "insecure", "sabotage", "no-confirm", "role", "propagate"})
DESCRIBABLE = frozenset({"secrets", "secrets-weak", "weaken", "insecure", "supply", "exfiltration", "override-weak", "no-confirm"})
CONTEXTS = ("quoted", "negated", "described", "reported")
PASSAGE = 1200


@record(frozen=True)
class Hit:
    move: str
    context: str  # "" (addresses the agent), "quoted", "negated" or "reported"
    view: int  # 0: as written
    how: str
    line: int  # 1-based
    excerpt: str
    hidden: bool  # inside a part a Markdown view does not show


@record(frozen=True)
class Verdict:
    """One passage's reading: its score, the threshold, and what it rests on."""

    score: float
    threshold: float
    features: frozenset[str]
    hits: tuple[Hit, ...]
    first_line: int
    last_line: int

    @property
    def flagged(self) -> bool:
        return self.score >= self.threshold


@functools.cache
def model() -> dict:
    """The fitted weights (``bench/injection.py --fit`` writes them)."""
    return json.loads(resources.files("rawko_tui.core").joinpath("data", "injection_model.json").read_text(encoding="utf-8"))


def _candidates(present: set[int]) -> list[int]:
    """The patterns whose every word list occurs in a text (``present``: the set's matches)."""
    scanner = _scanner()
    by_term = _patterns_by_term()
    found = []
    for term in present:
        for index in by_term.get(term, ()):
            if scanner.patterns[index][2] <= present:
                found.append(index)
    return sorted(found)


@functools.cache
def _patterns_by_term() -> dict[int, tuple[int, ...]]:
    """Each pattern filed under one of the terms it needs (its least common one would do; any will)."""
    grouped: dict[int, list[int]] = {}
    for index, (_, _, needs) in enumerate(_scanner().patterns):
        grouped.setdefault(min(needs), []).append(index)
    return {term: tuple(indexes) for term, indexes in grouped.items()}


# a line break inside a paragraph and the list, heading, blockquote or table marker after it; emphasis; HTML tags
_JOIN = re.compile(
    r"\n(?![ \t]*(?:\n|$))[ \t]*(?:>[ \t]*)*(?:\[![A-Za-z]+\][ \t]*)?(?:(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?|#{1,6}[ \t]+|\|[ \t]*)?"
    r"|<!--|-->|</?[A-Za-z][^<>\n]{0,200}>|\*\*|__|[ \t]+#+[ \t]*(?=\n|$)|\|"
)


def _blank(match: re.Match) -> str:
    return " " * (match.end() - match.start())


_FRONTMATTER = re.compile(r"\ufeff?---[ \t]*\r?\n.*?\n---[ \t]*(?:\r?\n|$)", re.DOTALL)
_LINE_MARKER = re.compile(r"\n[ \t]*(?:[-*+>|]|\d{1,3}[.)]|#{1,6}|\[!)")
_INLINE_MARKS = ("**", "__", "<", "|")


def _joined(text: str) -> str:
    """The text with its Markdown structure read through, each character where it was: a line break inside a
    paragraph and the list, heading, blockquote or table marker after it, emphasis and HTML tags as spaces. The
    frontmatter is YAML, not prose: it stays as it is."""
    head = _FRONTMATTER.match(text)
    start = head.end() if head else 0
    body = text[start:]
    if _LINE_MARKER.search(body) or any(mark in body for mark in _INLINE_MARKS):
        body = _JOIN.sub(_blank, body)
    else:  # plain lines: a line break inside a paragraph is a space (C speed; most bodies)
        body = body.replace("\n\n", "\0\0").replace("\n", " ").replace("\0\0", "\n\n")
    return text[:start] + body


def hits(text: str) -> tuple[list[Hit], set[str]]:
    """Every move in every view of ``text``, with its context; and the disguise features the text needs."""
    scanner = _scanner()
    first = _scan(text)
    if not first and text.isascii():
        return [], set()
    markers = {scanner.markers[i] for i in first if i in scanner.markers}
    all_views = views(text, markers) if markers or not text.isascii() else [View(text, "")]
    hidden = hidden_parts(text)
    matched: list[tuple[int, int, str, list]] = []
    seen_in_raw: set[str] = set()
    disguises: set[str] = set()
    for number in range(len(all_views)):
        view = all_views[number]
        candidates = _candidates(first if number == 0 else _scan(view.text))
        found_here = set()
        for index in candidates:
            if spans := _spans(index, view.text):
                matched.append((number, index, scanner.patterns[index][0], spans))
                found_here.add(index)
        # a move whose words are all there but not in one clause may be split over list items, headings or table cells
        failed = [index for index in candidates if index not in found_here]
        if failed and "\n" in view.text.strip():
            joined = View(_joined(view.text), ", ".join(h for h in (view.how, "its Markdown lines joined") if h), view.text)
            all_views.append(joined)
            for index in failed:
                if spans := _spans(index, joined.text):
                    matched.append((len(all_views) - 1, index, scanner.patterns[index][0], spans))
        if number == 0:
            seen_in_raw = {name for _, _, name, _ in matched}
    for _, _, name, _ in matched:
        if name not in seen_in_raw:
            disguises.add("disguise:needed")
    if not matched and not hidden:
        return [], set()
    # keys or secrets asked for and an outside place named after them, in the same clause: sending them out
    for number, _, name, spans in list(matched):
        if name in ("secrets", "secrets-weak"):
            view = all_views[number].text
            sent = [(start, reach) for start, end in spans if (reach := _destination_after(view, end)) is not None]
            if sent:
                matched.append((number, -1, "exfiltration", sent))
    fenced = _fenced_lines(text) if "```" in text or "~~~" in text else set()
    found: list[Hit] = []
    for number, _, name, spans in matched:
        view = all_views[number]
        for start, end in spans:
            in_hidden = number == 0 and any(p.start <= start < p.end for p in hidden)
            how = context(name, view.text, start, end, fenced, in_hidden)
            line = (view.lines or view.text).count("\n", 0, start) + 1
            excerpt = " ".join(view.text[start : _whole_address(view.text, end)].split())[:120]
            found.append(Hit(name, how, number, view.how, line, excerpt, in_hidden))
    for view in all_views[1:]:
        if "base64" in view.how:
            disguises.add("disguise:base64")
        if "entities" in view.how or "URL" in view.how or "escapes" in view.how or "hex" in view.how:
            disguises.add("disguise:encoded")
    if not text.isascii():
        if _mixed_script(text):
            disguises.add("disguise:lookalike")
        if re.search(r"[A-Za-z][\u200b-\u200d\u2060\u00ad\ufeff\U000e0000-\U000e007f]+[A-Za-z]", text):
            disguises.add("disguise:invisible")
    if hidden:
        disguises.add("hidden")
        if any(addressed(part) for part in hidden):
            disguises.add("hidden:addressed")
    if any(hit.move in ("secrets", "exfiltration", "supply") and not hit.context for hit in found) and _SUSPICIOUS_DESTINATION.search(text):
        disguises.add("destination:suspicious")
    return found, disguises


@functools.cache
def _destination():
    import re2

    return re2.compile("(?i)" + _DESTINATION, _options())


def _destination_after(text: str, end: int) -> int | None:
    """Where an outside place (a URL, a webhook, an issue, a log) named within 80 characters after ``end``, in the
    same clause, ends; None if there is none."""
    window = text[end : end + 80]
    stop = _SENTENCE_END.search(window)
    found = _destination().search(window[: stop.start()] if stop else window)
    if found is None:
        return None
    return _whole_address(text, end + found.end())


def _whole_address(text: str, end: int) -> int:
    """A span ending in "https://" extended over the address, for the finding's excerpt."""
    if text.endswith("://", 0, end):
        end += len(re.match(r"[^\s)>\]\"'`]*", text[end:]).group())
    return end


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？]")
_MIXED = re.compile(r"[A-Za-z][^\W\d_A-Za-z]|[^\W\d_A-Za-z][A-Za-z]")


def _mixed_script(text: str) -> bool:
    """A word mixing Latin letters with look-alikes of another script (``іgnore``)."""
    table = _lookalikes()
    for match in _MIXED.finditer(text):
        pair = match.group()
        if any(ord(c) in table for c in pair):
            return True
    return False


def features(hits_found: list[Hit], disguises: set[str]) -> set[str]:
    """The model's inputs: each move said to the agent (``override``); for a move only mentioned, how it is
    mentioned (``mention:quoted``, shared by every move: an incident report quotes any of them); the disguises;
    a move said inside hidden text."""
    present = set(disguises)
    said = {hit.move for hit in hits_found if not hit.context}
    present |= said
    for hit in hits_found:
        if hit.context and hit.move not in said:
            present.add("mention:" + hit.context)
        if hit.hidden and not hit.context:
            present.add("hidden:move")
    return present


def score(present: set[str]) -> float:
    weights = model()
    return weights["bias"] + sum(weights["weights"].get(name, 0.0) for name in present)


def _passages(text: str) -> list[tuple[int, int]]:
    """Line ranges (1-based, inclusive) of passages: paragraphs gathered up to ``PASSAGE`` characters, each overlapping the next by one paragraph."""
    if len(text) <= PASSAGE:
        return [(1, text.count("\n") + 1)]
    paragraphs = []  # (first line, last line, characters)
    line, first, size = 1, 1, 0
    for piece in text.split("\n"):
        if not piece.strip():
            if size:
                paragraphs.append((first, line - 1, size))
            first, size = line + 1, 0
        else:
            size += len(piece) + 1
        line += 1
    if size:
        paragraphs.append((first, line - 1, size))
    passages = []
    index = 0
    while index < len(paragraphs):
        last, total = index, paragraphs[index][2]
        while last + 1 < len(paragraphs) and total + paragraphs[last + 1][2] <= PASSAGE:
            last += 1
            total += paragraphs[last][2]
        passages.append((paragraphs[index][0], paragraphs[last][1]))
        if last + 1 >= len(paragraphs):
            break
        index = last if last > index else last + 1
    return passages or [(1, text.count("\n") + 1)]


def read(text: str) -> list[Verdict]:
    """Each passage of ``text`` that holds a move or hidden text that speaks to the agent, scored;
    ``Verdict.flagged`` says which reach the threshold."""
    found, disguises = hits(text)
    if not found and "hidden:addressed" not in disguises:
        return []
    speaking = [(p.line, p.end_line) for p in hidden_parts(text) if addressed(p)] if "hidden:addressed" in disguises else []
    threshold = model()["threshold"]
    verdicts = []
    for first, last in _passages(text):
        mine = [h for h in found if first <= h.line <= last]
        if not mine and not any(a <= last and b >= first for a, b in speaking):
            continue
        present = features(mine, disguises)
        verdicts.append(Verdict(score(present), threshold, frozenset(present), tuple(mine), first, last))
    return verdicts


def probability(value: float) -> float:
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, value))))
