/* A confirmation or a dispute on the phone's page (forms with data-keep-send): a tap made with
   no connection (the hall's Wi-Fi dropped, the laptop restarting) is kept on the phone and sent
   when the connection returns, instead of leaving the page for the browser's "no internet" page
   and losing the tap (and a typed reason). The server answers every such POST with a redirect
   to this page, its message kept for the page's next load; the server refuses a form shown to
   another player, or for a revision that is no longer the result's, so a kept tap cannot land
   on anything it was not meant for. The page is the live one (static/js/live.js swaps its
   parts): the forms are found by delegation. */
(function () {
  "use strict";
  var QUEUE = "ff-judge-queue";
  var sending = false;   // one send at a time: "online" and the timer may both call flush()

  function kept() { try { return JSON.parse(localStorage.getItem(QUEUE) || "null"); } catch (e) { return null; } }
  function note(show) {
    document.querySelectorAll("[data-keep-note]").forEach(function (n) { n.hidden = !show; });
  }
  function send(item) {
    sending = true;
    return fetch(item.url, {method: "POST", credentials: "same-origin", body: item.body, redirect: "manual",
                            headers: {"Content-Type": "application/x-www-form-urlencoded"}})
      .then(function (r) {
        // Busy (429) or failing (5xx): no answer yet; kept, and sent again.
        if (r.status === 429 || r.status >= 500) throw new Error("server busy");
        localStorage.removeItem(QUEUE);   // answered (the redirect, or a refusal page): never sent again
        location.href = item.page;        // the page, with the server's message (sending stays true: leaving)
      })
      .catch(function (error) { sending = false; throw error; });   // not answered: kept, sent again later
  }
  function flush() {
    var item = kept();
    if (!item || sending) return;
    if (item.page !== location.pathname) return;   // another drive's page sends it
    send(item).catch(function () { note(true); });
  }
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form[data-keep-send]")) return;
    e.preventDefault();
    if (sending) return;
    var item = {url: form.action, body: new URLSearchParams(new FormData(form)).toString(), page: location.pathname};
    localStorage.setItem(QUEUE, JSON.stringify(item));
    form.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    send(item).catch(function () {
      note(true);   // kept: "online" or the timer sends it
      form.querySelectorAll("button").forEach(function (b) { b.disabled = false; });
    });
  });
  window.addEventListener("online", flush);
  setInterval(flush, 10000);
  flush();
})();
