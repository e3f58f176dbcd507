"""Generate rubric_lsp/rules/smells/lexicon.tsv.gz, the smell rules' English lexicon, from lemminflect.

    pip install "lemminflect==0.2.3"
    python tools/gen_english_lexicon.py           # rewrite the table
    python tools/gen_english_lexicon.py --check   # exit 1 when it differs from a fresh derivation

The smell rules ask three things of a word (``rules/smells/lexicon.py``): its first lemma (the overlap
rule's bag of lemmas), the verb it is a form of (is "offers" a verb, is "review" its base form) and
whether the lexicon knows it only as a verb. lemminflect answers them from its lookup table (derived
from the NLM SPECIALIST Lexicon; MIT licence), but importing it loads numpy (~1.4 s) and its first
lookup parses the whole table (~1.3 s): too slow for an editor's first diagnostics, and numpy is too
much for the base install. So the answers are derived here, once, for every word of lemminflect's
table (``getAllLemmas`` on each, its overrides included) and written as one gzipped line per word
whose answer differs from "no verb, its own lemma": ``word<TAB>first lemma<TAB>verb lemma<TAB>flags``
(an empty lemma: the word itself; flags: ``V`` known as a verb, ``N`` a noun, ``A`` an adjective).
The smell figures (tests/test_smells_corpus.py) are those lemminflect itself gives;
``tests/test_smells_lexicon.py`` re-derives the table when lemminflect is installed.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "rubric_lsp" / "rules" / "smells" / "lexicon.tsv.gz"
VERSION = "0.2.3"
HEADER = (
    f"# The smell rules' English lexicon: derived from lemminflect {VERSION}'s lemma table (MIT; from the NLM "
    "SPECIALIST Lexicon) by tools/gen_english_lexicon.py. Do not edit.\n"
    "# word\tfirst lemma (empty: the word)\tverb lemma (empty: none, =: the word)\tflags (V verb, N noun, A adjective)\n"
)


def rows() -> list[str]:
    """One line per word whose answers differ from a word lemminflect does not know."""
    import lemminflect
    from lemminflect import getAllLemmas

    if lemminflect.__version__ != VERSION:
        raise SystemExit(f"lemminflect {VERSION} derives the table; {lemminflect.__version__} is installed")
    resources = Path(lemminflect.__file__).parent / "resources"
    words = set()
    with gzip.open(resources / "lemma_lu.csv.gz", "rt", encoding="utf-8") as handle:
        words.update(line.split(",", 1)[0] for line in handle)
    for line in (resources / "lemma_overrides.csv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            words.add(line.split(",", 1)[0])
    out = []
    for word in sorted(w for w in words if w == w.lower() and "\t" not in w):
        found = getAllLemmas(word)
        if not found:
            continue
        first = next(iter(found.values()))[0]
        verb = (found.get("VERB") or found.get("AUX") or (None,))[0]
        if first == word and verb is None:
            continue  # answered as an unknown word is: its own lemma, no verb
        flags = "".join(flag for pos, flag in (("VERB", "V"), ("NOUN", "N"), ("ADJ", "A")) if pos in found)
        verb_field = "" if verb is None else "=" if verb == word else verb
        out.append("\t".join((word, "" if first == word else first, verb_field, flags)))
    return out


def table_bytes() -> bytes:
    text = HEADER + "\n".join(rows()) + "\n"
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)


def main(argv: list[str]) -> int:
    fresh = table_bytes()
    if "--check" in argv:
        current = gzip.decompress(TABLE.read_bytes()) if TABLE.exists() else b""
        if current != gzip.decompress(fresh):
            print(f"{TABLE} is stale: run python tools/gen_english_lexicon.py", file=sys.stderr)
            return 1
        return 0
    TABLE.write_bytes(fresh)
    print(f"wrote {TABLE} ({len(fresh)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
