"""Recall's SECURITY DEFINER function, declared in recall/apps.py's `row_security` (access installs it).

The keyword side's candidate fetch over the GIN index. Row-level security keeps a non-LEAKPROOF
operator such as `@@` out of index conditions, so under it a keyword search tests every readable row.
This function runs as the tables' owner (who bypasses RLS when a superuser or BYPASSRLS; otherwise
the policies still apply and it is merely no faster), and applies the trader's scope itself: it
answers for `p_owner` only when that is the transaction's sealed trader (or the transaction is
elevated). It returns chunk ids and the sum of the weights (idf) of the terms each holds, never text:
recall/selectors.py scores the best `p_top` exactly, under row-level security. Ties go to the newest
chunks (the highest ids): a trader's recent notes before old ones.

One scan per term (at most `p_per_term_cap` rows each), each a bitmap scan of the GIN index (below: the trader's
and the global postings of the term, recall 0013). `enable_seqscan` is off inside the
function: for a term in a quarter of the chunks the planner chose to read rows in order until enough matched,
testing `@@` on each, and its cost model does not count the tsvector's detoasting (out of line for every chunk
of the bench's 400-800 words), so that read took 29 ms where the bitmap scan takes 8 (a 100,000-chunk trader,
`bench/recall_latency.py`'s chunks, EXPLAIN ANALYZE). Parallel workers are off too
(`max_parallel_workers_per_gather = 0`): the planner cannot tell that the index condition already selects the
trader's and the global rows, so it estimates the scope's test to keep ~1% of what the scan returns, thinks a common
term's scan must read thousands of rows for `p_per_term_cap`, and starts two workers, which costs more than the scan
(a term held by 7,429 of a 20,000-chunk trader's chunks among 100,000: 8 ms with them, 2.4 without).

Its statements are static SQL, not built and EXECUTEd per call: PL/pgSQL prepares each once per connection and
PostgreSQL stops planning it once a generic plan costs no more than the custom ones (the scans are bitmap scans of
the GIN index whatever the term: sequential scans are off). A scan per term is a LATERAL subquery over the terms'
tsqueries. The same candidates as the dynamic SQL it replaced, which planned every call's scans afresh: 0.12-0.18 ms
less a call, p50, for the traders of 500 to 100,000 chunks of bench/recall_latency.py's tables (a scratch A/B of the
two functions, interleaved question by question, 5 rounds of the 50 questions: 0.66 → 0.49 ms at 500 readable
chunks, 0.94 → 0.76 at 5,000, 1.05 → 0.93 at 20,000, 1.58 → 1.40 for one trader's 100,000; the same ids and
weights for every question).

`p_all_first` (recall/bm25.py's all_terms_first: several terms, each held by at least `p_top` readable chunks):
one scan for the conjunction of every term comes first, at most `p_per_term_cap` rows, the newest `p_top` kept.
Those chunks hold every term, so no chunk has a higher idf sum: when there are `p_top` of them they are returned
(each with the sum of every weight) and the scans term by term are skipped; otherwise those scans run as without
it. recall 0012 dropped the eight-argument form (this one's defaults keep seven- and eight-argument calls valid).

`p_anchors` (recall/bm25.py's anchor_count; NULL: every term anchors): the first `p_anchors` terms (the rarest) are
the anchors, and each term after them is scanned only in the chunks holding it and some anchor: one GIN scan of
`term & (anchor | …)`, which reads the anchors' postings and skips through the term's, where a scan of the term alone
reads every posting it has ('valu', held by 28,794 chunks of bench/recall_latency.py's one-trader table: 2.7 ms
alone, 0.7 with its three anchors). The caller anchors only where the terms after the anchors weigh less together
than the lightest anchor, so a chunk holding none of the anchors ranks below every chunk an anchor's scan found:
when those scans found `p_top` chunks, the chunks holding only the other terms cannot be among the `p_top` kept, and
are not read. A scan with the anchors keeps its first `p_per_term_cap` rows in the table's order, as the scan of the
term alone does, so it reaches every chunk holding the term and an anchor that that scan reached: no chunk weighs
less than the scans term by term make it. When the anchors' scans found fewer than `p_top`, the scans term by term
answer, as without it. recall 0016 dropped the nine-argument form (a nine-argument call keeps its meaning).

`p_workspace_path` narrows the workspace files to those whose path matches it (a case-insensitive
regular expression, as `~*`; NULL: every workspace file), inside the scans, so the per-term cap and the
`p_top` cut count only what the caller may show: the per-tick context's manual section passes
recall.models.MANUAL_PATH_REGEX (of the workspace files, the manual only; playbooks and runbooks have
sources of their own). It only narrows: the trader's scope applies as before. `regexp_like(…, 'i')`
rather than `~*`: the planner estimates an operator's selectivity by running the regex over the path
column's statistics (a histogram and common values, ~0.2 ms of planning per scan), a function's it
does not. recall 0005 dropped the function's seven-argument form (this one's default keeps a
seven-argument call valid).

`ROWS 20`: the planner's guess of how many ids come back. At PostgreSQL's default for a set-returning
function (1000) it joined recall/selectors.py's `_KEYWORD` to them by hashing them and reading every
chunk of the table (0.45 ms at 8k chunks, and growing with the table, whoever's they are); at 20 it
looks each id up by primary key, which costs what the candidates cost (at most `p_top`, a few hundred
cached probes). Measured in one run, interleaved (bench/context_latency.py's data, 8k chunks): the
manual section and plain keyword searches 1.5-2 ms faster (of 7-11 ms, on a loaded 2-core machine), the same
hits; at 200 the plan was the one of 1000.
"""

from access.row_security import DefinerFunction

# recall 0008's keyword index (recall.models.OwnerSearchVector) held each chunk's lexemes plus one for its owner,
# "owner <owner id>", and the fetch asked GIN for `term & ('owner <id>' | 'owner 0')`: GIN read the term's postings
# of every owner and intersected them with the owner's (a 500-chunk trader among 100,000 chunks, the slowest
# question's fetch: 16 ms → 1.7 ms, against the plain index). Kept for that migration, and for
# bench/recall_latency.py's before trees, which still ask for it.
OWNER_SEARCH_VECTOR_SQL = (
    "({alias}search_vector || array_to_tsvector(ARRAY['owner ' || COALESCE({alias}owner_id, 0)::text]))"
)

# The keyword index since recall 0013 (recall.models.OwnerLexemes) holds each chunk's lexemes prefixed with its
# owner: "<owner id> <lexeme>", "0 <lexeme>" for the global rows (user ids start at 1). A term's postings in the
# index are then one owner's alone, and the fetch asks for `'<id> term' | '0 term'`: GIN reads the trader's and the
# global postings of the term and nothing else, where 0008's index read the term's postings in the whole table and
# the owner's postings of every chunk, and intersected them (the keyword statement's p50 for the 20,000-chunk trader
# among 100,000 of bench/recall_latency.py: 9.00 → 7.02 ms; see docs/architecture.md). The text parser never makes
# a lexeme holding a space (it splits on every kind of blank), so no text can forge another owner's. Lexemes longer
# than 2,000 bytes (PostgreSQL keeps up to 2,047) are left out of the index, so that no prefix takes one past the
# limit: no query fetches by such a word. The owner filter is written on COALESCE(owner_id, 0), the same test, so
# that the planner does not also AND in the owner btree's bitmap, which the index condition makes redundant.
# The function is recall 0013's (created there, before the index).
OWNER_LEXEMES_SQL = "recall_owner_lexemes(COALESCE({alias}owner_id, 0), {alias}search_vector)"

# The trader's scope and the caller's narrowing, tested on each row a scan fetches (the function's arguments).
_SCOPE_FILTER = (
    "AND ((COALESCE(c.owner_id, 0) = p_owner"
    " AND (p_deployment IS NULL OR c.deployment_id IS NULL OR c.deployment_id = p_deployment))"
    " OR COALESCE(c.owner_id, 0) = 0) AND (p_sources IS NULL OR c.source = ANY(p_sources))"
    " AND (p_workspace_path IS NULL OR c.source <> 'workspace' OR regexp_like(c.path, p_workspace_path, 'i'))"
)

KEYWORD_FUNCTION = r"""
CREATE OR REPLACE FUNCTION recall_keyword_candidates(
    p_lexemes text[], p_weights double precision[], p_owner bigint, p_deployment bigint, p_sources text[],
    p_per_term_cap integer, p_top integer, p_workspace_path text DEFAULT NULL, p_all_first boolean DEFAULT false,
    p_anchors integer DEFAULT NULL
) RETURNS TABLE(id bigint, weight double precision)
LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 20
SET search_path = pg_catalog, public, pg_temp SET enable_seqscan = off SET max_parallel_workers_per_gather = 0 AS $fn$
DECLARE
    -- The owners whose postings a term's scan reads (OWNER_LEXEMES_SQL): the global rows' alone for a global
    -- search, the trader's and the global rows' for a trader's.
    owners text[] := ARRAY['0'];
    terms tsquery[];
    scoped tsquery[];
    every tsquery;
    found bigint[];
    weights double precision[];
    anchored bigint;
BEGIN
    IF p_owner IS NOT NULL AND NOT COALESCE(public.access_scope_sealed() AND (
        p_owner = NULLIF(current_setting('app.owner_id', true), '')::bigint
        OR current_setting('app.elevated', true) = 'on'
    ), false) THEN
        RETURN;
    END IF;
    IF COALESCE(cardinality(p_lexemes), 0) = 0 THEN
        RETURN;
    END IF;
    IF p_owner IS NOT NULL THEN
        owners := ARRAY[p_owner::text, '0'];
    END IF;
    -- Each term as a tsquery of its owner lexemes ('<owner> <term>' quoted: a quote doubled, a backslash too),
    -- `'5 a' | '0 a'`; each as its anchored scan asks for it, a term after the anchors with any anchor,
    -- `('5 c' & ('5 a' | '5 b')) | ('0 c' & ('0 a' | '0 b'))`; and every term's, `('5 a' & '5 b') | ('0 a' & '0 b')`.
    WITH q AS (
        SELECT u.n, o.k, '''' || replace(replace(o.owner || ' ' || u.lexeme, '\', '\\'), '''', '''''') || '''' AS lexeme
        FROM unnest(p_lexemes) WITH ORDINALITY AS u(lexeme, n), unnest(owners) WITH ORDINALITY AS o(owner, k)
    ), a AS (
        SELECT q.k, string_agg(q.lexeme, ' | ' ORDER BY q.n) AS anchors FROM q WHERE q.n <= p_anchors GROUP BY q.k
    )
    SELECT (SELECT array_agg(t.query::tsquery ORDER BY t.n)
            FROM (SELECT q.n, string_agg(q.lexeme, ' | ' ORDER BY q.k) AS query FROM q GROUP BY q.n) AS t),
           (SELECT array_agg(t.query::tsquery ORDER BY t.n)
            FROM (SELECT q.n, string_agg(CASE WHEN q.n <= p_anchors OR a.anchors IS NULL THEN q.lexeme
                                              ELSE '(' || q.lexeme || ' & (' || a.anchors || '))' END,
                                         ' | ' ORDER BY q.k) AS query
                  FROM q LEFT JOIN a ON a.k = q.k GROUP BY q.n) AS t),
           (SELECT string_agg(t.query, ' | ' ORDER BY t.k)
            FROM (SELECT q.k, '(' || string_agg(q.lexeme, ' & ' ORDER BY q.n) || ')' AS query FROM q GROUP BY q.k) AS t)
           ::tsquery
    INTO terms, scoped, every;
    IF p_all_first AND cardinality(terms) > 1 THEN
        -- The chunks holding every term (at most p_per_term_cap of them), newest first: p_top of them are the answer.
        SELECT (array_agg(m.id ORDER BY m.id DESC))[1:p_top] INTO found
        FROM (SELECT c.id FROM public.recall_chunks c WHERE @OWNER_LEXEMES@ @@ every @SCOPE@ LIMIT p_per_term_cap) AS m;
        IF COALESCE(cardinality(found), 0) >= p_top THEN
            RETURN QUERY SELECT f.id, (SELECT SUM(w) FROM unnest(p_weights) AS w) FROM unnest(found) AS f(id);
            RETURN;
        END IF;
    END IF;
    IF p_anchors >= 1 AND p_anchors < cardinality(terms) THEN
        -- The terms after the anchors scanned with an anchor (see above); kept when the anchors' own scans found
        -- p_top chunks, else the scans term by term below answer.
        SELECT array_agg(s.id), array_agg(s.weight), max(s.anchored) INTO found, weights, anchored
        FROM (
            SELECT g.id, g.weight, count(*) FILTER (WHERE g.anchored) OVER () AS anchored
            FROM (
                SELECT m.id, SUM(p_weights[t.term]) AS weight, bool_or(t.term <= p_anchors) AS anchored
                FROM unnest(scoped) WITH ORDINALITY AS t(query, term)
                CROSS JOIN LATERAL (
                    SELECT c.id FROM public.recall_chunks c WHERE @OWNER_LEXEMES@ @@ t.query @SCOPE@
                    LIMIT p_per_term_cap
                ) AS m
                GROUP BY m.id
            ) AS g
            ORDER BY g.weight DESC, g.id DESC LIMIT p_top
        ) AS s;
        IF anchored >= p_top THEN
            RETURN QUERY SELECT f.id, f.weight FROM unnest(found, weights) AS f(id, weight);
            RETURN;
        END IF;
    END IF;
    -- A scan per term, at most p_per_term_cap rows each; a chunk's weight is the sum of its terms' weights.
    RETURN QUERY
        SELECT m.id, SUM(p_weights[t.term]) AS weight
        FROM unnest(terms) WITH ORDINALITY AS t(query, term)
        CROSS JOIN LATERAL (
            SELECT c.id FROM public.recall_chunks c WHERE @OWNER_LEXEMES@ @@ t.query @SCOPE@ LIMIT p_per_term_cap
        ) AS m
        GROUP BY m.id ORDER BY weight DESC, m.id DESC LIMIT p_top;
END
$fn$
""".replace("@OWNER_LEXEMES@", OWNER_LEXEMES_SQL.format(alias="c.")).replace("@SCOPE@", _SCOPE_FILTER)
KEYWORD_FUNCTION_SIGNATURE = (
    "recall_keyword_candidates(text[], double precision[], bigint, bigint, text[], integer, integer, text, boolean,"
    " integer)"
)

KEYWORD_CANDIDATES = DefinerFunction(KEYWORD_FUNCTION_SIGNATURE, KEYWORD_FUNCTION)
