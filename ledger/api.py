"""REST views of the ledger: validate, call one service or selector, serialize."""

from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from ledger import selectors, services
from ledger.serializers import (
    DeploymentCreateInput,
    DeploymentOutput,
    SkillCreateInput,
    SkillOutput,
    SkillVersionInput,
    SkillVersionOutput,
    TokenInput,
    TokenOutput,
)

BAD_CREDENTIALS = "unable to log in with these credentials"

_ERRORS = {
    400: OpenApiResponse(description="Invalid input: `detail` names each field and the rule it broke."),
    401: OpenApiResponse(description="Missing or invalid token."),
    404: OpenApiResponse(description="No such object among yours."),
    413: OpenApiResponse(description="Body larger than 1 MiB."),
    415: OpenApiResponse(description="Content-Type is not application/json."),
}


class Page(LimitOffsetPagination):
    default_limit = 100
    max_limit = 500

    def get_paginated_response_schema(self, schema):
        # DRF writes OpenAPI 3.0's `nullable`; the schema is 3.1, where null is a type.
        paginated = super().get_paginated_response_schema(schema)
        for link in ("next", "previous"):
            field = paginated["properties"][link]
            field.pop("nullable", None)
            field["type"] = ["string", "null"]
        return paginated


def _paginated(view: APIView, queryset, serializer_class) -> Response:
    paginator = view.pagination_class()
    page = paginator.paginate_queryset(queryset, view.request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True).data)


class TokenView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        request=TokenInput,
        responses={200: TokenOutput, **_ERRORS},
        summary="Exchange a username and password for an API token",
        tags=["auth"],
    )
    def post(self, request):
        data = TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request, **data.validated_data)
        if user is None or not user.is_active:
            raise ValidationError({"credentials": [BAD_CREDENTIALS]})
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


class SkillListView(APIView):
    pagination_class = Page  # also tells the OpenAPI schema that GET is paginated

    @extend_schema(responses={200: SkillOutput(many=True)}, summary="Your skills, by name", tags=["skills"])
    def get(self, request):
        return _paginated(self, selectors.skill_list(user=request.user), SkillOutput)

    @extend_schema(
        request=SkillCreateInput,
        responses={201: SkillOutput, **_ERRORS},
        summary="Create a skill and its version 1 from the same body",
        tags=["skills"],
    )
    def post(self, request):
        data = SkillCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        skill = services.skill_create(owner=request.user, **data.validated_data)
        return Response(SkillOutput(selectors.skill_get(user=request.user, skill_id=skill.pk)).data, status=201)


class SkillDetailView(APIView):
    @extend_schema(responses={200: SkillOutput, **_ERRORS}, summary="One of your skills", tags=["skills"])
    def get(self, request, skill_id: int):
        return Response(SkillOutput(selectors.skill_get(user=request.user, skill_id=skill_id)).data)


class SkillVersionListView(APIView):
    pagination_class = Page  # also tells the OpenAPI schema that GET is paginated

    @extend_schema(
        responses={200: SkillVersionOutput(many=True), **_ERRORS},
        summary="Versions of one of your skills, newest first",
        tags=["skills"],
    )
    def get(self, request, skill_id: int):
        versions = selectors.skill_version_list(user=request.user, skill_id=skill_id)
        return _paginated(self, versions, SkillVersionOutput)

    @extend_schema(
        request=SkillVersionInput,
        responses={201: SkillVersionOutput, **_ERRORS},
        summary="Add the next version (latest + 1) to one of your skills",
        tags=["skills"],
    )
    def post(self, request, skill_id: int):
        skill = selectors.skill_get(user=request.user, skill_id=skill_id)
        data = SkillVersionInput(data=request.data)
        data.is_valid(raise_exception=True)
        version = services.skill_version_create(skill=skill, **data.validated_data)
        return Response(SkillVersionOutput(version).data, status=status.HTTP_201_CREATED)


class DeploymentListView(APIView):
    pagination_class = Page  # also tells the OpenAPI schema that GET is paginated

    @extend_schema(
        responses={200: DeploymentOutput(many=True)}, summary="Your deployments, newest first", tags=["deployments"]
    )
    def get(self, request):
        return _paginated(self, selectors.deployment_list(user=request.user), DeploymentOutput)

    @extend_schema(
        request=DeploymentCreateInput,
        responses={201: DeploymentOutput, **_ERRORS},
        summary="Deploy a version of one of your skills (the latest when `version` is omitted)",
        tags=["deployments"],
    )
    def post(self, request):
        data = DeploymentCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        deployment = services.deployment_create(owner=request.user, **data.validated_data)
        output = selectors.deployment_get(user=request.user, deployment_id=deployment.pk)
        return Response(DeploymentOutput(output).data, status=status.HTTP_201_CREATED)


class DeploymentDetailView(APIView):
    @extend_schema(
        responses={200: DeploymentOutput, **_ERRORS}, summary="One of your deployments", tags=["deployments"]
    )
    def get(self, request, deployment_id: int):
        return Response(DeploymentOutput(selectors.deployment_get(user=request.user, deployment_id=deployment_id)).data)
