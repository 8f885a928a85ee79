"""HTMX page of agentcontext: /deployments/{id}/preview/ — what the agent sees."""

from django.http import HttpResponse

from memorysite.pages import trader_required


@trader_required
def deployment_preview(request, deployment_id: int):
    return HttpResponse("todo")
