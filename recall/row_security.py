"""Recall's SECURITY DEFINER function, declared in recall/apps.py's `row_security` (access installs it).

The keyword side of search over the GIN index. Row-level security keeps a non-LEAKPROOF operator
such as `@@` out of index conditions, so under it a large trader's keyword search tests every row.
This function runs as the tables' owner (who bypasses RLS when a superuser or BYPASSRLS; otherwise
the policies still apply and it is merely no faster), and applies the trader's scope itself: it
answers for `p_owner` only when that is the transaction's sealed trader (or the transaction is
elevated). recall/selectors.py calls it.
"""

from access.row_security import DefinerFunction

KEYWORD_FUNCTION = """
CREATE OR REPLACE FUNCTION recall_keyword_matches(
    p_query tsquery, p_owner bigint, p_deployment bigint, p_sources text[], p_cap integer
) RETURNS TABLE(id bigint, rank real)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp AS $$
    SELECT m.id, ts_rank(m.search_vector, p_query) FROM (
        SELECT c.id, c.search_vector FROM public.recall_chunks c
        WHERE c.search_vector @@ p_query
          AND (
              p_owner IS NULL
              OR (public.access_scope_sealed() AND (
                  p_owner = NULLIF(current_setting('app.owner_id', true), '')::bigint
                  OR current_setting('app.elevated', true) = 'on'
              ))
          )
          AND (
              (c.owner_id = p_owner AND (p_deployment IS NULL OR c.deployment_id IS NULL
                                         OR c.deployment_id = p_deployment))
              OR c.owner_id IS NULL
          )
          AND (p_sources IS NULL OR c.source = ANY(p_sources))
        LIMIT p_cap
    ) AS m
$$
"""
KEYWORD_FUNCTION_SIGNATURE = "recall_keyword_matches(tsquery, bigint, bigint, text[], integer)"

KEYWORD_MATCHES = DefinerFunction(KEYWORD_FUNCTION_SIGNATURE, KEYWORD_FUNCTION)
