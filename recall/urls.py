from django.urls import path

from recall import api, views

api_urlpatterns = [
    path("recall/documents/", api.DocumentListCreateView.as_view(), name="api-recall-documents"),
    path("recall/documents/<int:document_id>/", api.DocumentDetailView.as_view(), name="api-recall-document"),
    path("recall/search/", api.SearchView.as_view(), name="api-recall-search"),
    path("recall/health/", api.HealthView.as_view(), name="api-recall-health"),
    path("recall/journal/", api.JournalView.as_view(), name="api-recall-journal"),
    path("recall/proposals/", api.ProposalView.as_view(), name="api-recall-proposals"),
]

page_urlpatterns = [
    path("recall/", views.recall_home, name="recall"),
    path("recall/search/", views.recall_search, name="recall-search"),
    path("recall/documents/<int:document_id>/", views.document_detail, name="recall-document"),
    path("recall/documents/<int:document_id>/delete/", views.document_delete, name="recall-document-delete"),
    path("recall/proposals/<int:proposal_id>/", views.proposal_detail, name="recall-proposal"),
    path("recall/proposals/<int:proposal_id>/decide/", views.proposal_decide, name="recall-proposal-decide"),
]
