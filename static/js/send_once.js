/* A form sent once per tap: a double click or a double tap sends a form twice, and the browser
   shows only the second answer. Found by probing: "Add a bot" twice seated two bots, "Create the
   drive" twice made two drives, a name tapped twice on the join page answered "already joined on
   another phone" (the first tap had joined it, and the phone never got its cookie). While a
   form's answer is on its way, sending the same form again does nothing; after a few seconds
   with no answer (a slow Wi-Fi) it may be sent again, and the server's own checks (the hand and
   the seating a form was shown with, client keys) answer a repeat. Heard on window, so last:
   a submit another script keeps back (a confirm() refused, a form sent by fetch) is not one. */
(function () {
  "use strict";
  var PATIENCE_MS = 8000;

  window.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !form || (form.method || "").toLowerCase() !== "post") return;
    var sent = Number(form.dataset.sentAt || 0);
    if (sent && Date.now() - sent < PATIENCE_MS) {
      event.preventDefault();
      return;
    }
    form.dataset.sentAt = String(Date.now());
    form.setAttribute("aria-busy", "true");
  });
  // Back to this page from the next one (the browser's cache): its forms may be sent again.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-sent-at]").forEach(function (form) {
      delete form.dataset.sentAt;
      form.removeAttribute("aria-busy");
    });
  });
})();
