"""REST views of accounts: the password → token exchange and the trader's account tokens."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from accounts import selectors, services
from accounts.serializers import AccountTokenCreated, AccountTokenInput, AccountTokenOutput, TokenInput, TokenOutput
from memorysite.api import UNAUTHORIZED, APIView, Page, paginated

BAD_CREDENTIALS = "unable to log in with these credentials"

_ERRORS = {
    400: OpenApiResponse(description="Invalid input: `detail` names each field and the rule it broke."),
    401: OpenApiResponse(description=UNAUTHORIZED),
    404: OpenApiResponse(description="No such token among yours."),
    413: OpenApiResponse(description="Body larger than 1 MiB."),
    415: OpenApiResponse(description="Content-Type is not application/json."),
}


class LoginBraked(exceptions.APIException):
    """429 with Retry-After (DRF's exception handler sets it from `wait`)."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "login_braked"

    def __init__(self, refused):
        super().__init__(refused.message)
        self.wait = refused.wait_seconds


class TokenView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        request=TokenInput,
        responses={
            200: TokenOutput,
            429: OpenApiResponse(
                description="Too many failed logins for this username or client: slowed down, then locked for "
                "15 minutes (`Retry-After` says how long; staff can unlock a username)."
            ),
            **_ERRORS,
        },
        operation_id="create_token_with_password",
        description="The one call without a token: send a username and password, get a new account token (`token`). "
        "It is listed with your other tokens and can be named and made to expire. Failed logins are "
        "braked per username and client.",
        summary="Exchange a username and password for a new account token (listed and revocable)",
        tags=["auth"],
    )
    def post(self, request):
        data = TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        credentials = dict(data.validated_data)
        options = {"name": credentials.pop("name"), "expires_at": credentials.pop("expires_at")}
        try:
            user = services.password_login(request=request, **credentials)
        except services.LoginRefused as refused:
            raise LoginBraked(refused.refusal) from None
        if user is None:
            raise exceptions.ValidationError({"credentials": [BAD_CREDENTIALS]})
        _, key = services.account_token_create(owner=user, now=timezone.now(), **options)
        return Response({"token": key})


class AccountTokenListView(APIView):
    pagination_class = Page  # also tells the OpenAPI schema that GET is paginated

    @extend_schema(
        responses={200: AccountTokenOutput(many=True), **_ERRORS},
        operation_id="list_account_tokens",
        description="Every account token of yours, newest first, with when each was last used; revoked and expired "
        "ones stay listed. Keys are never shown again: `key_prefix` tells them apart.",
        summary="Your account tokens, newest first, revoked and expired ones included (never their keys)",
        tags=["auth"],
    )
    def get(self, request):
        return paginated(self, selectors.account_token_list(user=request.user), AccountTokenOutput)

    @extend_schema(
        request=AccountTokenInput,
        responses={201: AccountTokenCreated, **_ERRORS},
        operation_id="create_account_token",
        description="A new account token reaching your whole account; keep `key` now, it is never shown again. For a "
        "runner, prefer a runner token (`create_runner_token`): it reaches one deployment's runner "
        "endpoints only.",
        summary="Create a named account token, optionally expiring. The key is in this response only",
        tags=["auth"],
    )
    def post(self, request):
        data = AccountTokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        token, key = services.account_token_create(owner=request.user, now=timezone.now(), **data.validated_data)
        return Response(AccountTokenCreated(token, context={"key": key}).data, status=status.HTTP_201_CREATED)


class AccountTokenDetailView(APIView):
    @extend_schema(
        responses={204: OpenApiResponse(description="Revoked (again: nothing changes)."), **_ERRORS},
        operation_id="revoke_account_token",
        description="Requests with the token's key are refused (401) from now on. Revoking it again changes nothing.",
        summary="Revoke an account token: its key stops working at once; the row stays listed",
        tags=["auth"],
    )
    def delete(self, request, token_id: int):
        token = selectors.account_token_get(user=request.user, token_id=token_id)
        services.account_token_revoke(token=token, now=timezone.now())
        return Response(status=status.HTTP_204_NO_CONTENT)
