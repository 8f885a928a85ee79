/*
 * The trade journal's filter form under htmx history. htmx snapshots a page just before it pushes
 * the next URL, so the snapshot of a URL holds the filter the trader had already picked for the
 * next one. After Back or Forward, set each filter from the restored URL instead.
 */
(function () {
  "use strict";

  document.addEventListener("htmx:historyRestore", function () {
    var query = new URLSearchParams(window.location.search);
    document.querySelectorAll("#trade-filters select").forEach(function (select) {
      select.value = query.get(select.name) || "";
      if (select.selectedIndex < 0) select.value = ""; // a value that is no longer a choice
    });
    var sort = document.getElementById("filter-sort");
    if (sort) sort.value = query.get("sort") || "-entry"; // the server's default order

  });
})();
