"""The service's URLs plus one view that fails, for the 500 page's test (tests/memorysite/test_error_pages.py)."""

from django.urls import path

from memorysite.urls import urlpatterns as service_urlpatterns


def fail(request):
    raise RuntimeError("a bug in a view")


urlpatterns = [*service_urlpatterns, path("test-only/fail/", fail)]
