from rest_framework import serializers

from accounts.models import ACCOUNT_TOKEN_NAME_MAX, AccountToken
from memorysite.api import AwareDateTimeField, StrictSerializer, text

DEFAULT_LOGIN_TOKEN_NAME = "issued by POST /api/v1/auth/token/"  # noqa: S105 (a name, not a secret)


class TokenInput(StrictSerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False, style={"input_type": "password"})
    name = text(
        max_length=ACCOUNT_TOKEN_NAME_MAX,
        required=False,
        default=DEFAULT_LOGIN_TOKEN_NAME,
        help_text="What the new token is for (listed on the API tokens page).",
    )
    expires_at = AwareDateTimeField(required=False, allow_null=True, default=None, help_text="Optional expiry.")


class TokenOutput(serializers.Serializer):
    token = serializers.CharField(help_text="A new account token, shown this once: only its hash is stored.")


class AccountTokenInput(StrictSerializer):
    name = text(max_length=ACCOUNT_TOKEN_NAME_MAX, help_text="What the token is for, e.g. the script's host.")
    expires_at = AwareDateTimeField(
        required=False, allow_null=True, default=None, help_text="Optional: the key is refused (401) from then on."
    )


class AccountTokenOutput(serializers.ModelSerializer):
    class Meta:
        model = AccountToken
        fields = ["id", "name", "key_prefix", "created_at", "last_used_at", "expires_at", "revoked_at"]


class AccountTokenCreated(serializers.ModelSerializer):
    key = serializers.SerializerMethodField(help_text="The whole key, shown this once: only its hash is stored.")

    class Meta:
        model = AccountToken
        fields = ["id", "name", "key_prefix", "created_at", "expires_at", "key"]

    def get_key(self, token) -> str:
        return self.context["key"]
