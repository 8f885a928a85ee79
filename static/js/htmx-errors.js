/*
 * htmx does not swap an error answer by default. Inside an element marked data-swap-400, a 400 (a page's
 * message naming the bad parameter) is swapped in like a success. A static file rather than an hx-on
 * attribute: the Content-Security-Policy runs no inline handler.
 */
(function () {
  "use strict";

  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.xhr.status === 400 && event.target.closest("[data-swap-400]")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
})();
