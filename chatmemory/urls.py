from django.urls import path

from access.middleware import without_transaction
from chatmemory import api, views

api_urlpatterns = [
    path("facts/", api.FactListView.as_view(), name="api-facts"),
    path("facts/<uuid:fact_id>/", api.FactDetailView.as_view(), name="api-fact"),
    path("facts/<uuid:fact_id>/archive/", api.FactArchiveView.as_view(), name="api-fact-archive"),
    path("facts/<uuid:fact_id>/unarchive/", api.FactUnarchiveView.as_view(), name="api-fact-unarchive"),
    # No request transaction: a turn waits on the model (chatmemory/chat.py).
    path("chat/", without_transaction(api.ChatView.as_view()), name="api-chat"),
    path("chat/tools/", api.ToolListView.as_view(), name="api-chat-tools"),
    path("chat/tools/<str:name>/", api.ToolCallView.as_view(), name="api-chat-tool"),
]

page_urlpatterns = [
    path("profile/facts/", views.profile_facts, name="profile-facts"),
    path("profile/chat-preview/", views.chat_preview, name="chat-preview"),
    path("profile/chat/", views.coach_chat, name="coach-chat"),  # without a request transaction (views.py)
    path("profile/chat/new/", views.coach_chat_clear, name="coach-chat-clear"),
    # The facts page's writes (POST) and its row fragments.
    path("profile/facts/add/", views.profile_fact_add, name="profile-fact-add"),
    path("profile/facts/<uuid:fact_id>/", views.profile_fact, name="profile-fact"),
    path("profile/facts/<uuid:fact_id>/edit/", views.profile_fact_edit, name="profile-fact-edit"),
    path("profile/facts/<uuid:fact_id>/promote/", views.profile_fact_promote, name="profile-fact-promote"),
    path("profile/facts/<uuid:fact_id>/demote/", views.profile_fact_demote, name="profile-fact-demote"),
    path("profile/facts/<uuid:fact_id>/archive/", views.profile_fact_archive, name="profile-fact-archive"),
    path("profile/facts/<uuid:fact_id>/unarchive/", views.profile_fact_unarchive, name="profile-fact-unarchive"),
    path("profile/facts/<uuid:fact_id>/delete/", views.profile_fact_delete, name="profile-fact-delete"),
]
