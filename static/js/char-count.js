/*
 * Character counters: <p class="char-count" data-count-for="ID" data-max-chars="N"> shows how many
 * characters the text field ID holds against its maximum, and says by how much it is over. Counts
 * code points of the trimmed text, as the server's rule does (Python's len after strip). Delegated
 * and re-run on htmx:load, so forms htmx swaps in count too. A file: the CSP runs no inline script.
 */
(function () {
  "use strict";

  function update(counter) {
    var field = document.getElementById(counter.getAttribute("data-count-for"));
    if (!field) return;
    var max = parseInt(counter.getAttribute("data-max-chars"), 10);
    var count = Array.from(field.value.trim()).length;
    var over = count - max;
    counter.textContent = over > 0 ? count + " / " + max + " characters: " + over + " too many" : count + " / " + max + " characters";
    counter.classList.toggle("over", over > 0);
  }

  function updateAll(root) {
    (root || document).querySelectorAll(".char-count[data-count-for]").forEach(update);
  }

  document.addEventListener("input", function (event) {
    if (!event.target.id) return;
    document.querySelectorAll('.char-count[data-count-for="' + event.target.id + '"]').forEach(update);
  });
  document.addEventListener("htmx:load", function (event) {
    updateAll(event.target.parentElement || document);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", function () { updateAll(); });
  else updateAll();
})();
