from django.urls import path

from ledger import api, views

api_urlpatterns = [
    path("skills/", api.SkillListView.as_view(), name="api-skills"),
    path("skills/<int:skill_id>/", api.SkillDetailView.as_view(), name="api-skill"),
    path("skills/<int:skill_id>/versions/", api.SkillVersionListView.as_view(), name="api-skill-versions"),
    path("deployments/", api.DeploymentListView.as_view(), name="api-deployments"),
    path("deployments/<int:deployment_id>/", api.DeploymentDetailView.as_view(), name="api-deployment"),
    path("deployments/<int:deployment_id>/ticks/", api.TickListView.as_view(), name="api-ticks"),
    path("deployments/<int:deployment_id>/ticks/<uuid:snapshot_id>/", api.TickDetailView.as_view(), name="api-tick"),
    path("deployments/<int:deployment_id>/fills/", api.FillView.as_view(), name="api-fills"),
    path("deployments/<int:deployment_id>/trades/", api.TradeListView.as_view(), name="api-trades"),
    path("deployments/<int:deployment_id>/runner-tokens/", api.RunnerTokenListView.as_view(), name="api-runner-tokens"),
    path(
        "deployments/<int:deployment_id>/runner-tokens/<int:token_id>/",
        api.RunnerTokenDetailView.as_view(),
        name="api-runner-token",
    ),
]

page_urlpatterns = [
    path("", views.home, name="home"),
    path("deployments/<int:deployment_id>/trades/", views.deployment_trades, name="deployment-trades"),
    path("deployments/<int:deployment_id>/trades/<uuid:trade_id>/", views.deployment_trade, name="deployment-trade"),
    path("deployments/<int:deployment_id>/trades.csv", views.deployment_trades_csv, name="deployment-trades-csv"),
    path("deployments/<int:deployment_id>/runner-tokens/", views.runner_tokens, name="deployment-runner-tokens"),
    path(
        "deployments/<int:deployment_id>/runner-tokens/<int:token_id>/revoke/",
        views.runner_token_revoke,
        name="deployment-runner-token-revoke",
    ),
    path("skills/", views.skills, name="skills"),
    path("skills/new/", views.skill_new, name="skill-new"),
    path("skills/<int:skill_id>/", views.skill, name="skill"),
    path("skills/<int:skill_id>/edit/", views.skill_edit, name="skill-edit"),
    path("skills/<int:skill_id>/deploy/", views.skill_deploy, name="skill-deploy"),
    path("deployments/<int:deployment_id>/pause/", views.deployment_pause, name="deployment-pause"),
    path("deployments/<int:deployment_id>/resume/", views.deployment_resume, name="deployment-resume"),
]
