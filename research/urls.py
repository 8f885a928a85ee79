from django.urls import path

from research import api, views

api_urlpatterns = [
    path("research/experiments/", api.ExperimentListView.as_view(), name="api-experiments"),
    path("research/experiments/check/", api.ExperimentCheckView.as_view(), name="api-experiments-check"),
    path("research/experiments/<str:experiment_id>/", api.ExperimentDetailView.as_view(), name="api-experiment"),
    path("research/hypotheses/", api.HypothesisListView.as_view(), name="api-hypotheses"),
    path("research/hypotheses/<str:hypothesis_id>/", api.HypothesisDetailView.as_view(), name="api-hypothesis"),
    path("research/capability-requests/", api.RequestListView.as_view(), name="api-capability-requests"),
    path("research/context/", api.ResearchContextView.as_view(), name="api-research-context"),
]

page_urlpatterns = [
    path("research/", views.research_home, name="research"),
]
