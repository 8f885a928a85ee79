"""The service's URLs plus `bench/floor/insert/`: the cheapest authenticated write, a floor for write endpoints.

The floor view does what every API write pays for and nothing else: token authentication, a
JSON body, the request's transaction with its row-level-security scope statement (access/, as
every API request), one INSERT of one tiny row, a JSON answer.

Its table, `bench_floor`, is created by the benchmark process (the tables' owner) in the benchmark
database only (`create_floor_table`), and granted to the app role the servers connect as: the
cheapest insert the service's stack can make, so it has no row-level security of its own (an owned
table's policy check is part of what a write endpoint costs, not of the floor).
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


def create_floor_table() -> None:
    """bench_floor, writable by the app role (Django set up, connected as the tables' owner)."""
    from access.policies import app_role

    with connection.cursor() as cursor:
        cursor.execute(FLOOR_TABLE_SQL)
        cursor.execute("SELECT current_user")
        role = app_role()
        if role and role != cursor.fetchone()[0]:  # without an app role the owner serves, and owns the table
            grantee = connection.ops.quote_name(role)
            cursor.execute(f"GRANT SELECT, INSERT ON bench_floor TO {grantee}")
            cursor.execute(f"GRANT USAGE ON SEQUENCE bench_floor_id_seq TO {grantee}")


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
