/* The result-entry form on a phone: a send that survives a lost connection. The answers are
   kept on the phone with their client key and re-sent when the connection returns; the server
   records a key only once. A kept entry records what it was for: the drive and player
   ("CODE:id", the form's data-for), the hand and the table. The server refuses an entry for a
   hand or table that is no longer the player's ("stale": dropped, and the page says so); an
   entry another player left on this phone ("Leave this phone", then someone else joined) is
   dropped unsent, and the server refuses one all the same (its body names the player whose
   form it was: "stale" and "player", dropped, the server's message shown as it is). (The
   form's points preview is static/js/preview.js.) */
(function () {
  "use strict";
  var QUEUE = "ff-entry-queue", DRAFT = "ff-entry-draft";
  var form = document.querySelector("[data-entry-form]");

  function csrfToken() {
    var m = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }
  function queued() { try { return JSON.parse(localStorage.getItem(QUEUE) || "null"); } catch (e) { return null; } }
  function showError(text) {
    var box = document.querySelector("[data-entry-error]");
    if (!box) return;
    box.textContent = text || ""; box.hidden = !text;
    if (text) box.scrollIntoView({behavior: "smooth", block: "center"});
  }
  // The questions the server found unanswered or wrong (the form's field names) are marked, as
  // the page the server renders marks them (templates/scoring/partials/result_fields.html).
  function markUnanswered(errors) {
    if (!form) return;
    form.querySelectorAll("fieldset[data-field]").forEach(function (box) {
      box.classList.toggle("invalid", !!(errors && errors[box.dataset.field]));
    });
  }
  function send(item) {
    return fetch(item.url, {
      method: "POST", credentials: "same-origin", body: item.body,
      headers: {"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded", "X-CSRFToken": csrfToken()}
    }).then(function (r) {
      return r.json().catch(function () { return {ok: false, message: "The server could not read the form; reload the page."}; })
        .then(function (data) {
          localStorage.removeItem(QUEUE);  // answered: sent, or refused with a reason
          if (data.ok || data.stale) localStorage.removeItem(DRAFT);
          if (data.ok) { location.href = item.done; }
          else if (data.stale && !data.player) { showError("Your entry was not sent: the hand had moved on. " + data.message); }
          else { showError(data.message); markUnanswered(data.errors); }
          return data;
        });
    });
  }
  function drivePart(marker) { return String(marker || "").split(":")[0]; }
  function flush() {
    var item = queued();
    if (!item || !form) return;
    var mine = form.dataset["for"];
    if (item["for"] !== mine) {
      if (item["for"] && drivePart(item["for"]) !== drivePart(mine)) return;  // another drive's: its own page sends it
      localStorage.removeItem(QUEUE);  // another player's (or from before entries said whose): never sent as this one's
      showError("An entry another player left on this phone was not sent.");
      return;
    }
    var note = document.querySelector("[data-queue-note]");
    send(item).catch(function () { if (note) note.hidden = false; });
  }
  window.addEventListener("online", flush);
  setInterval(flush, 10000);
  flush();

  if (!form) return;
  var revision = form.querySelector('input[name="seen_revision"]');
  var marker = [form.dataset["for"], form.dataset.hand, form.dataset.table, revision ? revision.value : ""].join("/");
  function keepDraft() {
    var answers = [];
    form.querySelectorAll("input[type=radio]:checked").forEach(function (input) { answers.push([input.name, input.value]); });
    localStorage.setItem(DRAFT, JSON.stringify({marker: marker, answers: answers}));
  }
  function restoreDraft() {
    var draft;
    try { draft = JSON.parse(localStorage.getItem(DRAFT) || "null"); } catch (e) { draft = null; }
    if (!draft || draft.marker !== marker || !Array.isArray(draft.answers)) return;
    draft.answers.forEach(function (pair) {
      var input = Array.prototype.find.call(form.querySelectorAll("input[type=radio]"), function (i) {
        return i.name === pair[0] && i.value === pair[1];
      });
      if (input) input.checked = true;
    });
    form.dispatchEvent(new Event("change"));  // the preview and the questions asked follow
  }
  restoreDraft();
  form.addEventListener("change", keepDraft);

  function outOfDate() {
    var note = document.querySelector("[data-entry-stale]");
    if (note) note.hidden = false;
    var button = form.querySelector("button.primary");
    if (button) { button.disabled = true; button.dataset.stale = "1"; }
  }
  function follow() {
    if (!form.dataset.ws || !window.WebSocket) return;
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + form.dataset.ws), seen = null;
    socket.onmessage = function (event) {
      var data;
      try { data = JSON.parse(event.data); } catch (e) { return; }
      if (data.type === "instruction" && String(data.hand) === form.dataset.hand) { outOfDate(); return; }
      if (data.type !== "update" || !data.parts || typeof data.parts.phone !== "string") return;
      var state = (data.parts.phone.match(/data-table-state="([^"]*)"/) || [])[1] || "";
      if (seen === null) seen = state;  // as the page was shown (read when the socket joined)
      else if (state !== seen) outOfDate();
    };
  }
  follow();
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var item = {url: form.action, body: new URLSearchParams(new FormData(form)).toString(), done: form.dataset.done,
                "for": form.dataset["for"], hand: form.dataset.hand, table: form.dataset.table};
    localStorage.setItem(QUEUE, JSON.stringify(item));
    var button = form.querySelector("button.primary");
    if (button) button.disabled = true;
    send(item).catch(function () {
      var note = form.querySelector("[data-queue-note]");
      if (note) note.hidden = false;
    }).then(function () { if (button && !button.dataset.stale) button.disabled = false; });
  });
})();
