from django.urls import path

from ledger import api, views

api_urlpatterns = [
    path("auth/token/", api.TokenView.as_view(), name="api-token"),
    path("skills/", api.SkillListView.as_view(), name="api-skills"),
    path("skills/<int:skill_id>/", api.SkillDetailView.as_view(), name="api-skill"),
    path("skills/<int:skill_id>/versions/", api.SkillVersionListView.as_view(), name="api-skill-versions"),
    path("deployments/", api.DeploymentListView.as_view(), name="api-deployments"),
    path("deployments/<int:deployment_id>/", api.DeploymentDetailView.as_view(), name="api-deployment"),
]

page_urlpatterns = [
    path("", views.home, name="home"),
]
