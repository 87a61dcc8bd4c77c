/* The result-entry form on a phone: a send that survives a lost connection. The answers are
   kept on the phone with their client key and re-sent when the connection returns; the server
   records a key only once. (The form's points preview is static/js/preview.js.) */
(function () {
  "use strict";
  var QUEUE = "ff-entry-queue";
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
  function send(item) {
    return fetch(item.url, {
      method: "POST", credentials: "same-origin", body: item.body,
      headers: {"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded", "X-CSRFToken": csrfToken()}
    }).then(function (r) {
      return r.json().catch(function () { return {ok: false, message: "The server could not read the form; reload the page."}; })
        .then(function (data) {
          localStorage.removeItem(QUEUE);  // answered: sent, or refused with a reason
          if (data.ok) { location.href = item.done; } else { showError(data.message); }
          return data;
        });
    });
  }
  function flush() {
    var item = queued();
    if (!item) return;
    var note = document.querySelector("[data-queue-note]");
    send(item).catch(function () { if (note) note.hidden = false; });
  }
  window.addEventListener("online", flush);
  setInterval(flush, 10000);
  flush();

  if (!form) return;
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var item = {url: form.action, body: new URLSearchParams(new FormData(form)).toString(), done: form.dataset.done};
    localStorage.setItem(QUEUE, JSON.stringify(item));
    var button = form.querySelector("button.primary");
    if (button) button.disabled = true;
    send(item).catch(function () {
      var note = form.querySelector("[data-queue-note]");
      if (note) note.hidden = false;
    }).then(function () { if (button) button.disabled = false; });
  });
})();
