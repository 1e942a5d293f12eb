"""Checks Bot API requests (and response objects) against the Bot API 10.1 description in
``tests/data/bot-api-10.1.json`` (``api.json`` of PaulSonOfLars/telegram-bot-api-spec, MIT).

Public API::

    check_request(method: str, params: Mapping[str, object]) -> list[str]
        Problems with one request, [] if it is fine.  Method names are case-insensitive.
        ``params`` may hold decoded JSON values or, as PTB sends them, form fields (every value a
        string; non-string values JSON-encoded) - each value is decoded according to the type the
        spec declares for it.
    default_spec() -> BotApiSpec                      the cached spec loaded from DEFAULT_SPEC_PATH
    BotApiSpec.load(path) / BotApiSpec(data)
    BotApiSpec.find_method(name) -> MethodSpec | None
    BotApiSpec.parse_request(method, params) -> tuple[dict[str, Any], list[str]]
        the decoded parameters and the problems
    BotApiSpec.check_object(type_name, value, path="") -> list[str]
        checks a JSON object (e.g. a Message the fake server returns) against a type

What is checked: unknown method; unknown parameter / object field; missing required parameter or
field (also "Required if X is not specified"); types Integer / Float / String / Boolean / True /
InputFile / Array of X / object types (recursively, abstract types through their subtypes);
length limits written in descriptions ("1-64 bytes" in UTF-8, "0-200 characters" in code
points, "1-4096 characters after entities parsing" after parsing the text with its parse_mode
and stripping surrounding whitespace, as Telegram does); "Values between 1-100"; "must be one of";
parse_mode is HTML / MarkdownV2 / Markdown and the text parses with it; inline keyboard buttons
have non-empty text and exactly one action field, at most 8 buttons per row and 100 in all;
BotCommand.command is 1-32 of [a-z0-9_].
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakeapi.formatting import (
    EntityParseError,
    UnsupportedParseModeError,
    normalize_parse_mode,
    parse_formatted,
)

__all__ = [
    "DEFAULT_SPEC_PATH",
    "BotApiSpec",
    "FieldSpec",
    "MethodSpec",
    "TypeSpec",
    "UploadedFile",
    "check_request",
    "default_spec",
]

DEFAULT_SPEC_PATH = Path(__file__).resolve().parent.parent / "data" / "bot-api-10.1.json"

MAX_BUTTONS_PER_ROW = 8
MAX_BUTTONS = 100

_LENGTH_RE = re.compile(r"(\d+)-(\d+) (characters|bytes)")
_AFTER_ENTITIES_RE = re.compile(r"after entit(?:y|ies) parsing")
_INT_RANGE_RE = re.compile(r"Values between (\d+)-(\d+) are accepted")
_CHOICES_RE = re.compile(r"must be one of (.*?)(?:\.\s|\.$|$)", re.IGNORECASE)
_REQUIRED_IF_RE = re.compile(r"required if (\w+) (?:is not|isn't) specified", re.IGNORECASE)
_DISCRIMINATOR_RE = re.compile(r"(?:must be|always) [“\"]?([A-Za-z_]+)[”\"]?")
_BOT_COMMAND_RE = re.compile(r"[a-z0-9_]{1,32}")
_INLINE_BUTTON_PLAIN_FIELDS = frozenset({"text", "icon_custom_emoji_id", "style"})


@dataclass(frozen=True)
class UploadedFile:
    """A file part of a multipart request (what an ``InputFile`` parameter may carry)."""

    filename: str | None
    content_type: str | None
    size: int
    data: bytes = field(default=b"", repr=False, compare=False)


@dataclass(frozen=True)
class FieldSpec:
    """One parameter of a method or one field of a type, with limits read from its text."""

    name: str
    types: tuple[str, ...]
    required: bool
    description: str
    length: tuple[int, int, str] | None = None
    after_entities: bool = False
    int_range: tuple[int, int] | None = None
    choices: tuple[str, ...] | None = None
    required_unless: str | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FieldSpec:
        description = str(data.get("description", ""))
        types = tuple(str(t) for t in data.get("types", ()))
        length: tuple[int, int, str] | None = None
        choices: tuple[str, ...] | None = None
        if "String" in types:
            found = _LENGTH_RE.findall(description)
            if len(found) == 1:
                length = (int(found[0][0]), int(found[0][1]), found[0][2])
            match = _CHOICES_RE.search(description)
            if match:
                quoted = re.findall(r"\"([^\"]*)\"|“([^”]*)”", match.group(1))
                values = tuple(a or b for a, b in quoted)
                choices = values or None
        int_range: tuple[int, int] | None = None
        if "Integer" in types:
            found_range = _INT_RANGE_RE.findall(description)
            if len(found_range) == 1:
                int_range = (int(found_range[0][0]), int(found_range[0][1]))
        required_if = _REQUIRED_IF_RE.search(description)
        return cls(
            name=str(data["name"]),
            types=types,
            required=bool(data.get("required", False)),
            description=description,
            length=length,
            after_entities=bool(_AFTER_ENTITIES_RE.search(description)),
            int_range=int_range,
            choices=choices,
            required_unless=required_if.group(1) if required_if else None,
        )


@dataclass(frozen=True)
class MethodSpec:
    name: str
    fields: Mapping[str, FieldSpec]
    returns: tuple[str, ...]


@dataclass(frozen=True)
class TypeSpec:
    name: str
    fields: Mapping[str, FieldSpec]
    subtypes: tuple[str, ...]
    discriminator: tuple[str, str] | None


def _fields(data: Mapping[str, Any]) -> dict[str, FieldSpec]:
    return {str(f["name"]): FieldSpec.from_json(f) for f in data.get("fields", ())}


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        return "Integer"
    if isinstance(value, float):
        return "Float"
    if isinstance(value, str):
        return "String"
    if isinstance(value, list):
        return "Array"
    if isinstance(value, dict):
        return "Object"
    return type(value).__name__


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


@dataclass
class _Result:
    value: Any
    problems: list[str]
    kind_matched: bool


class BotApiSpec:
    """The Bot API description, indexed for checking."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.version: str = str(data.get("version", ""))
        self.release_date: str = str(data.get("release_date", ""))
        self.methods: dict[str, MethodSpec] = {}
        self._methods_lower: dict[str, MethodSpec] = {}
        for name, method in data.get("methods", {}).items():
            spec = MethodSpec(
                name=str(name),
                fields=_fields(method),
                returns=tuple(str(r) for r in method.get("returns", ())),
            )
            self.methods[spec.name] = spec
            self._methods_lower[spec.name.lower()] = spec
        self.types: dict[str, TypeSpec] = {}
        for name, type_data in data.get("types", {}).items():
            fields = _fields(type_data)
            discriminator: tuple[str, str] | None = None
            if fields:
                first = next(iter(fields.values()))
                match = _DISCRIMINATOR_RE.search(first.description)
                if first.required and first.types == ("String",) and match:
                    discriminator = (first.name, match.group(1))
            self.types[str(name)] = TypeSpec(
                name=str(name),
                fields=fields,
                subtypes=tuple(str(s) for s in type_data.get("subtypes", ())),
                discriminator=discriminator,
            )

    @classmethod
    def load(cls, path: Path | str = DEFAULT_SPEC_PATH) -> BotApiSpec:
        with open(path, encoding="utf-8") as handle:
            return cls(json.load(handle))

    def find_method(self, name: str) -> MethodSpec | None:
        """The method spec; Telegram method names are case-insensitive."""
        return self._methods_lower.get(name.lower())

    # ---------------------------------------------------------------------------------------
    # requests

    def check_request(self, method: str, params: Mapping[str, object]) -> list[str]:
        """Problems with one request; [] if it is fine."""
        return self.parse_request(method, params)[1]

    def parse_request(
        self, method: str, params: Mapping[str, object]
    ) -> tuple[dict[str, Any], list[str]]:
        """Decode ``params`` by the declared types and check them."""
        spec = self.find_method(method)
        if spec is None:
            return dict(params), [f"unknown method {method!r}"]
        decoded: dict[str, Any] = {}
        problems: list[str] = []
        for name, raw in params.items():
            field_spec = spec.fields.get(name)
            if field_spec is None:
                problems.append(f"{name}: unknown parameter of {spec.name}")
                decoded[name] = raw
                continue
            result = self._value(field_spec.types, raw, name, form=True)
            decoded[name] = result.value
            problems.extend(result.problems)
        for name, field_spec in spec.fields.items():
            if field_spec.required and name not in params:
                problems.append(f"{name}: required parameter of {spec.name} is missing")
        problems.extend(self._constraints(spec.fields, decoded, "", spec.name))
        return decoded, problems

    # ---------------------------------------------------------------------------------------
    # objects

    def check_object(self, type_name: str, value: object, path: str = "") -> list[str]:
        """Problems of a decoded JSON value against a type (or type expression)."""
        return self._value((type_name,), value, path or type_name, form=False).problems

    def _value(self, types: Sequence[str], value: object, path: str, *, form: bool) -> _Result:
        results: list[_Result] = []
        for type_name in types:
            result = self._one(type_name, value, path, form=form)
            if result.kind_matched and not result.problems:
                return result
            results.append(result)
        matched = [r for r in results if r.kind_matched]
        if matched:
            return min(matched, key=lambda r: len(r.problems))
        expected = " or ".join(types)
        return _Result(value, [f"{path}: expected {expected}, got {_kind(value)}"], False)

    def _one(self, type_name: str, value: object, path: str, *, form: bool) -> _Result:
        if type_name.startswith("Array of "):
            return self._array(type_name[len("Array of ") :], value, path, form=form)
        if type_name == "Integer":
            if isinstance(value, int) and not isinstance(value, bool):
                return _Result(value, [], True)
            if form and isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
                return _Result(int(value), [], True)
            return _Result(value, [], False)
        if type_name == "Float":
            if isinstance(value, int | float) and not isinstance(value, bool):
                return _Result(value, [], True)
            if form and isinstance(value, str):
                try:
                    return _Result(float(value), [], True)
                except ValueError:
                    pass
            return _Result(value, [], False)
        if type_name == "String":
            return _Result(value, [], isinstance(value, str))
        if type_name in ("Boolean", "True"):
            if isinstance(value, bool):
                ok = value or type_name == "Boolean"
                return _Result(value, [] if ok else [f"{path}: must be True"], True)
            if form and isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
                decoded = value.lower() in ("true", "1")
                return self._one(type_name, decoded, path, form=False)
            return _Result(value, [], False)
        if type_name == "InputFile":
            return _Result(value, [], isinstance(value, str | UploadedFile))
        type_spec = self.types.get(type_name)
        if type_spec is None:
            return _Result(value, [f"{path}: type {type_name} is not in the spec"], True)
        if form and isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError as exc:
                return _Result(value, [f"{path}: can't parse {type_name} JSON: {exc}"], True)
        if type_spec.subtypes:
            return self._abstract(type_spec, value, path)
        if not isinstance(value, dict):
            return _Result(value, [], False)
        return self._object(type_spec, value, path)

    def _array(self, inner: str, value: object, path: str, *, form: bool) -> _Result:
        if form and isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError as exc:
                return _Result(value, [f"{path}: can't parse JSON array: {exc}"], True)
        if not isinstance(value, list):
            return _Result(value, [], False)
        items: list[Any] = []
        problems: list[str] = []
        for index, item in enumerate(value):
            result = self._value((inner,), item, f"{path}[{index}]", form=False)
            items.append(result.value)
            problems.extend(result.problems)
        return _Result(items, problems, True)

    def _abstract(self, type_spec: TypeSpec, value: object, path: str) -> _Result:
        candidates = list(type_spec.subtypes)
        if isinstance(value, dict):
            discriminated = [
                name
                for name in candidates
                if (sub := self.types.get(name)) is not None
                and sub.discriminator is not None
                and value.get(sub.discriminator[0]) == sub.discriminator[1]
            ]
            if discriminated:
                candidates = discriminated
            else:
                keys = {
                    sub.discriminator
                    for name in candidates
                    if (sub := self.types.get(name)) is not None and sub.discriminator
                }
                field_names = {key for key, _ in keys}
                if len(keys) == len(candidates) and len(field_names) == 1:
                    field_name = field_names.pop()
                    allowed = ", ".join(sorted(v for _, v in keys))
                    return _Result(
                        value,
                        [
                            f"{_join(path, field_name)}: {value.get(field_name)!r} is not one "
                            f"of the {type_spec.name} kinds ({allowed})"
                        ],
                        True,
                    )
        return self._value(candidates, value, path, form=False)

    def _object(self, type_spec: TypeSpec, value: Mapping[str, Any], path: str) -> _Result:
        if not type_spec.fields:
            return _Result(dict(value), [], True)
        decoded: dict[str, Any] = {}
        problems: list[str] = []
        for key, item in value.items():
            field_spec = type_spec.fields.get(key)
            if field_spec is None:
                problems.append(f"{_join(path, key)}: unknown field of {type_spec.name}")
                decoded[key] = item
                continue
            result = self._value(field_spec.types, item, _join(path, key), form=False)
            decoded[key] = result.value
            problems.extend(result.problems)
        for name, field_spec in type_spec.fields.items():
            if field_spec.required and name not in value:
                problems.append(
                    f"{_join(path, name)}: required field of {type_spec.name} is missing"
                )
        problems.extend(self._constraints(type_spec.fields, decoded, path, type_spec.name))
        problems.extend(self._special(type_spec.name, decoded, path))
        return _Result(decoded, problems, True)

    # ---------------------------------------------------------------------------------------
    # limits

    def _constraints(
        self,
        fields: Mapping[str, FieldSpec],
        values: Mapping[str, Any],
        path: str,
        owner: str,
    ) -> list[str]:
        problems: list[str] = []
        for name, field_spec in fields.items():
            where = _join(path, name)
            if name not in values:
                other = field_spec.required_unless
                if other is not None and other not in values and not field_spec.required:
                    problems.append(f"{where}: required by {owner} when {other} is not given")
                continue
            value = values[name]
            is_parse_mode = name == "parse_mode" or name.endswith("_parse_mode")
            if is_parse_mode and isinstance(value, str):
                try:
                    normalize_parse_mode(value)
                except UnsupportedParseModeError:
                    problems.append(
                        f"{where}: unsupported parse_mode {value!r} (HTML, MarkdownV2 or Markdown)"
                    )
            if isinstance(value, str):
                problems.extend(self._string_limits(fields, field_spec, values, where))
            if (
                field_spec.int_range is not None
                and isinstance(value, int)
                and not isinstance(value, bool)
            ):
                low, high = field_spec.int_range
                if not low <= value <= high:
                    problems.append(f"{where}: must be between {low} and {high}, got {value}")
        return problems

    def _string_limits(
        self,
        fields: Mapping[str, FieldSpec],
        field_spec: FieldSpec,
        values: Mapping[str, Any],
        where: str,
    ) -> list[str]:
        value = values[field_spec.name]
        assert isinstance(value, str)
        problems: list[str] = []
        if field_spec.choices is not None and value not in field_spec.choices:
            allowed = ", ".join(repr(c) for c in field_spec.choices)
            problems.append(f"{where}: must be one of {allowed}, got {value!r}")
        if field_spec.length is None:
            return problems
        low, high, unit = field_spec.length
        suffix = ""
        if unit == "bytes":
            size = len(value.encode("utf-8"))
        elif field_spec.after_entities:
            suffix = " after entities parsing"
            mode_name = f"{field_spec.name}_parse_mode"
            if mode_name not in fields:
                mode_name = "parse_mode"
            entities_name = f"{field_spec.name}_entities"
            if entities_name not in fields:
                entities_name = "entities"
            mode = values.get(mode_name)
            entities = values.get(entities_name)
            try:
                formatted = parse_formatted(
                    value,
                    mode if isinstance(mode, str) else None,
                    entities if isinstance(entities, list) else None,
                )
            except UnsupportedParseModeError:
                return problems  # reported for the parse_mode field
            except EntityParseError as exc:
                problems.append(f"{where}: can't parse entities: {exc}")
                return problems
            size = len(formatted.text)
        else:
            size = len(value)
        if not low <= size <= high:
            problems.append(f"{where}: must be {low}-{high} {unit}{suffix}, got {size}")
        return problems

    def _special(self, type_name: str, value: Mapping[str, Any], path: str) -> list[str]:
        problems: list[str] = []
        if type_name == "InlineKeyboardButton":
            text = value.get("text")
            if isinstance(text, str) and not text.strip():
                problems.append(f"{_join(path, 'text')}: button text must not be empty")
            actions = sorted(k for k in value if k not in _INLINE_BUTTON_PLAIN_FIELDS)
            if len(actions) != 1:
                problems.append(
                    f"{path}: an inline keyboard button needs exactly one of url, callback_data, "
                    f"... (got {actions or 'none'})"
                )
        elif type_name == "InlineKeyboardMarkup":
            rows = value.get("inline_keyboard")
            if isinstance(rows, list):
                total = 0
                for index, row in enumerate(rows):
                    if isinstance(row, list):
                        total += len(row)
                        if len(row) > MAX_BUTTONS_PER_ROW:
                            problems.append(
                                f"{path}.inline_keyboard[{index}]: {len(row)} buttons in a row, "
                                f"at most {MAX_BUTTONS_PER_ROW}"
                            )
                if total > MAX_BUTTONS:
                    problems.append(
                        f"{path}.inline_keyboard: {total} buttons, at most {MAX_BUTTONS}"
                    )
        elif type_name == "BotCommand":
            command = value.get("command")
            if isinstance(command, str) and not _BOT_COMMAND_RE.fullmatch(command):
                problems.append(
                    f"{_join(path, 'command')}: {command!r} must be 1-32 lowercase English "
                    "letters, digits and underscores"
                )
        return problems


@functools.cache
def default_spec() -> BotApiSpec:
    """The spec in ``tests/data/bot-api-10.1.json``, loaded once."""
    return BotApiSpec.load(DEFAULT_SPEC_PATH)


def check_request(method: str, params: Mapping[str, object]) -> list[str]:
    """Problems with a request to ``method`` with ``params``; [] if it is fine."""
    return default_spec().check_request(method, params)
