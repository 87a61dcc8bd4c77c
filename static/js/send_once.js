/* A form sent once per tap: a double click or a double tap sends a form twice, and the browser
   shows only the second answer. Without this, "Add a bot" twice would seat two bots, "Create the
   drive" twice would make two drives, a name tapped twice on the join page would answer "already
   joined on another phone" (the first tap joins it, and the phone never gets its cookie). While a
   POST's answer is on its way, the same form (its address: a live page may have drawn it again
   meanwhile) sent again does nothing; after a few seconds with no answer (a slow Wi-Fi) it may be
   sent again, and the server's own checks answer a repeat. A submit another script or a refused
   confirm() kept back was never sent: read once the event has gone round, so the order in which
   the page's scripts listen does not matter. */
(function () {
  "use strict";
  var PATIENCE_MS = 8000;
  var sent = {};   // a form's address -> its submit event going out, and when

  window.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || (form.method || "").toLowerCase() !== "post") return;
    var key = form.action, last = sent[key];
    if (last && !last.event.defaultPrevented && Date.now() - last.at < PATIENCE_MS) {
      event.preventDefault();
      return;
    }
    sent[key] = {event: event, at: Date.now()};
    setTimeout(function () {   // once the event has gone round: marked only if it was sent
      if (sent[key] && sent[key].event === event && !event.defaultPrevented) form.setAttribute("aria-busy", "true");
    }, 0);
    setTimeout(function () { form.removeAttribute("aria-busy"); }, PATIENCE_MS);
  });
  // Back to this page from the next one (the browser's cache): its forms may be sent again.
  window.addEventListener("pageshow", function () {
    sent = {};
    document.querySelectorAll("form[aria-busy]").forEach(function (form) { form.removeAttribute("aria-busy"); });
  });
})();
