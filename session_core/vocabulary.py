"""A format's words for what every read path and the viewer decide by: its item kinds by
neutral category, and its meta keys by neutral fact.

``Item.kind`` and ``Transcript.meta`` are in each format's own words. Where behaviour
hangs on them (``e`` stops at an error line, the browser's "msgs" counts message lines,
the header shows the model), it asks here, with the format it knows
(``Transcript.format``): the shared words, and the format's own
(``TranscriptFormat.kind_words`` / ``meta_keys``). The shared words are the neutral
model's (a category's own name, a fact's) and those two or more built-ins write; a word
one format alone writes is in its own registration (Claude Code's ``compact-summary``,
Codex's ``originator``), so a new format gets nothing it did not ask for. A name no
format has (a transcript not read yet) gets the shared words alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .parts import Part

if TYPE_CHECKING:
    from .formats.base import TranscriptFormat
    from .model import Item

Words = tuple[str, ...]
# An item's text as a person reads it, where its writer wrapped it (None: as written).
Readable = Callable[["Item"], "str | None"]


@dataclass(frozen=True, slots=True)
class Kinds:
    """The item kinds of each neutral category."""

    # a message line as written (a prompt, an answer, a local command, a compaction's
    # summary): the browser's "msgs", peek's messages, the Diff tab's first row
    message: frozenset[str]
    # a line of the conversation beside its messages (a meta line, a queued prompt): the
    # diff lists it, with the messages, when it is not sent next
    conversation: frozenset[str]
    # a compaction's line or its summary: ``x`` stops at it, drawn as a summary
    compaction: frozenset[str]
    # a line that says something went wrong: ``e`` stops at it
    error: frozenset[str]


# Every format's words (its own are added to them: ``TranscriptFormat.kind_words``):
# ``meta`` is Claude Code's and Codex's, ``compaction`` v1's, Codex's and the model's own.
SHARED_KINDS: Mapping[str, Words] = {
    "message": ("message",),
    "conversation": ("meta",),
    "compaction": ("compaction",),
    "error": ("error",),
}

# Neutral fact -> the meta keys that may hold it, the first that has a value wins (a
# format's own entry for a fact replaces these: ``TranscriptFormat.meta_keys``). Each is
# the fact's own name (a v1 file's meta is its caller's, in these words).
SHARED_META_KEYS: Mapping[str, Words] = {
    "model": ("model",),
    "cwd": ("cwd",),
    "version": ("version",),
    "branch": ("branch",),
    "agent": ("agent",),  # who the agent is
    "client": (),  # the program that wrote it (no shared word: Codex's ``originator``)
    "title": ("title",),
    "started": ("started",),
    # the session it is a fork of (no shared word: Codex's ``forked_from_id``): its file
    # holds that one's history as copied
    "forked": (),
}
# The facts the viewer's header shows, in order (each key of them that has a value, as
# ``key=value``: the file's own word).
HEADER_FACTS: Words = ("model", "cwd", "version", "branch", "client", "forked")


def kinds_of(fmt: str | TranscriptFormat) -> Kinds:
    """The item kinds of each category for format ``fmt`` (a registered one's name)."""
    own = _format(fmt)
    return _merged_kinds(_frozen(own.kind_words if own else {}, SHARED_KINDS, fmt))


def meta_keys_of(fmt: str | TranscriptFormat) -> Mapping[str, Words]:
    """Each neutral fact's meta keys for format ``fmt``, in order of preference."""
    own = _format(fmt)
    return _merged_keys(_frozen(own.meta_keys if own else {}, SHARED_META_KEYS, fmt))


def openings_of(fmt: str | TranscriptFormat) -> Mapping[str, Words]:
    """By item kind, the fixed words format ``fmt``'s writer opens such an item's text
    with (``TranscriptFormat.openings``; none for a name no format has)."""
    own = _format(fmt)
    return own.openings if own else {}


def gist(text: str, kind: str, openings: Mapping[str, Words]) -> str:
    """``text`` past the fixed words an item of ``kind`` opens with (``openings_of``),
    each skipped in turn where it is there: what one row of it shows. ``text`` itself
    where nothing would be left."""
    rest = text
    for opening in openings.get(kind, ()):
        rest = rest.lstrip()
        if rest.startswith(opening):
            rest = rest[len(opening) :]
    return rest.lstrip() or text


def readable_of(fmt: str | TranscriptFormat) -> Readable:
    """Format ``fmt``'s readable form of an item's text (``TranscriptFormat.
    readable_text``; a name no format has: none, every text as written)."""
    own = _format(fmt)
    return own.readable_text if own else as_written


def as_written(item: Item) -> str | None:
    """Every text as written (a raw view's rule, and a format's with no readable form)."""
    return None


def shown_parts(item: Item, readable: Readable) -> list[Part]:
    """An item's parts as every surface that shows it draws them: its text parts as one,
    in ``readable``'s words where it has them (``readable_of``), in the first one's place;
    else its parts as they are."""
    said = readable(item)
    if said is None:
        return item.parts
    out: list[Part] = []
    for part in item.parts:
        if part.kind != "text":
            out.append(part)
        elif not any(p.kind == "text" for p in out):
            out.append(Part("text", said))
    return out


def shown_text(item: Item, readable: Readable) -> str:
    """An item's text as every surface shows it (``shown_parts``)."""
    said = readable(item)
    return item.text if said is None else said


def meta_fact(meta: Mapping[str, Any], fmt: str | TranscriptFormat, *facts: str) -> Any:
    """The value of a fact in ``meta``: the first of its keys' with a value (of the first
    of ``facts`` that has one; None: none has)."""
    keys = meta_keys_of(fmt)
    for fact in facts:
        for key in keys[fact]:
            value = meta.get(key)
            if value:
                return value
    return None


def header_meta(meta: Mapping[str, Any], fmt: str | TranscriptFormat) -> list[tuple[str, Any]]:
    """``(key, value)`` of each key of the header's facts that has a value, in order."""
    keys = meta_keys_of(fmt)
    return [
        (key, meta[key])
        for fact in HEADER_FACTS
        for key in keys[fact]
        if meta.get(key) not in (None, "")
    ]


def check_words(fmt: TranscriptFormat) -> None:
    """``ValueError`` where a format names a category or fact there is none of (said at
    ``register``, not when a screen first asks)."""
    _frozen(fmt.kind_words, SHARED_KINDS, fmt)
    _frozen(fmt.meta_keys, SHARED_META_KEYS, fmt)


def _format(fmt: str | TranscriptFormat) -> TranscriptFormat | None:
    if not isinstance(fmt, str):
        return fmt
    from .formats import FORMATS

    return next((known for known in FORMATS if known.name == fmt), None)


def _frozen(
    own: Mapping[str, Words], shared: Mapping[str, Words], fmt: str | TranscriptFormat
) -> tuple[tuple[str, Words], ...]:
    """A format's own words, hashable (the merge's cache key: a format's words may change
    while it is registered, a test's may)."""
    name = fmt if isinstance(fmt, str) else fmt.name
    unknown = set(own).difference(shared)
    if unknown:
        raise ValueError(
            f"format {name!r} names {', '.join(sorted(unknown))}: none of {', '.join(shared)}"
        )
    for what, words in own.items():  # (a bare string would be read as its letters)
        if isinstance(words, str) or not all(isinstance(word, str) for word in words):
            raise ValueError(f"format {name!r}: {what} is not a tuple of words: {words!r}")
    return tuple((what, tuple(words)) for what, words in own.items())


@cache
def _merged_kinds(own: tuple[tuple[str, Words], ...]) -> Kinds:
    added = dict(own)
    return Kinds(
        **{name: frozenset((*words, *added.get(name, ()))) for name, words in SHARED_KINDS.items()}
    )


@cache
def _merged_keys(own: tuple[tuple[str, Words], ...]) -> Mapping[str, Words]:
    return MappingProxyType({**SHARED_META_KEYS, **dict(own)})


__all__ = [
    "HEADER_FACTS",
    "SHARED_KINDS",
    "SHARED_META_KEYS",
    "Kinds",
    "as_written",
    "check_words",
    "gist",
    "header_meta",
    "kinds_of",
    "meta_fact",
    "meta_keys_of",
    "openings_of",
    "readable_of",
    "shown_parts",
    "shown_text",
]
