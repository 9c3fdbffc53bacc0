"""BM25 over one scope in memory, tokenized as the stores' full-text indexes tokenize.

The scope index (:mod:`.scope_index`) answers a pinned search's keyword
retriever itself. Its terms are those of LanceDB's default FTS index (and close
to PostgreSQL's ``english`` configuration): word characters split, tokens of 40
bytes or more dropped, lower-cased, Snowball English stemming, the English stop
words removed, accents folded to ASCII. Other scripts are read by the language layer
(:mod:`memorist.language.scripts`): Cyrillic, Arabic, Devanagari and Greek words
stemmed in their language, scripts without spaces as character pairs. Scores are Okapi BM25
(``k1`` 1.2, ``b`` 0.75, ``idf = ln(1 + (N - n + 0.5) / (n + 0.5))``), the
formula both stores use, with the scope as the corpus, so the engine's keyword
normalisation (``KEYWORD_FLOOR``) keeps its meaning.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
import Stemmer

from ..language import DEFAULT, Boundary, fold, language_of, lexicon, pieces, script_of, split
from ..language.scripts import TERM as WORD_TERM
from ..language.scripts import runs

K1 = 1.2
B = 0.75
#: Tokens this long (in UTF-8 bytes) or longer are not indexed (LanceDB's ``max_token_length``).
MAX_TOKEN_BYTES = 40
#: Word characters and their marks: what the stores' tokenizers split on (see
#: ``memorist_lancedb.queries.TERM``); a Devanagari vowel sign stays in its word.
TERM = WORD_TERM

#: The English stop words of LanceDB's tokenizer (the lexicon's ``index_stop_words``, NLTK's
#: list). Checked against the *stemmed* token, as the index checks them after stemming:
#: "very" (stem "veri") is indexed, "doing" (stem "do") is not.
STOP_WORDS = lexicon(DEFAULT).words("index_stop_words")

#: The Snowball stemmer of each script's language. Latin text is stemmed as English, as the
#: stores' English full-text configurations do; a script without one is indexed as written.
_STEMMERS = {"Latin": "english", "Cyrillic": "russian", "Arabic": "arabic", "Devanagari": "hindi", "Greek": "greek"}


@lru_cache(maxsize=8)
def _stemmer(script: str) -> Stemmer.Stemmer | None:
    algorithm = _STEMMERS.get(script)
    return Stemmer.Stemmer(algorithm) if algorithm else None


@lru_cache(maxsize=200_000)
def _term(token: str, script: str | None = "Latin") -> str | None:
    """One lower-cased token (or a piece of a spaceless run) as indexed, or None (too long,
    or a stop word)."""
    if len(token.encode()) >= MAX_TOKEN_BYTES:
        return None
    stemmer = _stemmer(script or "")
    stem = str(stemmer.stemWord(token)) if stemmer is not None else token
    if script == "Latin" and stem in STOP_WORDS:
        return None
    if stem.isascii() or script != "Latin":
        return stem  # marks of other scripts are letters' parts (a kana's voicing, a vowel sign)
    folded = unicodedata.normalize("NFKD", stem)
    return "".join(c for c in folded if not unicodedata.combining(c))


def terms(text: str) -> list[str]:
    """The indexed terms of ``text``, in order, with repeats. Scripts written without spaces
    are indexed as overlapping character pairs ("東京で働く" -> 東京, 京で, で働, 働く), so a
    question finds a statement that shares its words without a segmenter."""
    out = []
    for token in TERM.findall(text.lower()):
        if token.isascii():
            term = _term(token)
            if term is not None:
                out.append(term)
            continue
        for piece, script in pieces(token):
            term = _term(piece, script)
            if term is not None:
                out.append(term)
    return out


#: Where a text's clauses part: each clause's function words are its own language's (a
#: memory "The user: Me operaron de la rodilla" is an English frame around Spanish words).
#: A mark inside a word parts too: the "com" of "ana.gomez@gmail.com" is no Portuguese word
#: of "Mi correo es ...".
_CLAUSE = Boundary.LINE | Boundary.SENTENCE | Boundary.CLAUSE | Boundary.COLON


@lru_cache(maxsize=64)
def _function_words(code: str) -> frozenset[str]:
    return lexicon(code).words("function_words") if code != DEFAULT else frozenset()


#: Snowball stemmers of the Latin-script languages with a lexicon: a clause in one of them
#: is stemmed in it ("vivo", "vive" -> "viv"), not as English.
_LATIN_STEMMERS = {"es": "spanish", "fr": "french", "de": "german", "it": "italian", "pt": "portuguese"}


@lru_cache(maxsize=200_000)
def _latin_term(token: str, language: str) -> str | None:
    if len(token.encode()) >= MAX_TOKEN_BYTES:
        return None
    stem = str(_language_stemmer(_LATIN_STEMMERS[language]).stemWord(token))
    folded = unicodedata.normalize("NFKD", stem)
    return "".join(c for c in folded if not unicodedata.combining(c))


@lru_cache(maxsize=8)
def _language_stemmer(algorithm: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(algorithm)


def index_terms(text: str) -> list[str]:
    """The terms the keyword index matches on: :func:`terms`, less each clause's function
    words in its own language ("el", "est", "и": English ones are the stop words already),
    plus each Han character alone, so a one-character word (狗, 猫) matches as well as the
    character pairs of longer words."""
    out: list[str] = []
    for clause in split(text, _CLAUSE, within_words=True):
        language = language_of(clause)
        skip = _function_words(language)
        for token in TERM.findall(clause.lower()):
            if skip and fold(token) in skip:
                continue
            if language in _LATIN_STEMMERS and script_of(token[0]) == "Latin":
                term = _latin_term(token, language)
                if term is not None:
                    out.append(term)
                continue
            if token.isascii():
                term = _term(token)
                if term is not None:
                    out.append(term)
                continue
            for piece, script in pieces(token):
                term = _term(piece, script)
                if term is not None:
                    out.append(term)
            for run, script in runs(token):
                if script == "Han" and len(run) > 1:
                    out.extend(c for c in run if c not in skip and script_of(c) == "Han")
    return out


class Postings:
    """Term postings of a fixed list of documents: for each term, its rows and counts."""

    def __init__(self, texts: Iterable[str]) -> None:
        rows: dict[str, list[int]] = {}
        counts: dict[str, list[int]] = {}
        lengths: list[int] = []
        for row, text in enumerate(texts):
            doc = index_terms(text)
            lengths.append(len(doc))
            seen: dict[str, int] = {}
            for term in doc:
                seen[term] = seen.get(term, 0) + 1
            for term, count in seen.items():
                rows.setdefault(term, []).append(row)
                counts.setdefault(term, []).append(count)
        self.lengths = np.asarray(lengths, dtype=np.float32)
        self._rows = {t: np.asarray(r, dtype=np.int32) for t, r in rows.items()}
        self._counts = {t: np.asarray(c, dtype=np.float32) for t, c in counts.items()}

    def __len__(self) -> int:
        return int(self.lengths.shape[0])

    def extended(self, texts: Sequence[str]) -> Postings:
        """A copy with ``texts`` appended as the next rows; this one is left as it is (searches
        may be reading it), and only the new documents' terms are copied."""
        grown = Postings(())
        grown._rows, grown._counts = dict(self._rows), dict(self._counts)
        first = len(self)
        added = Postings(texts)
        for term, rows in added._rows.items():
            shifted = rows + first
            old = self._rows.get(term)
            grown._rows[term] = shifted if old is None else np.concatenate([old, shifted])
            counts = added._counts[term]
            old_counts = self._counts.get(term)
            grown._counts[term] = counts if old_counts is None else np.concatenate([old_counts, counts])
        grown.lengths = np.concatenate([self.lengths, added.lengths])
        return grown

    def scores(self, query: str) -> np.ndarray:
        """BM25 of every document for ``query``'s terms (0 where none occurs).

        The statistics (N, document frequencies, mean length) are the whole
        scope's, whatever the search's other filters: as in a store's index, where
        a filter restricts which rows are returned, not how they score.
        """
        n_docs = len(self)
        out = np.zeros(n_docs, dtype=np.float32)
        wanted = index_terms(query)  # a repeated word counts again, as in the stores' queries
        if not wanted or n_docs == 0:
            return out
        # A document without a term is not in the index at all: it counts neither in N
        # nor in the mean length (as in LanceDB's index).
        indexed = self.lengths[self.lengths > 0]
        total = float(indexed.shape[0])
        if total == 0:
            return out
        norm = K1 * (1.0 - B + B * self.lengths / float(indexed.mean()))
        for term in wanted:
            rows = self._rows.get(term)
            if rows is None:
                continue
            counts = self._counts[term]
            df = float(rows.shape[0])
            idf = np.log(1.0 + (total - df + 0.5) / (df + 0.5))
            out[rows] += idf * counts * (K1 + 1.0) / (counts + norm[rows])
        return out


def top(scores: np.ndarray, candidates: Sequence[int] | np.ndarray, k: int) -> list[int]:
    """The ``k`` best of ``candidates`` (row numbers) by score, best first (ties: earlier row)."""
    rows = np.asarray(candidates, dtype=np.int64)
    if rows.shape[0] == 0 or k <= 0:
        return []
    values = scores[rows]
    if rows.shape[0] > k:
        cut = np.argpartition(-values, k - 1)[:k]
        rows, values = rows[cut], values[cut]
    order = np.lexsort((rows, -values))
    return [int(r) for r in rows[order]]
