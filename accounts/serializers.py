from rest_framework import serializers

from accounts.models import ACCOUNT_TOKEN_NAME_MAX, AccountToken
from memorysite.api import AwareDateTimeField, StrictSerializer, text

DEFAULT_LOGIN_TOKEN_NAME = "issued by POST /api/v1/auth/token/"  # noqa: S105 (a name, not a secret)


class TokenInput(StrictSerializer):
    username = serializers.CharField(max_length=150, help_text="Your username, as on the login page.")
    password = serializers.CharField(
        max_length=4096,
        trim_whitespace=False,
        style={"input_type": "password"},
        help_text="Your password, as typed (spaces kept).",
    )
    name = text(
        max_length=ACCOUNT_TOKEN_NAME_MAX,
        required=False,
        default=DEFAULT_LOGIN_TOKEN_NAME,
        help_text="What the new token is for (listed on the API tokens page).",
    )
    expires_at = AwareDateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="When the token stops working (ISO 8601 with an offset, in the future); null or omitted: never.",
    )


class TokenOutput(serializers.Serializer):
    token = serializers.CharField(help_text="A new account token, shown this once: only its hash is stored.")


class AccountTokenInput(StrictSerializer):
    name = text(max_length=ACCOUNT_TOKEN_NAME_MAX, help_text="What the token is for, e.g. the script's host.")
    expires_at = AwareDateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="When the key stops working (ISO 8601 with an offset, in the future): refused with a 401 from "
        "then on. Null or omitted: never.",
    )


_TOKEN_FIELDS = {
    "id": {"help_text": "The token's id (to revoke it)."},
    "name": {"help_text": "What the token is for, as named at its creation."},
    "key_prefix": {
        "help_text": "The key's first characters, to tell tokens apart (the key itself is never shown again)."
    },
    "created_at": {"help_text": "When the token was created (UTC, ISO 8601)."},
    "last_used_at": {"help_text": "When a request last used it (UTC, to the minute); null: never."},
    "expires_at": {"help_text": "When it stops working (UTC); null: never."},
    "revoked_at": {"help_text": "When it was revoked (UTC); null: not revoked."},
}


class AccountTokenOutput(serializers.ModelSerializer):
    class Meta:
        model = AccountToken
        fields = ["id", "name", "key_prefix", "created_at", "last_used_at", "expires_at", "revoked_at"]
        extra_kwargs = _TOKEN_FIELDS


class AccountTokenCreated(serializers.ModelSerializer):
    key = serializers.SerializerMethodField(help_text="The whole key, shown this once: only its hash is stored.")

    class Meta:
        model = AccountToken
        fields = ["id", "name", "key_prefix", "created_at", "expires_at", "key"]
        extra_kwargs = _TOKEN_FIELDS

    def get_key(self, token) -> str:
        return self.context["key"]
