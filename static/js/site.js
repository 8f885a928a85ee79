/*
 * What every page does on a small screen (base.html loads it; a file, as the CSP runs no inline script):
 * - The nav collapses behind a Menu button below 760 px. Without script the nav simply wraps, so the
 *   button is hidden until this runs and marks the header collapsible.
 * - A table that is wider than its box (.table-scroll) says so: the box fades at the edge that has more
 *   (.can-scroll-left / .can-scroll-right) and a "scroll sideways" hint shows above it. Rechecked on
 *   scroll, on resize and for tables htmx swaps in.
 * When it has run, <body data-site-ready="1">.
 */
(function () {
  "use strict";

  function setUpMenu() {
    var header = document.querySelector(".topbar");
    var button = header && header.querySelector(".menu-button");
    var nav = header && header.querySelector("nav");
    if (!button || !nav) return;
    header.classList.add("nav-collapsible");
    button.hidden = false;
    button.addEventListener("click", function () {
      var open = header.classList.toggle("nav-open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && header.classList.contains("nav-open")) {
        header.classList.remove("nav-open");
        button.setAttribute("aria-expanded", "false");
        button.focus();
      }
    });
  }

  function hintFor(box) {
    var hint = box.previousElementSibling;
    if (hint && hint.classList.contains("scroll-hint")) return hint;
    hint = document.createElement("p");
    hint.className = "scroll-hint";
    hint.setAttribute("aria-hidden", "true"); // the table is there to read; the hint is for the eye
    hint.textContent = "Scroll sideways for more \u2192";
    hint.hidden = true;
    box.parentNode.insertBefore(hint, box);
    return hint;
  }

  function updateCue(box) {
    if (!box.isConnected || !box.parentNode) {
      // htmx swapped it out (a resize or scroll can still arrive for it): nothing to mark, stop watching it
      if (resized) resized.unobserve(box);
      return;
    }
    var overflowing = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle("can-scroll-left", overflowing && box.scrollLeft > 1);
    box.classList.toggle("can-scroll-right", overflowing && box.scrollLeft + box.clientWidth < box.scrollWidth - 1);
    var hint = hintFor(box);
    if (hint.hidden === overflowing) hint.hidden = !overflowing;
  }

  var resized = typeof ResizeObserver === "function" ? new ResizeObserver(function (entries) {
    entries.forEach(function (entry) { updateCue(entry.target); });
  }) : null;

  function watchTables(root) {
    var boxes = root.querySelectorAll ? root.querySelectorAll(".table-scroll") : [];
    if (root.classList && root.classList.contains("table-scroll")) boxes = [root];
    Array.prototype.forEach.call(boxes, function (box) {
      if (box.dataset.cueBound) return updateCue(box);
      box.dataset.cueBound = "1";
      box.addEventListener("scroll", function () { updateCue(box); }, { passive: true });
      if (resized) resized.observe(box);
      updateCue(box);
    });
  }

  function start() {
    setUpMenu();
    watchTables(document);
    window.addEventListener("resize", function () { watchTables(document); });
    document.addEventListener("htmx:load", function (event) { watchTables(event.target); });
    document.body.dataset.siteReady = "1";
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
