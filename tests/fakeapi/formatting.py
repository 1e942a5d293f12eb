"""Telegram text formatting as the Bot API server applies it: parse_mode HTML, MarkdownV2 and
Markdown (legacy) turned into plain text plus ``MessageEntity`` dicts.

``parse_formatted(text, parse_mode, entities)`` returns a :class:`FormattedText` (the text the
user sees, with entity offsets/lengths in UTF-16 code units, leading and trailing whitespace
trimmed as Telegram does) or raises :class:`EntityParseError` with the message Telegram would put
after "Bad Request: can't parse entities: ".  An unknown parse_mode raises
:class:`UnsupportedParseModeError`.

The parsers follow tdlib's behaviour closely enough for tests (tags and error texts), not byte
for byte.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EntityParseError",
    "FormattedText",
    "UnsupportedParseModeError",
    "normalize_parse_mode",
    "parse_formatted",
    "utf16_len",
]


class EntityParseError(ValueError):
    """The text cannot be parsed with the given parse_mode (Telegram answers 400)."""


class UnsupportedParseModeError(ValueError):
    """parse_mode is not one of HTML, MarkdownV2, Markdown (case-insensitive)."""


@dataclass(frozen=True)
class FormattedText:
    """Plain text and its entities, as Telegram stores a message text."""

    text: str
    entities: list[dict[str, Any]] = field(default_factory=list)


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (the unit of entity offsets)."""
    return len(text.encode("utf-16-le")) // 2


def normalize_parse_mode(parse_mode: str | None) -> str | None:
    """``"html"``, ``"markdownv2"``, ``"markdown"`` or None; raises for anything else."""
    if parse_mode is None or parse_mode == "":
        return None
    mode = parse_mode.lower()
    if mode not in ("html", "markdownv2", "markdown"):
        raise UnsupportedParseModeError(f"unsupported parse_mode {parse_mode!r}")
    return mode


def parse_formatted(
    text: str,
    parse_mode: str | None = None,
    entities: Sequence[Mapping[str, Any]] | None = None,
) -> FormattedText:
    """Parse ``text`` the way the Bot API does for sendMessage/editMessageText."""
    mode = normalize_parse_mode(parse_mode)
    if mode == "html":
        plain, ents = _HtmlParser(text).parse()
    elif mode == "markdownv2":
        plain, ents = _MarkdownV2Parser(text).parse()
    elif mode == "markdown":
        plain, ents = _MarkdownParser(text).parse()
    else:
        plain = text
        ents = [dict(e) for e in entities or ()]
    return _trim(plain, ents)


# --------------------------------------------------------------------------------------------
# helpers


class _Builder:
    """Collects output text and keeps the current position in UTF-16 code units."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0

    def add(self, chunk: str) -> None:
        self.parts.append(chunk)
        self.pos += utf16_len(chunk)

    def text(self) -> str:
        return "".join(self.parts)


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


_WHITESPACE = " \t\n\r\v\f\x00"


def _trim(text: str, entities: list[dict[str, Any]]) -> FormattedText:
    """Strip leading/trailing whitespace, shift and clip entities, drop empty ones, sort."""
    stripped_left = text.lstrip(_WHITESPACE)
    left = utf16_len(text) - utf16_len(stripped_left)
    result = stripped_left.rstrip(_WHITESPACE)
    total = utf16_len(result)
    out: list[dict[str, Any]] = []
    for ent in entities:
        start = int(ent.get("offset", 0)) - left
        end = start + int(ent.get("length", 0))
        start = max(start, 0)
        end = min(end, total)
        if end <= start:
            continue
        new = dict(ent)
        new["offset"] = start
        new["length"] = end - start
        out.append(new)
    out.sort(key=lambda e: (e["offset"], -e["length"]))
    return FormattedText(result, out)


# --------------------------------------------------------------------------------------------
# HTML

_HTML_TAGS: dict[str, str] = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "code": "code",
    "pre": "pre",
    "a": "text_link",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
    "tg-time": "date_time",
}

_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_ENTITY_RE = re.compile(r"&(?:(lt|gt|amp|quot)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")


def _decode_entity(text: str, index: int) -> tuple[str, int] | None:
    match = _ENTITY_RE.match(text, index)
    if match is None:
        return None
    named, dec, hexa = match.groups()
    if named:
        return _NAMED_ENTITIES[named], match.end()
    code = int(dec) if dec else int(hexa, 16)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code), match.end()


def _decode_entities(value: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(value):
        if value[i] == "&":
            decoded = _decode_entity(value, i)
            if decoded is not None:
                out.append(decoded[0])
                i = decoded[1]
                continue
        out.append(value[i])
        i += 1
    return "".join(out)


@dataclass
class _OpenTag:
    tag: str
    start: int
    attrs: dict[str, str]
    suppressed: bool = False
    language: str | None = None


class _HtmlParser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.out = _Builder()
        self.stack: list[_OpenTag] = []
        self.entities: list[dict[str, Any]] = []

    def _error(self, message: str) -> EntityParseError:
        return EntityParseError(message)

    def parse(self) -> tuple[str, list[dict[str, Any]]]:
        text = self.text
        n = len(text)
        i = 0
        while i < n:
            char = text[i]
            if char == "&":
                decoded = _decode_entity(text, i)
                if decoded is not None:
                    self.out.add(decoded[0])
                    i = decoded[1]
                else:
                    self.out.add("&")
                    i += 1
                continue
            if char != "<":
                self.out.add(char)
                i += 1
                continue
            is_end_tag = i + 1 < n and text[i + 1] == "/"
            i = self._end_tag(i) if is_end_tag else self._start_tag(i)
        if self.stack:
            raise self._error(
                f'Can\'t find end tag corresponding to start tag "{self.stack[-1].tag}"'
            )
        return self.out.text(), self.entities

    def _start_tag(self, begin: int) -> int:
        text = self.text
        n = len(text)
        j = begin + 1
        while j < n and text[j] not in " \t\r\n>/":
            j += 1
        name = text[begin + 1 : j].lower()
        if name not in _HTML_TAGS:
            raise self._error(
                f'Unsupported start tag "{name}" at byte offset {_byte_offset(text, begin)}'
            )
        attrs: dict[str, str] = {}
        while True:
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j >= n:
                raise self._error(f"Unclosed start tag at byte offset {_byte_offset(text, begin)}")
            if text[j] == ">":
                j += 1
                break
            attr_start = j
            while j < n and (text[j].isalnum() or text[j] in "-_"):
                j += 1
            attr_name = text[attr_start:j].lower()
            if not attr_name:
                raise self._error(
                    f'Empty attribute name in the tag "{name}" at byte offset '
                    f"{_byte_offset(text, begin)}"
                )
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j >= n or text[j] != "=":
                attrs[attr_name] = ""
                continue
            j += 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j >= n:
                raise self._error(f"Unclosed start tag at byte offset {_byte_offset(text, begin)}")
            if text[j] in "\"'":
                quote = text[j]
                end = text.find(quote, j + 1)
                if end < 0:
                    raise self._error(
                        f"Unclosed start tag at byte offset {_byte_offset(text, begin)}"
                    )
                value = text[j + 1 : end]
                j = end + 1
            else:
                value_start = j
                while j < n and text[j] not in " \t\r\n>":
                    j += 1
                value = text[value_start:j]
            attrs[attr_name] = _decode_entities(value)

        offset = _byte_offset(text, begin)
        if name == "span" and attrs.get("class") != "tg-spoiler":
            raise self._error(f'Tag "span" must have class "tg-spoiler" at byte offset {offset}')
        if name == "tg-emoji" and not attrs.get("emoji-id", "").isdigit():
            raise self._error(
                f'Tag "tg-emoji" must have attribute "emoji-id" with a custom emoji identifier '
                f"at byte offset {offset}"
            )
        if name == "tg-time" and not attrs.get("unix", "").lstrip("-").isdigit():
            raise self._error(
                f'Tag "tg-time" must have attribute "unix" with a Unix time at byte offset {offset}'
            )
        opened = _OpenTag(name, self.out.pos, attrs)
        if name == "code" and self.stack and self.stack[-1].tag == "pre":
            pre = self.stack[-1]
            css = attrs.get("class", "")
            if css.startswith("language-") and pre.language is None and pre.start == self.out.pos:
                pre.language = css[len("language-") :]
                opened.suppressed = True
        self.stack.append(opened)
        return j

    def _end_tag(self, begin: int) -> int:
        text = self.text
        end = text.find(">", begin + 2)
        if end < 0:
            raise self._error(f"Unclosed end tag at byte offset {_byte_offset(text, begin)}")
        name = text[begin + 2 : end].strip().lower()
        if not self.stack:
            raise self._error(f"Unexpected end tag at byte offset {_byte_offset(text, begin)}")
        top = self.stack.pop()
        if name != top.tag:
            raise self._error(
                f"Unmatched end tag at byte offset {_byte_offset(text, begin)}, "
                f'expected "</{top.tag}>", found "</{name}>"'
            )
        self._close(top)
        return end + 1

    def _close(self, tag: _OpenTag) -> None:
        length = self.out.pos - tag.start
        if tag.suppressed or length <= 0:
            return
        kind = _HTML_TAGS[tag.tag]
        entity: dict[str, Any] = {"type": kind, "offset": tag.start, "length": length}
        if tag.tag == "a":
            url = tag.attrs.get("href") or self.out.text()[-length:]
            entity["url"] = url
        elif tag.tag == "pre":
            if tag.language:
                entity["language"] = tag.language
        elif tag.tag == "blockquote":
            if "expandable" in tag.attrs:
                entity["type"] = "expandable_blockquote"
        elif tag.tag == "tg-emoji":
            entity["custom_emoji_id"] = tag.attrs["emoji-id"]
        elif tag.tag == "tg-time":
            entity["unix_time"] = int(tag.attrs["unix"])
            if tag.attrs.get("format"):
                entity["date_time_format"] = tag.attrs["format"]
        self.entities.append(entity)


# --------------------------------------------------------------------------------------------
# MarkdownV2

_MDV2_RESERVED = "_*[]()~`>#+-=|{}.!"
_MDV2_NAMES = {
    "bold": "Bold",
    "italic": "Italic",
    "underline": "Underline",
    "strikethrough": "Strikethrough",
    "spoiler": "Spoiler",
    "code": "Code",
    "pre": "Pre",
    "text_link": "TextUrl",
    "custom_emoji": "CustomEmoji",
}
_MDV2_TOKENS: list[tuple[str, str]] = [
    ("__", "underline"),
    ("||", "spoiler"),
    ("*", "bold"),
    ("_", "italic"),
    ("~", "strikethrough"),
]


@dataclass
class _OpenMd:
    kind: str
    start: int
    source_index: int


class _MarkdownV2Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.out = _Builder()
        self.stack: list[_OpenMd] = []
        self.entities: list[dict[str, Any]] = []

    def _byte(self, index: int) -> int:
        return _byte_offset(self.text, index)

    def parse(self) -> tuple[str, list[dict[str, Any]]]:
        text = self.text
        n = len(text)
        i = 0
        quote_start: int | None = None
        quote_expandable = False
        while i < n:
            at_line_start = i == 0 or text[i - 1] == "\n"
            if at_line_start:
                if text.startswith("**>", i) and quote_start is None:
                    quote_start = self.out.pos
                    quote_expandable = True
                    i += 3
                    continue
                if text[i] == ">":
                    if quote_start is None:
                        quote_start = self.out.pos
                        quote_expandable = False
                    i += 1
                    continue
                if quote_start is not None and i > 0:
                    self._close_quote(quote_start, quote_expandable, newline_before=True)
                    quote_start = None
            char = text[i]
            if (
                quote_start is not None
                and text.startswith("||", i)
                and self._line_end(i + 2)
                and not any(o.kind == "spoiler" for o in self.stack)
            ):
                quote_expandable = True
                i += 2
                continue
            if char == "\\" and i + 1 < n and 0 < ord(text[i + 1]) <= 126:
                self.out.add(text[i + 1])
                i += 2
                continue
            if char not in _MDV2_RESERVED:
                self.out.add(char)
                i += 1
                continue
            i = self._reserved(i)
        if quote_start is not None:
            self._close_quote(quote_start, quote_expandable, newline_before=False)
        if self.stack:
            top = self.stack[-1]
            raise EntityParseError(
                f"Can't find end of {_MDV2_NAMES.get(top.kind, top.kind)} entity at byte offset "
                f"{self._byte(top.source_index)}"
            )
        return self.out.text(), self.entities

    def _line_end(self, index: int) -> bool:
        return index >= len(self.text) or self.text[index] == "\n"

    def _close_quote(self, start: int, expandable: bool, *, newline_before: bool) -> None:
        end = self.out.pos - (1 if newline_before else 0)
        if end > start:
            kind = "expandable_blockquote" if expandable else "blockquote"
            self.entities.append({"type": kind, "offset": start, "length": end - start})

    def _reserved(self, i: int) -> int:
        text = self.text
        char = text[i]
        if char == "`":
            return self._code(i)
        if char == "[" or text.startswith("![", i):
            kind = "custom_emoji" if char == "!" else "text_link"
            self.stack.append(_OpenMd(kind, self.out.pos, i))
            return i + (2 if char == "!" else 1)
        if char == "]" and self.stack and self.stack[-1].kind in ("text_link", "custom_emoji"):
            return self._link_end(i)
        for token, kind in _MDV2_TOKENS:
            if not text.startswith(token, i):
                continue
            if kind == "underline" and self.stack and self.stack[-1].kind == "italic":
                # "_" closes italic first: "___x___" is italic+underline.
                continue
            if self.stack and self.stack[-1].kind == kind:
                top = self.stack.pop()
                length = self.out.pos - top.start
                if length > 0:
                    self.entities.append({"type": kind, "offset": top.start, "length": length})
                return i + len(token)
            if any(o.kind == kind for o in self.stack):
                break
            self.stack.append(_OpenMd(kind, self.out.pos, i))
            return i + len(token)
        raise EntityParseError(
            f"Character '{char}' is reserved and must be escaped with the preceding '\\'"
        )

    def _code(self, i: int) -> int:
        text = self.text
        n = len(text)
        is_pre = text.startswith("```", i)
        j = i + (3 if is_pre else 1)
        language = ""
        if is_pre:
            newline = text.find("\n", j)
            fence = text.find("```", j)
            if newline >= 0 and (fence < 0 or newline < fence):
                language = text[j:newline]
                j = newline + 1
        start = self.out.pos
        closing = "```" if is_pre else "`"
        while j < n:
            if text[j] == "\\" and j + 1 < n and 0 < ord(text[j + 1]) <= 126:
                self.out.add(text[j + 1])
                j += 2
                continue
            if text.startswith(closing, j):
                length = self.out.pos - start
                if length > 0:
                    entity: dict[str, Any] = {
                        "type": "pre" if is_pre else "code",
                        "offset": start,
                        "length": length,
                    }
                    if language:
                        entity["language"] = language
                    self.entities.append(entity)
                return j + len(closing)
            self.out.add(text[j])
            j += 1
        kind = "Pre" if is_pre else "Code"
        raise EntityParseError(f"Can't find end of {kind} entity at byte offset {self._byte(i)}")

    def _link_end(self, i: int) -> int:
        text = self.text
        n = len(text)
        top = self.stack.pop()
        j = i + 1
        if j >= n or text[j] != "(":
            if top.kind == "custom_emoji":
                raise EntityParseError(
                    f"Custom emoji entity must contain a tg://emoji URL at byte offset "
                    f"{self._byte(top.source_index)}"
                )
            return j  # "[text]" without a URL stays plain text
        url_chars: list[str] = []
        j += 1
        while j < n and text[j] != ")":
            if text[j] == "\\" and j + 1 < n and 0 < ord(text[j + 1]) <= 126:
                url_chars.append(text[j + 1])
                j += 2
                continue
            url_chars.append(text[j])
            j += 1
        if j >= n:
            raise EntityParseError(f"Can't find end of a URL at byte offset {self._byte(i + 1)}")
        url = "".join(url_chars)
        length = self.out.pos - top.start
        if length > 0:
            entity: dict[str, Any] = {"type": top.kind, "offset": top.start, "length": length}
            if top.kind == "custom_emoji":
                match = re.fullmatch(r"tg://emoji\?id=(\d+)", url)
                if match is None:
                    raise EntityParseError(
                        f"Custom emoji URL must have an emoji identifier at byte offset "
                        f"{self._byte(top.source_index)}"
                    )
                entity["custom_emoji_id"] = match.group(1)
            else:
                entity["url"] = url
            self.entities.append(entity)
        return j + 1


# --------------------------------------------------------------------------------------------
# Markdown (legacy)


class _MarkdownParser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.out = _Builder()
        self.entities: list[dict[str, Any]] = []

    def parse(self) -> tuple[str, list[dict[str, Any]]]:
        text = self.text
        n = len(text)
        i = 0
        while i < n:
            char = text[i]
            if char == "\\" and i + 1 < n and text[i + 1] in "_*`[":
                self.out.add(text[i + 1])
                i += 2
                continue
            if char not in "_*`[":
                self.out.add(char)
                i += 1
                continue
            begin = i
            start = self.out.pos
            if char == "[":
                close = text.find("]", i + 1)
                if close < 0:
                    raise self._unclosed(begin)
                inner = text[i + 1 : close]
                self.out.add(inner)
                i = close + 1
                if i < n and text[i] == "(":
                    url_end = text.find(")", i + 1)
                    if url_end < 0:
                        raise self._unclosed(begin)
                    url = text[i + 1 : url_end]
                    i = url_end + 1
                    if inner:
                        self.entities.append(
                            {
                                "type": "text_link",
                                "offset": start,
                                "length": utf16_len(inner),
                                "url": url,
                            }
                        )
                continue
            if text.startswith("```", i):
                close = text.find("```", i + 3)
                if close < 0:
                    raise self._unclosed(begin)
                inner = text[i + 3 : close]
                language = ""
                newline = inner.find("\n")
                if newline >= 0:
                    first = inner[:newline]
                    if first and " " not in first:
                        language = first
                        inner = inner[newline + 1 :]
                self.out.add(inner)
                if inner:
                    entity: dict[str, Any] = {
                        "type": "pre",
                        "offset": start,
                        "length": utf16_len(inner),
                    }
                    if language:
                        entity["language"] = language
                    self.entities.append(entity)
                i = close + 3
                continue
            close = text.find(char, i + 1)
            if close < 0:
                raise self._unclosed(begin)
            inner = text[i + 1 : close]
            kind = {"_": "italic", "*": "bold", "`": "code"}[char]
            self.out.add(inner)
            if inner:
                self.entities.append({"type": kind, "offset": start, "length": utf16_len(inner)})
            i = close + 1
        return self.out.text(), self.entities

    def _unclosed(self, begin: int) -> EntityParseError:
        return EntityParseError(
            f"Can't find end of the entity starting at byte offset {_byte_offset(self.text, begin)}"
        )
