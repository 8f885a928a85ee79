"""The service's URLs plus one view that fails after reading (the pooling test's mid-request exception)."""

from django.http import JsonResponse
from django.urls import path

from ledger.models import Deployment
from memorysite.urls import urlpatterns as service_urlpatterns


def read_then_fail(request):
    if request.GET.get("fail"):
        list(Deployment.objects.all())
        raise RuntimeError("mid-request failure (test)")
    return JsonResponse({"deployments": sorted(Deployment.objects.values_list("pk", flat=True))})


urlpatterns = [path("test/deployments-unscoped/", read_then_fail), *service_urlpatterns]
