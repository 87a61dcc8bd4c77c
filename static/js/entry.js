/* The result-entry form on a phone: a send that survives a lost connection. The answers are
   kept on the phone with their client key and re-sent when the connection returns; the server
   records a key only once. A kept entry records what it was for: the drive and player
   ("CODE:id", the form's data-for), the hand and the table. The server refuses an entry for a
   hand or table that is no longer the player's ("stale": dropped, and the page says so); an
   entry another player left on this phone ("Leave this phone", then someone else joined) is
   dropped unsent, and the server refuses one all the same (its body names the player whose
   form it was: "stale" and "player", dropped, the server's message shown as it is). An entry
   kept is sent from the phone's own page too (templates/phone/me.html loads this script),
   where the player may have gone while the connection was away. (The form's points preview is
   static/js/preview.js.) */
(function () {
  "use strict";
  var QUEUE = "ff-entry-queue", DRAFT = "ff-entry-draft";
  var form = document.querySelector("[data-entry-form]");
  // What sends an entry kept on this phone: its form's page, or the phone's own page
  // (``data-entry-kept``, templates/phone/me.html), where the player may have gone meanwhile.
  var sender = form || document.querySelector("[data-entry-kept]");

  function csrfToken() {
    var m = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }
  function queued() { try { return JSON.parse(localStorage.getItem(QUEUE) || "null"); } catch (e) { return null; } }
  // ``about``: the refusal is of the answers themselves (preview.js drops it once they differ).
  function showError(text, about) {
    var box = document.querySelector("[data-entry-error]");
    if (!box) return;
    // Its names each in a <bdi> (static/js/sentence.js, loaded first, on the same page).
    window.sentenceInto(box, text);
    box.hidden = !text;
    box.classList.toggle("msg-error", !!text);  // (the phone's own page holds the box unmarked till then)
    box.toggleAttribute("data-about-answers", !!about);
    if (about && form && window.resultAnswers) box.dataset.answers = window.resultAnswers(form);
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
      // Busy (too many requests from this address at once: 429) or failing (5xx) and no answer of
      // the application's: not an answer; the entry stays queued and goes again (as offline).
      if ((r.status === 429 || r.status >= 500) && !/json/.test(r.headers.get("Content-Type") || "")) {
        throw new Error("server busy");
      }
      return r.json().catch(function () { return {ok: false, message: "The server could not read the form; reload the page."}; })
        .then(function (data) {
          localStorage.removeItem(QUEUE);  // answered: sent, or refused with a reason
          var waiting = document.querySelector("[data-queue-note]");  // "Not sent yet…" no longer holds
          if (waiting) waiting.hidden = true;
          if (data.ok || data.stale) dropDraftOf(item);
          if (data.ok) { location.href = item.done; }
          // (``late``: it came after its hand's close and the organiser has it: said as it is)
          else if (data.stale && !data.player) { showError((data.late ? "" : "Your entry was not sent: the hand had moved on. ") + data.message); }
          else { showError(data.message, data.answers); markUnanswered(data.errors); }
          return data;
        });
    });
  }
  // The draft of the form ``item`` was sent from (its drive and player, hand and table), if kept.
  function dropDraftOf(item) {
    var draft;
    try { draft = JSON.parse(localStorage.getItem(DRAFT) || "null"); } catch (e) { draft = null; }
    var of = [item["for"], item.hand, item.table].join("/") + "/";
    if (draft && String(draft.marker).indexOf(of) === 0) localStorage.removeItem(DRAFT);
  }
  function drivePart(marker) { return String(marker || "").split(":")[0]; }
  function flush() {
    var item = queued();
    if (!item || !sender) return;
    var mine = sender.dataset["for"];
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
  // Answers kept but not sent (a reload, a refused send, the page opened again) come back, and
  // the page says so: answers a phone filled in by itself, unannounced, were sent again unread.
  function restoreDraft() {
    var draft;
    try { draft = JSON.parse(localStorage.getItem(DRAFT) || "null"); } catch (e) { draft = null; }
    if (!draft || draft.marker !== marker || !Array.isArray(draft.answers)) return;
    var changed = false;
    draft.answers.forEach(function (pair) {
      var input = Array.prototype.find.call(form.querySelectorAll("input[type=radio]"), function (i) {
        return i.name === pair[0] && i.value === pair[1];
      });
      if (input && !input.checked) { input.checked = true; changed = true; }
    });
    if (!changed) return;
    var note = document.querySelector("[data-draft-note]");
    if (note) note.hidden = false;
    form.dispatchEvent(new Event("change"));  // the preview and the questions asked follow
  }
  restoreDraft();
  var clear = document.querySelector("[data-draft-clear]");
  if (clear) clear.addEventListener("click", function () {
    // This form's entry waiting to be sent again (a busy server, no connection) goes too: its
    // answers are the ones cleared.
    var item = queued();
    if (item && item["for"] === form.dataset["for"] && item.hand === form.dataset.hand && item.table === form.dataset.table) {
      localStorage.removeItem(QUEUE);
      var waiting = document.querySelector("[data-queue-note]");
      if (waiting) waiting.hidden = true;
      var button = form.querySelector("button.primary");
      if (button) button.disabled = false;
      sending = false;
    }
    form.reset();  // the answers as the server showed them
    document.querySelector("[data-draft-note]").hidden = true;
    form.dispatchEvent(new Event("change"));  // the preview follows (and the draft keeps these answers)
    localStorage.removeItem(DRAFT);
  });
  form.addEventListener("change", keepDraft);

  var sending = false;  // the phone's own send changes its table: not a change from elsewhere
  function outOfDate() {
    if (sending) return;
    var note = document.querySelector("[data-entry-stale]");
    if (note) note.hidden = false;
    var button = form.querySelector("button.primary");
    if (button) { button.disabled = true; button.dataset.stale = "1"; }
  }
  // The phone's live socket, as its own page has it (reconnecting when it drops: a phone put
  // to sleep): the table's state in each update against the one this page was shown with.
  // Signed out (4401) by the organiser, or taken out, the page reloads: the server sends the
  // phone to joining and says why (the form only said it was out of date). Left
  // by the phone itself ("Leave this phone" in another tab, which may join as someone else),
  // the form stays, out of date.
  function follow() {
    if (!form.dataset.ws || !window.WebSocket) return;
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var shown = form.dataset.tableState, lastStamp = 0, wait = 1000, left = false;
    function connect() {
      var socket = new WebSocket(scheme + location.host + form.dataset.ws);
      socket.onopen = function () { wait = 1000; };
      socket.onmessage = function (event) {
        var data;
        try { data = JSON.parse(event.data); } catch (e) { return; }
        if (data.type === "error") { left = !!data.left; return; }  // (said before a close)
        if (data.type === "instruction") { outOfDate(); return; }  // a close: this hand is over
        if (data.type !== "update" || !data.parts || typeof data.parts.phone !== "string") return;
        if (data.stamp && data.stamp < lastStamp) return;  // an older update arriving late
        if (data.stamp) lastStamp = data.stamp;
        var state = (data.parts.phone.match(/data-table-state="([^"]*)"/) || [])[1] || "";
        if (state !== shown) outOfDate();
      };
      socket.onclose = function (event) {
        if (event.code === 4401 && !left) { location.reload(); return; }  // signed out: to joining, told why
        if (event.code >= 4000) { outOfDate(); return; }  // refused: this phone holds no player now
        setTimeout(connect, wait);
        wait = Math.min(wait * 2, 30000);
      };
    }
    connect();
  }
  follow();
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var item = {url: form.action, body: new URLSearchParams(new FormData(form)).toString(), done: form.dataset.done,
                "for": form.dataset["for"], hand: form.dataset.hand, table: form.dataset.table};
    localStorage.setItem(QUEUE, JSON.stringify(item));
    var button = form.querySelector("button.primary");
    if (button) button.disabled = true;
    sending = true;
    send(item).then(function (data) { if (!data.ok) sending = false; }, function () {
      sending = false;
      var note = form.querySelector("[data-queue-note]");
      if (note) note.hidden = false;
    }).then(function () { if (button && !button.dataset.stale) button.disabled = false; });
  });
})();
