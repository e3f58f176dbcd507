"""XML text and attribute values any report may write (rubric-lint's and rubric grade's JUnit)."""

from __future__ import annotations

import re
from xml.sax.saxutils import escape, quoteattr

# Characters XML 1.0 cannot hold at all (control characters, lone surrogates, U+FFFE/FFFF): a message
# quoting a file's bytes must not make the whole report unreadable, so they are written as \\xNN.
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` as XML character data: escaped, and characters XML cannot hold spelled out."""
    return escape(_NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text))


def xml_attribute(text: str) -> str:
    """``text`` as a quoted XML attribute value (newlines kept as character references)."""
    return quoteattr(
        _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text), {"\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
    )
