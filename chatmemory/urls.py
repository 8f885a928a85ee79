from django.urls import path

from chatmemory import api, views

api_urlpatterns = [
    path("facts/", api.FactListView.as_view(), name="api-facts"),
    path("facts/<uuid:fact_id>/", api.FactDetailView.as_view(), name="api-fact"),
    path("facts/<uuid:fact_id>/archive/", api.FactArchiveView.as_view(), name="api-fact-archive"),
    path("facts/<uuid:fact_id>/unarchive/", api.FactUnarchiveView.as_view(), name="api-fact-unarchive"),
    path("chat/", api.ChatView.as_view(), name="api-chat"),
    path("chat/tools/", api.ToolListView.as_view(), name="api-chat-tools"),
    path("chat/tools/<str:name>/", api.ToolCallView.as_view(), name="api-chat-tool"),
]

page_urlpatterns = [
    path("profile/facts/", views.profile_facts, name="profile-facts"),
    path("profile/chat-preview/", views.chat_preview, name="chat-preview"),
]
