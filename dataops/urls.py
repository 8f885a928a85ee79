from django.urls import path

from access.middleware import without_transaction
from dataops import api, views

api_urlpatterns = [
    # Streamed after the view returns: no request transaction may wait on the client (dataops.export).
    path("me/export/", without_transaction(api.MeExportView.as_view()), name="api-me-export"),
]

page_urlpatterns = [
    path("profile/data/", views.profile_data, name="profile-data"),
    path("profile/data/export/", views.profile_data_export, name="profile-data-export"),
    path("profile/delete/", views.account_delete, name="account-delete"),
]
