"""The service's URLs plus `bench/floor/insert/`: the cheapest authenticated write, a floor for write endpoints.

The floor view does what every API write pays for and nothing else: token authentication, a
JSON body, one INSERT of one tiny row (autocommit), a JSON answer. Its table, `bench_floor`,
is created by the benchmark with a raw CREATE TABLE in the benchmark database only.
"""

from django.db import connection
from django.urls import include, path
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth import AccountTokenAuthentication

FLOOR_TABLE_SQL = """
CREATE TABLE IF NOT EXISTS bench_floor (
    id bigserial PRIMARY KEY,
    owner_id bigint NOT NULL,
    v integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
)
"""


class FloorInsertView(APIView):
    authentication_classes = [AccountTokenAuthentication]
    permission_classes = [IsAuthenticated]

    def post(self, request):
        value = request.data.get("v", 0) if isinstance(request.data, dict) else 0
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO bench_floor (owner_id, v) VALUES (%s, %s) RETURNING id", [request.user.pk, int(value)]
            )
            (row_id,) = cursor.fetchone()
        return Response({"id": row_id}, status=201)


urlpatterns = [
    path("bench/floor/insert/", FloorInsertView.as_view(), name="bench-floor-insert"),
    path("", include("memorysite.urls")),
]
