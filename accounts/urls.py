from django.urls import path

from accounts import api, views

api_urlpatterns = [
    path("auth/token/", api.TokenView.as_view(), name="api-token"),
    path("auth/tokens/", api.AccountTokenListView.as_view(), name="api-account-tokens"),
    path("auth/tokens/<int:token_id>/", api.AccountTokenDetailView.as_view(), name="api-account-token"),
]

page_urlpatterns = [
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", views.PasswordChangeView.as_view(), name="password-change"),
    path("accounts/tokens/", views.account_tokens, name="account-tokens"),
    path("accounts/tokens/<int:token_id>/revoke/", views.account_token_revoke, name="account-token-revoke"),
]
