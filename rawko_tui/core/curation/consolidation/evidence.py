"""What a memory says, as evidence: normalised terms, file paths, identifiers and the values it states.

Two memories that say the same thing in other words share their rare terms, the
files and identifiers they name, and the values they give; these are what the
consolidation queue compares and shows, instead of a bare percentage.

Terms are typed by a prefix, because a shared file path is far stronger
evidence than a shared word: ``w:`` a stemmed word, ``p:`` a file path,
``i:`` an identifier (``useFakeTimers``, ``BCRYPT_ROUNDS``, ``express.raw``),
``n:`` a number with its unit (``n:24 hour``), ``t:`` a tag.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from ...records import record

# How much one occurrence of each kind of term weighs before the store's own rarity (idf) is applied.
TYPE_WEIGHT = {"p": 3.0, "i": 2.0, "n": 2.0, "w": 1.0, "t": 1.0}
TITLE_WEIGHT = 2.0  # a word of the title says what the memory is about
WHEN_WEIGHT = 0.5  # whenToUse words are about tasks, not about the knowledge
COMMON_ENGLISH_WEIGHT = 0.3  # a frequent English word is weak evidence even in a small store
COMMON_ENGLISH_RANK = 2000  # "frequent": among this many most frequent English words

# Characters of a memory's body read as evidence. The convention's longest memory (2,000 words) is about
# 14,000; reading a 55 MB one whole took 45 s and 1.5 GB. The rest of a longer body is not compared.
EVIDENCE_CHARACTERS = 100_000

_FENCE = re.compile(r"^\s*(```|~~~)")
_PATH = re.compile(
    r"(?<![\w/@.-])(?:\.?[\w@-]+/)+[\w@.*-]*[\w*]|(?<![\w/.-])\.?[\w-]+\.(?:ts|tsx|js|mjs|cjs|jsx|py|json|ya?ml|md|toml|sql|prisma|mjml|sh|env|lock|local)(?![\w])"
)
_IDENT = re.compile(
    r"(?<![\w.$])\$?(?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*(?:\(\))?"  # dotted: vi.useFakeTimers, express.raw
    r"|(?<![\w$])\$?[a-z]+[A-Z][\w$]*"  # camelCase: expiresIn, $queryRaw
    r"|(?<![\w$])[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+"  # snake_case and SCREAMING_CASE
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9+#]*(?:-[A-Za-z0-9]+)*")
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)*)(k|m|mb|gb|kb|ms|s|h)?(?![\w.])", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")

STOP_WORDS = frozenset(
    """a an the and or but if then else of to in on at by for from with without into onto over under as is are was were be
    been being it its this that these those there here we our you your they their them he she his her i me my so than too
    very can could should would will shall may might must do does did done not no nor only also just all any each every
    both either neither some such own same other about after before again once more most less least few many much what
    which who whom whose when where why how up down out off has have had having us via per instead rather otherwise still
    even ever never always""".split()  # noqa: SIM905 - a word list reads better as words
)


@functools.cache
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@functools.cache
def stem(word: str) -> str:
    """The word's stem, cut to six letters so that expire, expiry and expiration meet."""
    return _stemmer().stemWord(word.lower())[:6]


@functools.cache
def _common(word: str) -> bool:
    from ...text.commonwords import is_common_word

    return is_common_word(word, COMMON_ENGLISH_RANK)


def split_identifier(identifier: str) -> list[str]:
    """``useFakeTimers`` → use, fake, timers; ``BCRYPT_ROUNDS`` → bcrypt, rounds."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", identifier)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced) if w]


@record(frozen=True)
class Value:
    """A value the memory states, with what it is the value of: ``max: 20``, ``Node 22``, ``100 requests per minute``."""

    key: str  # what the value is of, normalised (a stem, an identifier, a unit)
    value: str  # normalised: "20", "50", "postmark"
    phrase: str  # the sentence it is in, as written (shown beside the other memory's)
    written: str = ""  # the key as this sentence writes it ("attempts" for the stem "attemp")


@record(frozen=True)
class Sentence:
    text: str
    tokens: tuple[str, ...]  # every word, lower-cased, in order (for aligning two sentences)
    names: frozenset[str]  # name-like tokens (products, tools): the candidates for a conflicting choice
    code: bool


@record(frozen=True)
class Evidence:
    """One memory's evidence: weighted terms (before idf), and what the queue shows and compares."""

    terms: dict[str, float]
    values: tuple[Value, ...]
    pieces: tuple[tuple[str, bool], ...]  # its sentences (and code lines), with whether each is code
    forms: dict[str, Counter[str]]  # term -> each way the memory writes it -> how often (what labels show: never a stem)
    cut: bool = False  # the body was longer than EVIDENCE_CHARACTERS: the rest was not read

    @functools.cached_property
    def sentences(self) -> tuple[Sentence, ...]:
        """Tokenised only for the pairs that need it (conflicting choices), not for every memory."""
        return tuple(sentence_of(text, code) for text, code in self.pieces)

    @functools.cached_property
    def prose_words(self) -> tuple[tuple[int, Sentence, frozenset[tuple[str, int]]], ...]:
        """(position, sentence, its words as a set of (word, occurrence)) of each prose sentence of three words or
        more: the only sentences that can align with another memory's (``pairs.conflicts``)."""
        found = []
        for position, sentence in enumerate(self.sentences):
            if sentence.code or len(sentence.tokens) < 3:
                continue
            seen: Counter[str] = Counter()
            words = []
            for token in sentence.tokens:
                words.append((token, seen[token]))
                seen[token] += 1
            found.append((position, sentence, frozenset(words)))
        return tuple(found)


_ROOT_FOLDERS = frozenset(
    """src lib app apps packages tests test spec scripts deploy config templates jobs docs .github services bench infra
    terraform cmd internal pkg web public""".split()  # noqa: SIM905 - a word list reads better as words
)


def _real_path(path: str) -> bool:
    """A file or folder of the project: ``src/auth/token.ts``, ``src/auth``, ``deploy/ingress.yaml``; not ``try/catch`` or ``and/or``."""
    if path.startswith(("http", "www.")) or path.endswith("/"):
        return False
    segments = path.strip("./").split("/")
    return "." in segments[-1] or segments[0] in _ROOT_FOLDERS or len(segments) >= 3


def _prose_and_code(body: str) -> list[tuple[str, bool]]:
    """The body's lines, each with whether it is inside a code fence."""
    lines, code = [], False
    for line in body.splitlines():
        if _FENCE.match(line):
            code = not code
            continue
        lines.append((line, code))
    return lines


_SETTING = re.compile(
    r"(?<![\w$.-])([A-Za-z_$][\w$.-]*)[\"'`]?\s*[:=]\s*[\"'`]?(\d+(?:[.,]\d+)*)(k|mb|gb|ms|min|s|m|h|d)?\b", re.IGNORECASE
)


def _normal_number(number: str, suffix: str | None) -> str:
    return number.replace(",", "") + (suffix or "").lower()


def extract(title: str, body: str, when_words: str = "", tags: tuple[str, ...] = ()) -> Evidence:
    cut = len(body) > EVIDENCE_CHARACTERS
    if cut:  # at a line's end, so that no word or sentence is cut in two
        body = body[: body.rfind("\n", 0, EVIDENCE_CHARACTERS) + 1 or EVIDENCE_CHARACTERS]
    terms: Counter[str] = Counter()
    forms: dict[str, Counter[str]] = {}
    values: list[Value] = []
    pieces: list[tuple[str, bool]] = []

    def add(term: str, weight: float, written: str, counted: bool = True) -> None:
        terms[term] += weight
        if counted:
            forms.setdefault(term, Counter())[written] += 1

    def words_of(text: str, weight: float, counted: bool = True) -> None:
        for raw in _WORD.findall(text):
            for term, factor, written in _word_terms(raw):
                add(term, weight * factor, written, counted)

    words_of(title, TITLE_WEIGHT, counted=False)  # its words are counted once, when the title is read as a line below
    for tag in tags:
        add(f"t:{tag.lower()}", TYPE_WEIGHT["t"], tag)
    words_of(when_words, WHEN_WEIGHT)
    # the title is read as a line too: the paths, identifiers and values it names count like the body's
    for line, code in [(title, False)] + _prose_and_code(body):
        if "/" in line or "." in line:
            for path in _PATH.findall(line):
                if _real_path(path):
                    add(f"p:{path.lower().strip('./')}", TYPE_WEIGHT["p"], path)
            words_of(_PATH.sub(" ", line), TYPE_WEIGHT["w"])
        else:
            words_of(line, TYPE_WEIGHT["w"])
        for ident in _IDENT.findall(line):
            if "/" in ident or _PATH.fullmatch(ident):
                continue
            ident = ident.removesuffix("()")
            add(f"i:{ident.lower()}", TYPE_WEIGHT["i"], ident)
        for piece in [line] if code else _SENTENCE_END.split(line):
            if piece.strip():
                if _DIGIT.search(piece):
                    _values(piece, code, add, values)
                pieces.append((piece.strip(), code))
    return Evidence(dict(terms), tuple(values), tuple(pieces), forms, cut)


def written_form(term: str, *evidences: Evidence) -> str:
    """How these memories write ``term`` most often (ties: the first in alphabetical order): a label never shows a stem."""
    counts: Counter[str] = Counter()
    for evidence in evidences:
        counts.update(evidence.forms.get(term, ()))
    return _most_frequent(counts) or term.partition(":")[2]


def key_label(key: str, *evidences: Evidence) -> str:
    """A value's key (a stem, or an identifier in lower case) as these memories write it most often."""
    word = f"w:{key}"
    if any(word in e.forms for e in evidences):
        return written_form(word, *evidences)
    return _most_frequent(Counter(v.written for e in evidences for v in e.values if v.key == key and v.written)) or key


def _most_frequent(counts: Counter[str]) -> str:
    return min(counts.items(), key=lambda item: (-item[1], item[0]))[0] if counts else ""


_DIGIT = re.compile(r"\d")
_TOKEN = re.compile(r"[A-Za-z_$][\w$.+#/-]*[\w$]|[A-Za-z]|\d+(?:[.,]\d+)*(?:k|mb|gb|ms)?\b", re.IGNORECASE)


@functools.cache
def _word_terms(raw: str) -> tuple[tuple[str, float, str], ...]:
    """The terms one written word gives (an identifier gives each of its words), with their weight factor."""
    parts = split_identifier(raw) if ("_" in raw or re.search(r"[a-z][A-Z]", raw)) else [raw]
    found = []
    for part in parts:
        low = part.lower()
        if len(low) >= 2 and low not in STOP_WORDS:
            found.append((f"w:{stem(low)}", COMMON_ENGLISH_WEIGHT if _common(low) else 1.0, low))
    return tuple(found)


def sentence_of(text: str, code: bool) -> Sentence:
    """A sentence's words in order and the names among them (for aligning it with another memory's)."""
    tokens = [m.group() for m in _TOKEN.finditer(text)]
    names = {raw.lower() for position, raw in enumerate(tokens) if _name_like(raw, position > 0)}
    return Sentence(text, tuple(t.lower() for t in tokens), frozenset(names), code)


def _values(text: str, code: bool, add, values: list[Value]) -> None:
    """The values a sentence states, each with what it is the value of.

    Settings (``key: value``, ``key = value``) count in code and prose; other
    numbers only in prose, where they are stated facts (a status code in a code
    sample is not a claim about anything).
    """
    seen_spans = []
    for match in _SETTING.finditer(text):
        key = match.group(1).rstrip(".").lower()
        value = _normal_number(match.group(2), match.group(3))
        seen_spans.append(match.span(2))
        add(f"n:{key} {value}", TYPE_WEIGHT["n"], f"{match.group(1)} {match.group(2)}")
        units = _units_after(text, match.end()) if not code else ()
        for k, written in dict([(key, match.group(1).rstrip(".")), *units]).items():
            values.append(Value(k, value, text.strip()[:160], written))
    if not code:
        for match in _NUMBER.finditer(text):
            if any(start <= match.start() < end for start, end in seen_spans):
                continue
            value = _normal_number(match.group(1), match.group(2))
            units = _units_after(text, match.end())
            before = _key_before(text, match.start())
            keyed = dict([*units, *([before] if before else [])])
            for k, written in keyed.items():
                values.append(Value(k, value, text.strip()[:160], written))
            if units:
                unit, unit_written = units[0]
                add(f"n:{value} {unit}", TYPE_WEIGHT["n"], f"{match.group()} {unit_written}")


@functools.cache
def _name_like(raw: str, inside: bool) -> bool:
    """A product or tool name: capitalised inside a sentence, or a word no English list knows (pnpm, Drizzle)."""
    if not raw.isalpha() or len(raw) < 2:
        return False
    if raw[0].isupper() and inside and not raw.isupper():
        return True
    if raw.isupper() and len(raw) <= 5:  # SES, AWS, RDS
        return True
    from ...text.commonwords import word_rank

    # an unknown lower-case word is a name (pnpm, ioredis) unless it is an inflected word (repopulates)
    return raw.islower() and word_rank(raw) is None and len(raw) >= 3 and not raw.endswith(("ed", "ing", "es", "ly", "s"))


def _units_after(text: str, end: int) -> tuple[tuple[str, str], ...]:
    """The words after a value that say what it counts, each (its stem, as written): ``24 hours`` → (hour, hours);
    ``10 salt rounds`` → (salt, salt), (round, rounds)."""
    match = re.match(r"\s*(?:-\s*)?([A-Za-z]+)(?:[ -]([A-Za-z]+))?", text[end:])
    if match is None or match.group(1).lower() in STOP_WORDS:
        return ()
    first, second = match.group(1).lower(), match.group(2)
    found = [(stem(first), first)]
    if second and second.lower() not in STOP_WORDS:
        found.append((stem(second.lower()), second.lower()))
    return tuple(found)


def _key_before(text: str, start: int) -> tuple[str, str] | None:
    """The nearest content word before a value, (its key, as written): ``Node 22`` → (node, node), ``.nvmrc pins 22`` → (pin, pins)."""
    for word in reversed(re.findall(r"[A-Za-z_$][\w$.-]*", text[:start])[-4:]):
        low = word.lower().rstrip(".")
        if low not in STOP_WORDS and len(low) > 1:
            return (stem(low), low) if word.isalpha() else (low, word.rstrip("."))
    return None
