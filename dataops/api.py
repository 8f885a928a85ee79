"""REST views of dataops: the trader's own data as a zip."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema

from dataops.views import export_response
from memorysite.api import UNAUTHORIZED, APIView


class MeExportView(APIView):
    @extend_schema(
        responses={
            (200, "application/zip"): OpenApiResponse(
                response=OpenApiTypes.BINARY,
                description="A zip of every row you own (README.txt inside says what each file holds), streamed.",
            ),
            401: OpenApiResponse(description=UNAUTHORIZED),
            403: OpenApiResponse(description="A runner token: it reaches its deployment's runner endpoints only."),
        },
        operation_id="export_my_data",
        description="Everything this service keeps for your account, as one zip readable without it: every row you "
        "own table by table (`data/<table>.jsonl`), your trades and facts as CSV, every lessons revision as "
        "Markdown, your research memory in the seed's YAML layout and your recall documents as files. "
        "Another trader's rows and global documents are never in it. Token keys are not (only their hashes are "
        "kept), nor search vectors.",
        summary="Download all your data as a zip (JSON, CSV, YAML, Markdown)",
        tags=["account"],
    )
    def get(self, request):
        return export_response(request.user)
