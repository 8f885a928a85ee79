/*
 * Copy buttons: <button data-copy-from="ID" hidden> copies the text of element ID and says so in the
 * next .copy-status. Served as a file (the Content-Security-Policy runs no inline script); the button
 * is hidden until this runs, so a page without script never shows a button that does nothing.
 */
(function () {
  "use strict";

  function say(button, text) {
    var status = button.parentElement && button.parentElement.querySelector(".copy-status");
    if (status) status.textContent = text;
  }

  function selectText(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function copy(button) {
    var source = document.getElementById(button.getAttribute("data-copy-from"));
    if (!source) return;
    var text = source.textContent.trim();
    var fallback = function () {
      // No clipboard API (a plain-http host is not a secure context): select the key for Ctrl+C.
      selectText(source);
      say(button, "Selected: press Ctrl+C (⌘C) to copy");
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () {
        say(button, "Copied");
      }, fallback);
    } else {
      fallback();
    }
  }

  function bind() {
    document.querySelectorAll("button[data-copy-from]").forEach(function (button) {
      if (button.dataset.copyBound) return;
      button.dataset.copyBound = "1";
      button.hidden = false;
      button.addEventListener("click", function () {
        copy(button);
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", bind);
  else bind();
})();
