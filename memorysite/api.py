"""API plumbing shared by every app: error shape, strict input serializers, field helpers.

Every 4xx body has a human `detail` and, for validation errors, `errors` keyed by the field's
dotted path (`positions.1.size`), each a list of rules the value broke:
    {"detail": "recent_trades_k: must be between 1 and 30",
     "errors": {"recent_trades_k": ["must be between 1 and 30"]}}
"""

from __future__ import annotations

import datetime
import sys
from collections.abc import Mapping, Sequence

from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import ProhibitNullCharactersValidator
from django.db import models
from django.http import Http404
from drf_spectacular.extensions import OpenApiSerializerExtension, OpenApiSerializerFieldExtension
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, serializers, status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response
from rest_framework.views import APIView as DrfAPIView
from rest_framework.views import exception_handler as drf_exception_handler

from memorysite.idempotency import IdempotentAutoSchema, IdempotentViewMixin
from memorysite.json_body import NOT_FINITE
from memorysite.validators import validate_document_text

NOT_FOUND = "Not found."
NO_CREDENTIALS = (
    "Authorization header missing: send `Authorization: Token <key>` with an account token "
    "or a deployment's runner token (`rt_…`)"
)
UNKNOWN_FIELD = "unknown field; accepted fields are: {accepted}"


def flatten_errors(detail, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail as {dotted.path: [messages]} ("non_field_errors" keeps its name)."""
    flat: dict[str, list[str]] = {}
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            path = f"{prefix}.{key}" if prefix and key != "non_field_errors" else (prefix or str(key))
            for sub_path, messages in flatten_errors(value, path).items():
                flat.setdefault(sub_path, []).extend(messages)
    elif isinstance(detail, list) and detail and all(isinstance(item, str) for item in detail):
        flat[prefix or "non_field_errors"] = [str(item) for item in detail]
    elif isinstance(detail, list):
        for index, value in enumerate(detail):
            if value:
                flat.update(flatten_errors(value, f"{prefix}.{index}" if prefix else str(index)))
    else:
        flat[prefix or "non_field_errors"] = [str(detail)]
    return flat


def exception_handler(exc, context):
    if isinstance(exc, RequestDataTooBig):
        return Response({"detail": "request body: too large"}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(NOT_FOUND)
    if isinstance(exc, exceptions.NotAuthenticated):  # no credentials at all (a wrong header says what is wrong)
        exc.detail = exceptions.ErrorDetail(NO_CREDENTIALS, code=exc.default_code)  # keeps its WWW-Authenticate
    if isinstance(exc, DjangoValidationError):  # raised by services after the serializer passed
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(exc, exceptions.ValidationError):
        response.data = validation_body(exc.detail)
    return response


def validation_body(detail) -> dict:
    """The 400 body of a validation error: `detail` summarises `errors` ("field: rule; …")."""
    errors = flatten_errors(detail)
    summary = "; ".join(f"{field}: {', '.join(messages)}" for field, messages in errors.items())
    return {"detail": summary, "errors": errors}


class Conflict(exceptions.APIException):
    """A 409 whose body says more than `detail` (e.g. the prior rows' ids): sent as given, by REST and MCP alike."""

    status_code = status.HTTP_409_CONFLICT

    def __init__(self, body: dict):
        super().__init__(body["detail"])
        self.detail = body  # as given: DRF would turn every leaf into a string


def validated(serializer_class, data, **kwargs) -> dict:
    """The serializer's validated data, or its ValidationError (a 400 naming each field and rule)."""
    serializer = serializer_class(data=data, **kwargs)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class ErrorBody(serializers.Serializer):
    """The body of every 4xx answer (the schema's `ErrorBody`)."""

    detail = serializers.CharField(
        help_text="What went wrong, for a person: for a 400, each field's dotted path and the rule it broke "
        '("positions.1.size: must be > 0; tick_at: must include a timezone offset").'
    )
    errors = serializers.DictField(  # type: ignore[assignment]  # the body's key, named like a Serializer attribute
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="400s and field-level 409s only: the rules each field broke, keyed by its dotted path "
        "(`positions.1.size`; `non_field_errors` for the body as a whole). A 409 may carry more keys "
        "(e.g. the prior rows' ids).",
    )
    request_id = serializers.CharField(
        help_text="The request's id, also in the `X-Request-ID` response header: the one the client sent in "
        "`X-Request-ID` (1-128 letters, digits or `._:-`), else one the service made. Quote it when reporting "
        "the error: the service's log lines of the request carry it."
    )


# A 4xx documented without a body gets ErrorBody; an authenticated operation that documents no 401
# or 429 gets them (every token request can be refused or throttled).
UNAUTHORIZED = (
    "No usable credentials: `detail` says whether the Authorization header was missing, lacked the "
    "`Token ` prefix, or held an unknown, revoked or expired token."
)
_THROTTLED = (
    "Too many requests with this token in the current window: wait the `Retry-After` header's seconds, "
    "then send the request again."
)
_KEY_REUSED = "The `Idempotency-Key` was already used with another body or path, or its first request is still running."
# Path parameters, described once for every operation that takes them.
PATH_PARAMETERS = {
    "deployment_id": "The deployment's id (`id` from `POST /api/v1/deployments/` or `list_deployments`).",
    "skill_id": "The skill's id (`id` from `POST /api/v1/skills/` or `list_skills`).",
    "snapshot_id": "The tick's snapshot id (`snapshot_id` from `post_tick`), a UUID.",
    "token_id": "The token's id (`id` from its creation or its list).",
    "fact_id": "The fact's id (`id` from `list_facts`).",
    "document_id": "The document's id (`id` from `list_documents` or `index_document`).",
    "experiment_id": "The experiment's id (`id` from `record_experiment` or `list_experiments`).",
    "hypothesis_id": "The hypothesis's id, e.g. `H1` (from `list_hypotheses` or an experiment's assessment).",
    "market_id": "The market's id (`id` from `list_markets` or a stored signal).",
    "name": "The chat tool's name, as listed by `list_chat_tools`.",
}


class ApiAutoSchema(IdempotentAutoSchema):
    """The schema of every API view: every 4xx has the error body; token endpoints document 401 and 429
    (and POSTs the 409 of a reused Idempotency-Key). Its text comes from `extend_schema` only: docstrings
    are written for maintainers (SPECTACULAR_SETTINGS' DISABLE_DOCSTRING_DESCRIPTIONS)."""

    def _resolve_path_parameters(self, variables):
        parameters = super()._resolve_path_parameters(variables)
        for parameter in parameters:
            if not parameter.get("description") and parameter["name"] in PATH_PARAMETERS:
                parameter["description"] = PATH_PARAMETERS[parameter["name"]]
        return parameters

    def _get_response_for_code(self, serializer, status_code, media_types=None, direction="response"):
        code = int(status_code)
        if 200 <= code < 300:  # a success without its own words reads as the operation's summary
            described = serializer if isinstance(serializer, OpenApiResponse) else OpenApiResponse(serializer)
            if not described.description and self.get_summary():
                serializer = OpenApiResponse(described.response, f"Success: {self.get_summary()}.", described.examples)
        if 400 <= code < 500:
            described = serializer if isinstance(serializer, OpenApiResponse) else OpenApiResponse(serializer)
            if described.response is None:
                serializer = OpenApiResponse(ErrorBody, described.description, described.examples)
        return super()._get_response_for_code(serializer, status_code, media_types, direction)

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction == "response" and self.view.authentication_classes and self.get_auth():
            if "401" not in responses:
                responses["401"] = self._get_response_for_code(OpenApiResponse(description=UNAUTHORIZED), "401")
            if "409" not in responses and self.method == "POST":
                responses["409"] = self._get_response_for_code(OpenApiResponse(description=_KEY_REUSED), "409")
            if "429" not in responses and self.view.throttle_classes:
                throttled = OpenApiResponse(description=_THROTTLED)
                responses["429"] = {
                    **self._get_response_for_code(throttled, "429"),
                    "headers": {"Retry-After": RETRY_AFTER_HEADER},
                }
        return dict(sorted(responses.items()))


_PLACEHOLDER_ENUMS = {"#/components/schemas/BlankEnum": None, "#/components/schemas/NullEnum": {"type": "null"}}


def inline_null_enums(result, generator, request, public):
    """drf-spectacular names `null` and `""` as enum components of their own (`NullEnum`, `BlankEnum`), which
    generated clients turn into types of those names: say `{"type": "null"}` in place, and drop the blank
    (no choice of ours is ever blank: the database constraints refuse it)."""
    stack = [result["components"]["schemas"]]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("oneOf"), list) and any(
                part.get("$ref") in _PLACEHOLDER_ENUMS for part in node["oneOf"]
            ):
                parts = [_PLACEHOLDER_ENUMS.get(part.get("$ref"), part) for part in node["oneOf"]]
                node["oneOf"] = [part for part in parts if part is not None]
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    for ref in _PLACEHOLDER_ENUMS:
        result["components"]["schemas"].pop(ref.rsplit("/", 1)[1], None)
    return result


def describe_parameter_schemas(result, generator, request, public):
    """A parameter's description on its schema too: generated clients (openapi-python-client) document an
    argument from its schema, not from the parameter."""
    for operations in result["paths"].values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("description") and "description" not in parameter["schema"]:
                    parameter["schema"]["description"] = parameter["description"]
    return result


RETRY_AFTER_HEADER = {
    "description": "Seconds to wait before sending the request again (a whole number).",
    "schema": {"type": "integer", "minimum": 0},
}


class APIView(IdempotentViewMixin, DrfAPIView):
    """The base of every API view: DRF's APIView with `Idempotency-Key` support on POST
    (memorysite/idempotency.py), documented in the schema (ApiAutoSchema)."""

    schema = ApiAutoSchema()

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        # A path parameter holding NUL names nothing the database can store: not found, not a query error.
        if any("\x00" in value for value in kwargs.values() if isinstance(value, str)):
            raise exceptions.NotFound(NOT_FOUND)


class StrictSerializer(serializers.Serializer):
    """Rejects fields it does not declare (including read-only ones such as ids and owners)."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            accepted = sorted(name for name, field in self.fields.items() if not field.read_only)
            unknown = sorted(set(data) - set(accepted))
            if unknown:
                message = UNKNOWN_FIELD.format(accepted=", ".join(accepted))
                raise serializers.ValidationError({name: [message] for name in unknown})
        return super().to_internal_value(data)


# Text a trader or runner sends may hold newlines and tabs, never other control characters or
# bidirectional overrides (they can hide text from the trader reviewing it in the browser).
_FORBIDDEN_CHARACTERS = (
    {chr(c) for c in range(0x20) if chr(c) not in "\n\t\r"}
    | {chr(0x7F)}
    | {chr(c) for c in (*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))}
    | {"\u061c", "\u200e", "\u200f"}  # the implicit bidirectional marks (ALM, LRM, RLM)
)
CONTROL_CHARACTERS = "must not contain control characters or bidirectional overrides"


class NoInput(StrictSerializer):
    """The body of an action that takes no input: empty, or `{}` (any field is a 400 naming it)."""


def reject_control_characters(value: str) -> None:
    if any(char in _FORBIDDEN_CHARACTERS for char in value):
        raise serializers.ValidationError(CONTROL_CHARACTERS)


NUL_IN_JSON = "must not contain NUL characters (\\u0000): the database cannot store them"


def reject_nul_in_json(value) -> None:
    """Free-form JSON (metadata, contexts, results) is stored as jsonb, which refuses \\u0000 in any
    string or key: refuse it as input (a 400), rather than fail at the insert (a 500)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise serializers.ValidationError(NUL_IN_JSON)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def text(*, max_length: int, multiline: bool = False, **kwargs) -> serializers.CharField:
    """A text field with length and character rules stated in its error messages."""
    validators = [reject_control_characters]
    if not multiline:
        validators.append(_reject_line_breaks)
    return _TextField(
        max_length=max_length,
        validators=validators,
        error_messages={
            "max_length": f"must be at most {max_length} characters",
            "blank": "must not be blank",
            "invalid": "must be a string",
        },
        **kwargs,
    )


def document_text(*, max_length: int, **kwargs) -> serializers.CharField:
    """A document's text (recall): any text but NUL, line breaks, tabs, control and bidi characters
    included; the short prompt fields keep ``text()``'s rules."""
    return _TextField(
        max_length=max_length,
        validators=[validate_document_text],
        error_messages={
            "max_length": f"must be at most {max_length} characters",
            "blank": "must not be blank",
            "invalid": "must be a string",
        },
        **kwargs,
    )


class _TextField(serializers.CharField):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # DRF's own NUL check would repeat what reject_control_characters (validate_document_text) already says.
        self.validators = [v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)]

    def to_internal_value(self, data):
        # DRF turns 12 into "12"; a JSON number where text belongs is a wrong type, not text.
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


def choice(
    values: type[models.TextChoices] | Sequence[str], *, echo_input: bool = False, **kwargs
) -> serializers.ChoiceField:
    """A choice field whose error lists the allowed values (and, with echo_input, what was sent).

    `values` is a Django TextChoices class (its labels document the schema) or a sequence of values."""
    choices: list[str] | list[tuple[str, str]]
    if isinstance(values, type):
        allowed, choices = list(values.values), values.choices
    else:
        allowed = choices = list(values)
    rule = f"must be one of {', '.join(allowed)}" + ("; got {input!r}" if echo_input else "")
    return serializers.ChoiceField(choices=choices, error_messages={"invalid_choice": rule}, **kwargs)


def boolean(**kwargs) -> serializers.BooleanField:
    return serializers.BooleanField(error_messages={"invalid": "must be true or false"}, **kwargs)


def _reject_line_breaks(value: str) -> None:
    if "\n" in value or "\r" in value:
        raise serializers.ValidationError("must be a single line")


INTEGER_COLUMN_MAX = 2**31 - 1  # PostgreSQL's integer (Django's IntegerField, PositiveIntegerField)


def bounded_int(low: int, high: int | None = None, **kwargs) -> serializers.IntegerField:
    rule = f"must be between {low} and {high}" if high is not None else f"must be at least {low}"
    return serializers.IntegerField(
        min_value=low,
        max_value=high,  # type: ignore[arg-type]  # None: no maximum (DRF's default); the stubs say int
        error_messages={"min_value": rule, "max_value": rule, "invalid": f"must be an integer; {rule}"},
        **kwargs,
    )


class NumberField(serializers.Field):
    """A JSON number (not a string or boolean), finite, with an optional lower bound.

    Returns the number as sent, so stored payloads keep the runner's own values.
    """

    def __init__(self, *, greater_than=None, at_least=None, at_most=None, **kwargs):
        super().__init__(**kwargs)
        self.greater_than = greater_than
        self.at_least = at_least
        self.at_most = at_most

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail_rule("must be a number")
        if not abs(data) <= sys.float_info.max:  # inf, NaN, or an integer beyond a double (400 digits)
            self.fail_rule(NOT_FINITE)
        if self.greater_than is not None and not data > self.greater_than:
            self.fail_rule(f"must be > {self.greater_than}")
        if self.at_least is not None and not data >= self.at_least:
            self.fail_rule(f"must be >= {self.at_least}")
        if self.at_most is not None and not data <= self.at_most:
            self.fail_rule(f"must be <= {self.at_most:g}")
        return data

    def to_representation(self, value):
        return value

    def fail_rule(self, rule: str):
        raise serializers.ValidationError(rule)


class AwareDateTimeField(serializers.DateTimeField):
    """ISO-8601 with an explicit UTC offset; returned in UTC. Naive timestamps are refused."""

    NAIVE = "must include a timezone offset, e.g. 2026-06-04T10:00:00Z"

    def __init__(self, **kwargs):
        super().__init__(
            error_messages={"invalid": "must be an ISO-8601 date-time with a timezone offset"},
            **kwargs,
        )

    def to_internal_value(self, value):
        if isinstance(value, str):
            try:
                parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                self.fail("invalid", format="ISO-8601")
            if parsed.tzinfo is None:
                raise serializers.ValidationError(self.NAIVE)
            return parsed.astimezone(datetime.UTC)
        self.fail("invalid", format="ISO-8601")


class StrictSerializerSchema(OpenApiSerializerExtension):
    """A strict serializer's request body says what it enforces: no property beyond those listed."""

    target_class = StrictSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_basic_serializer(self.target, direction)
        if direction == "request":
            schema["additionalProperties"] = False
        return schema


class NumberFieldSchema(OpenApiSerializerFieldExtension):
    """Documents NumberField as a JSON number with its bounds (OpenAPI 3.1 keywords)."""

    target_class = NumberField

    def map_serializer_field(self, auto_schema, direction):
        schema: dict = {"type": "number"}
        if self.target.greater_than is not None:
            schema["exclusiveMinimum"] = self.target.greater_than
        if self.target.at_least is not None:
            schema["minimum"] = self.target.at_least
        if self.target.at_most is not None:
            schema["maximum"] = self.target.at_most
        return schema


# -- pagination ------------------------------------------------------------------------------------


PAGE_MAX_LIMIT = 500
OFFSET_MAX = 2**63 - 1  # PostgreSQL's OFFSET is a bigint


class PageQuery(StrictSerializer):
    """The pagination's query parameters; a list view's own query serializer extends it."""

    limit = bounded_int(
        1, PAGE_MAX_LIMIT, required=False, help_text=f"Items per page (1-{PAGE_MAX_LIMIT}; default 100)."
    )
    offset = bounded_int(0, OFFSET_MAX, required=False, help_text="How many items to skip (default 0).")


class Page(LimitOffsetPagination):
    """`?limit=&offset=`, refused with a 400 naming the parameter when out of range (DRF's own falls
    back to the defaults on a negative, empty or malformed value)."""

    default_limit = 100
    max_limit = PAGE_MAX_LIMIT

    def get_limit(self, request):
        return self._query(request).get("limit", self.default_limit)

    def get_offset(self, request):
        return self._query(request).get("offset", 0)

    def _query(self, request) -> dict:
        names = (self.limit_query_param, self.offset_query_param)
        query = PageQuery(data={name: request.query_params[name] for name in names if name in request.query_params})
        query.is_valid(raise_exception=True)
        return query.validated_data

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        bounds = {self.limit_query_param: (1, self.max_limit), self.offset_query_param: (0, OFFSET_MAX)}
        for parameter in parameters:
            low, high = bounds[parameter["name"]]
            parameter["schema"].update(minimum=low, maximum=high)
        return parameters

    def get_paginated_response_schema(self, schema):
        # DRF writes OpenAPI 3.0's `nullable`; the schema is 3.1, where null is a type.
        paginated = super().get_paginated_response_schema(schema)
        for link in ("next", "previous"):
            field = paginated["properties"][link]
            field.pop("nullable", None)
            field["type"] = ["string", "null"]
        for name, description in PAGE_FIELDS.items():
            paginated["properties"][name]["description"] = description
        return paginated


PAGE_FIELDS = {
    "count": "How many items all the pages hold together.",
    "next": "The URL of the next page (same query, `offset` + `limit`), or null on the last page.",
    "previous": "The URL of the previous page, or null on the first page.",
    "results": "This page's items, in the order the operation states.",
}


def paginated(view, queryset, serializer_class):
    """One page of `queryset` for a list view whose pagination_class is Page."""
    paginator = view.pagination_class()
    page = paginator.paginate_queryset(queryset, view.request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)
