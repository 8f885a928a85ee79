from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.urls import api_urlpatterns as accounts_api
from accounts.urls import page_urlpatterns as accounts_pages
from agentcontext.api import ContextView
from agentcontext.views import deployment_preview, deployment_preview_save
from chatmemory.urls import api_urlpatterns as chatmemory_api
from chatmemory.urls import page_urlpatterns as chatmemory_pages
from dataops.urls import api_urlpatterns as dataops_api
from dataops.urls import page_urlpatterns as dataops_pages
from ledger import metrics as ledger_metrics
from ledger.urls import api_urlpatterns as ledger_api
from ledger.urls import page_urlpatterns as ledger_pages
from mcpserver.http import McpView
from memorysite.health import healthz
from memorysite.metrics import metrics_endpoint
from memorysite.pages import favicon
from recall import metrics as recall_metrics
from recall.urls import api_urlpatterns as recall_api
from recall.urls import page_urlpatterns as recall_pages
from reflection.urls import api_urlpatterns as reflection_api
from reflection.urls import page_urlpatterns as reflection_pages
from research.urls import api_urlpatterns as research_api
from research.urls import page_urlpatterns as research_pages
from signals import metrics as signals_metrics
from signals.urls import api_urlpatterns as signals_api
from signals.urls import page_urlpatterns as signals_pages

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Prometheus: staff or the METRICS_TOKEN only; the figures read at scrape time come from each app's metrics.py.
    path(
        "metrics",
        metrics_endpoint(
            {"ledger": ledger_metrics.families, "recall": recall_metrics.families, "signals": signals_metrics.families}
        ),
        name="metrics",
    ),
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("", include(accounts_pages)),  # login (through the password-guessing brake), password, API tokens
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's set-up as a script file: the Content-Security-Policy runs no inline script.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api_docs.html"),
        name="api-docs",
    ),
    path("api/v1/", include(accounts_api)),
    path("api/v1/", include(ledger_api)),
    path("api/v1/", include(reflection_api)),
    path("api/v1/", include(chatmemory_api)),
    path("api/v1/", include(signals_api)),
    path("api/v1/", include(recall_api)),
    path("api/v1/", include(research_api)),
    path("api/v1/deployments/<int:deployment_id>/context/", ContextView.as_view(), name="api-context"),
    path("api/v1/", include(dataops_api)),  # the trader's own data (export)
    path("", include(ledger_pages)),
    path("", include(reflection_pages)),
    path("", include(chatmemory_pages)),
    path("", include(signals_pages)),
    path("", include(recall_pages)),
    path("", include(research_pages)),
    path("", include(dataops_pages)),  # the trader's own data: export, delete the account
    path("deployments/<int:deployment_id>/preview/", deployment_preview, name="deployment-preview"),
    path("deployments/<int:deployment_id>/preview/save/", deployment_preview_save, name="deployment-preview-save"),
    re_path(r"^mcp/?$", McpView.as_view(), name="mcp"),  # MCP clients are configured with or without the slash
]
