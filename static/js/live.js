/* Live updates for the board, the dashboard and the phones (no build step, no dependencies).
   The server pushes rendered HTML fragments: {"type": "update", "stamp": n, "parts": {key: html}}.
   Every element with data-live="key" is replaced. On (re)connect the server sends the current
   state at once, so nothing is missed. While the socket is down the page says so, and phones
   poll a fallback URL over plain HTTP. */
(function () {
  "use strict";
  // The dashboard's players list asks before taking a player out: one handler for every button
  // (data-take-out holds the name), not a confirm() written out 400 times in the list that each
  // full update sends again.
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-take-out]");
    if (button && !window.confirm("Take " + button.getAttribute("data-take-out") + " out of the drive? They are " +
        "not seated again and their phone no longer acts for them; their points stay. \u201cbring back\u201d " +
        "brings them back.")) {
      event.preventDefault();
    }
  });
  var root = document.querySelector("[data-ws]");
  if (!root) return;
  // A form of the page sent as a page is (not kept back by its confirm() or a script: the
  // listener on window hears a submit last): its answer is the next page. The socket closed
  // meanwhile as signed out ("Leave this phone" signs the phone out) must not reload the page
  // over it: the answer's message ("… has left this phone and the drive") would be lost.
  var leaving = false;
  window.addEventListener("submit", function (event) { if (!event.defaultPrevented) leaving = true; });
  window.addEventListener("pageshow", function () { leaving = false; });  // back to this page
  var statusEl = document.querySelector("[data-live-status]");
  var lastStamp = 0, lastRead = 0, results = [], delay = 500, socket = null, pingTimer = null, pollTimer = null, deferred = null;
  var pageIndex = 0, moveIndex = 0, pagerTimer = null;

  function csrfToken() {
    var m = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }
  function addCsrf(el) {
    // Pushed fragments are rendered once for everyone, so they carry no CSRF token: add ours.
    el.querySelectorAll('form[method="post"], form[method="POST"]').forEach(function (form) {
      var input = form.querySelector('input[name="csrfmiddlewaretoken"]');
      if (!input) {
        input = document.createElement("input");
        input.type = "hidden"; input.name = "csrfmiddlewaretoken";
        form.prepend(input);
      }
      if (!input.value) input.value = csrfToken();
    });
  }
  // A part is busy while something is typed in it, or while a button of it is pressed: replaced
  // between the press and the release, the button the press began on is gone and the click is
  // lost (found on a busy machine: "Start hand 1" pressed as the seating's update arrived).
  var pressed = null;
  function busy(el) {
    var a = document.activeElement;
    if (pressed && el.contains(pressed)) return true;
    return a && el.contains(a) && (a.tagName === "INPUT" || a.tagName === "TEXTAREA" || a.tagName === "SELECT") && a.value;
  }
  function words(el) { return el.textContent.replace(/\s+/g, " ").trim(); }
  function clearFlash(key) {
    if (key === "phone") {
      document.querySelectorAll("main.phone > ul.messages").forEach(function (m) { m.remove(); });
    } else if (key === "dashboard") {
      // What the organiser just did ("Hand 1 started.") is overtaken by what the live part now
      // shows: it goes. A refusal (an error, a warning) stays to be read.
      document.querySelectorAll("main.page > ul.messages > li:not(.msg-error):not(.msg-warning)").forEach(function (m) {
        var list = m.parentNode;
        m.remove();
        if (!list.children.length) list.remove();
      });
    }
  }
  function apply(parts, stamp, read) {
    if (stamp && stamp < lastStamp) return;  // an older update arriving late
    if (stamp) lastStamp = stamp;
    Object.keys(parts).forEach(function (key) {
      var el = document.querySelector('[data-live="' + key + '"]');
      if (!el) return;
      if (busy(el)) { deferred = {parts: parts, stamp: stamp, read: read}; return; }  // never wipe what is being typed
      // A panel the organiser opened (a table's "A player has left?") stays open.
      var open = Array.prototype.map.call(el.querySelectorAll("details[open][id]"), function (d) { return d.id; });
      var before = words(el);
      el.innerHTML = parts[key];
      // A message about what this phone or the organiser just did ("Disputed: …", "Hand 1
      // started.") stays until what the page shows changes (settled, the next hand), then goes.
      if (words(el) !== before) clearFlash(key);
      open.forEach(function (id) { var d = document.getElementById(id); if (d) d.open = true; });
      addCsrf(el);
    });
    if (read) {
      // The update shows every change committed before it was read; a result message newer
      // than that is shown again on top of it (its update is on its way).
      lastRead = Math.max(lastRead, read);
      results = results.filter(function (r) { return r.commit > lastRead; });
      results.forEach(showResult);
    }
    paginate(true);
  }

  /* A table's result changed: {"type": "result", "table", "current", "status", "status_label",
     "progress": {done, total}, "totals": {player id: {total, facts: [..], hands}} (the seated
     players'), "ranks": [[player id, "=3"], ...] (everybody's place, best first: ranked on the
     server, scoring/standings.py), "commit"}. Shown at once; the full update that follows replaces it. */
  function onResult(r) {
    if (r.commit && r.commit <= lastRead) return;  // the page already shows it
    results.push(r);
    showResult(r);
    paginate(true);
  }
  function showResult(r) {
    if (r.current) {
      document.querySelectorAll("[data-progress]").forEach(function (el) {
        el.textContent = r.progress.done + " of " + r.progress.total + (r.progress.total === 1 ? " table done" : " tables done");
      });
      var card = document.getElementById("table-" + r.table);
      if (card) {
        card.dataset.status = r.status;
        var badge = card.querySelector(".badge");
        if (badge) { badge.className = "badge st-" + r.status; badge.textContent = r.status_label; }
      }
      if (r.status !== "playing") unring(String(r.table));
      if (r.progress.done >= r.progress.total) {
        // Every table done: nothing is left to close "anyway" (its question spoke of tables
        // without a result), until the full update that follows says the same.
        document.querySelectorAll('form input[name="force"]').forEach(function (input) { input.form.hidden = true; });
      }
    }
    if (r.totals) document.querySelectorAll("table[data-standings]").forEach(function (t) { retotal(t, r.totals, r.ranks || []); });
  }
  /* The close's question "Table 1 still playing on the phones: ring the bell?" (its form's
     data-bell: "1, 3") no longer names a table whose hand is over, and goes with the last one:
     else a close clicked before the full update came asked to ring a bell on a finished hand
     (a "no" closed nothing; a test's dismissed dialog, likewise). */
  function tableWords(numbers) {
    if (!numbers.length) return "";
    var list = numbers.length === 1 ? numbers[0] : numbers.slice(0, -1).join(", ") + " and " + numbers[numbers.length - 1];
    return "Table" + (numbers.length > 1 ? "s " : " ") + list;
  }
  function unring(table) {
    document.querySelectorAll("form[data-bell]").forEach(function (form) {
      var before = form.getAttribute("data-bell").split(", ");
      var after = before.filter(function (n) { return n !== table; });
      if (after.length === before.length) return;
      if (!after.length) {
        form.removeAttribute("data-bell");
        form.removeAttribute("onsubmit");
        return;
      }
      form.setAttribute("data-bell", after.join(", "));
      var ask = form.getAttribute("onsubmit") || "";
      form.setAttribute("onsubmit", ask.replace(tableWords(before) + " still playing", tableWords(after) + " still playing"));
    });
  }
  /* A closed hand's movement instruction for this phone: {"type": "instruction", "stamp",
     "hand", "html"} (the fragment's own `[data-instruction]` paragraph), shown at once on top
     of what the phone shows; the full update that follows, newer, replaces the whole part. */
  function onInstruction(m) {
    if (m.stamp && m.stamp < lastStamp) return;  // a newer update already shows it
    var part = document.querySelector('[data-live="phone"]');
    if (!part) return;
    var box = document.createElement("div");
    box.innerHTML = m.html;
    var fresh = box.firstElementChild;
    if (!fresh) return;
    var old = part.querySelector("[data-instruction]");
    if (old) { old.replaceWith(fresh); return; }
    var header = part.querySelector("header");
    if (header) header.after(fresh); else part.prepend(fresh);
  }
  function cell(row, cls, text) { var c = row.querySelector("." + cls); if (c) c.textContent = text; }
  function retotal(table, totals, ranks) {
    var body = table.tBodies[0];
    var rows = {};
    Array.prototype.forEach.call(body.rows, function (row) { if (row.dataset.player) rows[row.dataset.player] = row; });
    Object.keys(totals).forEach(function (id) {
      var row = rows[id], t = totals[id];
      if (!row) return;
      row.dataset.total = t.total;
      cell(row, "total", t.total);
      (t.facts || []).forEach(function (n, i) { cell(row, "fact-" + i, n); });
      cell(row, "hands", t.hands);
    });
    ranks.forEach(function (place) {
      var row = rows[place[0]];
      if (!row) return;
      cell(row, "rank", place[1]);
      body.appendChild(row);  // in the server's order
    });
  }
  function applyDeferred() {
    setTimeout(function () { if (deferred && !busy(root)) { var d = deferred; deferred = null; lastStamp = 0; apply(d.parts, d.stamp, d.read); } }, 50);
  }
  document.addEventListener("focusout", applyDeferred);
  document.addEventListener("pointerdown", function (e) { pressed = e.target; }, true);
  ["pointerup", "pointercancel"].forEach(function (kind) {
    // After the click the release brings (a click is dispatched after the release, at once).
    document.addEventListener(kind, function () { setTimeout(function () { pressed = null; applyDeferred(); }, 0); }, true);
  });
  function setStatus(live) {
    if (!statusEl) return;
    statusEl.textContent = live ? "Live" : "Live updates paused — reconnecting…";
    statusEl.classList.toggle("paused", !live);
  }
  function poll() {
    var url = root.dataset.fallback;
    if (!url) return;
    fetch(url, {credentials: "same-origin"}).then(function (r) {
      // Signed out meanwhile: the page again, which sends the phone to joining and says why.
      if (r.redirected && r.url.indexOf(url) === -1) { location.reload(); return null; }
      return r.ok ? r.text() : null;
    })
      .then(function (html) { if (html !== null) { var p = {}; p[root.dataset.live] = html; apply(p, 0); } })
      .catch(function () {});
  }
  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + root.dataset.ws);
    socket.onopen = function () {
      delay = 500; setStatus(true);
      clearInterval(pollTimer); pollTimer = null;
      clearInterval(pingTimer);
      pingTimer = setInterval(function () { if (socket.readyState === 1) socket.send('{"type":"ping"}'); }, 25000);
    };
    socket.onmessage = function (e) {
      var data; try { data = JSON.parse(e.data); } catch (err) { return; }
      if (data.type === "update") apply(data.parts, data.stamp, data.read);
      else if (data.type === "result") onResult(data);
      else if (data.type === "instruction") onInstruction(data);
    };
    socket.onclose = function (e) {
      if (e.code === 4401) { if (!leaving) location.reload(); return; }  // this phone was signed out: back to joining
      setStatus(false); clearInterval(pingTimer);
      if (!pollTimer && root.dataset.fallback) pollTimer = setInterval(poll, 10000);
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }

  // The room the standings' rows have on the screen, as laid out now (all rows shown, the page
  // note with a text). What follows the standings must stay on the screen too: the page note,
  // the tie-break's, and the chart (a wide screen shows the chart beside them: app.css places
  // it in the side column, out of the flow).
  function roomForRows(table, chart, note) {
    var box = table.getBoundingClientRect(), last = box.bottom;
    [note, document.querySelector(".board .tie-note"),
     chart && getComputedStyle(chart).position !== "absolute" ? chart : null].forEach(function (el) {
      if (el) last = Math.max(last, el.getBoundingClientRect().bottom);
    });
    // Down to the bottom of the board's column (the board's padding below it is not room: the
    // tie-break's note would be cut there), a few pixels spare.
    var main = table.closest(".main");
    var bottom = main ? main.getBoundingClientRect().bottom : window.innerHeight;
    return Math.min(bottom, window.innerHeight) - box.top - (last - box.bottom) - 4;
  }
  // How many of the standings' rows fit on the screen, each as tall as ``row``.
  function rowsThatFit(table, row, chart, note) {
    var rowH = row.getBoundingClientRect().height || 40;
    return Math.max(1, Math.floor(roomForRows(table, chart, note) / rowH));  // (never more than fit: the notes stay on the screen)
  }
  // Rows of different heights: the first row of each page, as many rows a page as fill the room.
  function pageStarts(rows, room) {
    var starts = [0], used = 0;
    rows.forEach(function (r, i) {
      var h = r.getBoundingClientRect().height;
      if (used > 0 && used + h > room) { starts.push(i); used = 0; }
      used += h;
    });
    return starts;
  }

  // Board: page through what does not fit on the screen, every 8 s: the seating's movement (who
  // sits where, while the room finds its seats) and the standings, each in its own pages.
  function paginate(keepPage) {
    fitPrizes();
    var movePages = paginateMovement(keepPage);  // first: the standings get the room it leaves
    var pages = paginateStandings(keepPage);
    // Keep the pages turning every 8 s: an update arriving meanwhile must not restart the clock
    // (in a burst of results the board would never leave its first page).
    if ((pages > 1 || movePages > 1) && (!pagerTimer || !keepPage)) {
      clearTimeout(pagerTimer);
      pagerTimer = setTimeout(function () { pagerTimer = null; pageIndex += 1; moveIndex += 1; paginate(true); }, 8000);
    } else if (pages <= 1 && movePages <= 1) { clearTimeout(pagerTimer); pagerTimer = null; }
  }

  // The prizes fill the screen; a list too long for it (many tied for a prize) is drawn smaller
  // until it fits, the winner, last and largest, still in sight (six runners-up tied would
  // push the winner off the screen).
  function fitPrizes() {
    var box = document.querySelector("[data-prizes]");
    if (!box) return;
    box.style.fontSize = "";
    var size = parseFloat(getComputedStyle(box).fontSize), least = 0.02 * Math.min(window.innerWidth, window.innerHeight);
    while (box.getBoundingClientRect().bottom > window.innerHeight && size > least) {
      size = Math.max(least, size * 0.93);
      box.style.fontSize = size + "px";
    }
  }

  // The movement takes at most its box (app.css: under half the screen, the standings keep the
  // rest); more tables than fit there are shown a page at a time, each table whole (at 30
  // tables the movement would push every standings row off the screen, and cut tables 17-30).
  // Paged, the box keeps one height, its own or the tallest table's if that is taller, so the
  // standings below have the same room on every page (their pages would skip and repeat rows).
  function paginateMovement(keepPage) {
    var box = document.querySelector("[data-movement]");
    if (!box) return 1;
    var items = Array.prototype.slice.call(box.children), starts = [0];
    box.style.height = box.style.maxHeight = "";
    items.forEach(function (el) { el.hidden = false; });
    if (box.scrollHeight > box.clientHeight + 1) {   // more than the box holds: pages of one height
      var tallest = Math.max.apply(null, items.map(function (el) { return el.getBoundingClientRect().height; }));
      var height = Math.max(box.clientHeight, Math.ceil(tallest));
      box.style.maxHeight = "none";
      box.style.height = height + "px";
    }
    for (var s = 0; s < items.length;) {   // each page's first table: the first that does not fit after s
      items.forEach(function (el, i) { el.hidden = i < s; });
      var limit = box.getBoundingClientRect().bottom + 0.5, next = -1;
      for (var i = s + 1; i < items.length && next < 0; i++) if (items[i].getBoundingClientRect().bottom > limit) next = i;
      if (next < 0) break;
      starts.push(next); s = next;
    }
    var pages = starts.length;
    if (!keepPage || moveIndex >= pages) moveIndex = 0;
    var from = starts[moveIndex], to = moveIndex + 1 < pages ? starts[moveIndex + 1] : items.length;
    items.forEach(function (el, i) { el.hidden = i < from || i >= to; });
    var note = document.querySelector("[data-movement-note]");
    if (note) { note.hidden = pages <= 1; note.textContent = "Tables, page " + (moveIndex + 1) + " of " + pages; }
    return pages;
  }

  function paginateStandings(keepPage) {
    var table = document.querySelector("table[data-pager]");
    if (!table) return 1;
    var rows = Array.prototype.slice.call(table.querySelectorAll("tbody tr"));
    rows.forEach(function (r) { r.hidden = false; });
    if (!rows.length) return 1;
    var chart = document.querySelector(".board .chart");
    var note = document.querySelector("[data-pager-note]");
    if (note) { note.hidden = false; note.textContent = "Standings, page 1 of 1"; }
    // Names that may take two lines (a phone held upright: app.css), of rows not all as tall:
    // pages of the rows that fill the room.
    var name = rows[0].querySelector(".name");
    var heights = rows.map(function (r) { return r.getBoundingClientRect().height; });
    if (name && getComputedStyle(name).whiteSpace !== "nowrap" && Math.max.apply(null, heights) > Math.min.apply(null, heights) + 1) {
      var starts = pageStarts(rows, roomForRows(table, chart, note)), count = starts.length;
      if (!keepPage || pageIndex >= count) pageIndex = 0;
      var first = starts[pageIndex], end = pageIndex + 1 < count ? starts[pageIndex + 1] : rows.length;
      rows.forEach(function (r, i) { r.hidden = i < first || i >= end; });
      if (note) {
        note.hidden = count <= 1;
        note.textContent = "Standings, page " + (pageIndex + 1) + " of " + count;
      }
      return count;
    }
    // A few rows over what fits (11 players where 10 fit): the rows a little tighter, all on one
    // screen, rather than a second page of one row; more than that, pages.
    table.classList.remove("tight");
    var fit = rowsThatFit(table, rows[0], chart, note);
    if (rows.length > fit) {
      table.classList.add("tight");
      var tight = rowsThatFit(table, rows[0], chart, note);
      if (rows.length <= tight) fit = tight; else table.classList.remove("tight");
    }
    var pages = Math.ceil(rows.length / fit);
    // With the chart below the standings, pages of even length (8 rows that fit 6 at a time:
    // 4 and 4, not 6 and 2), so the chart does not jump up and down as they turn. Beside them
    // (a wide screen), nothing moves: full pages, no screen half empty (not 11 players shown
    // 6 and 5 where 10 fit).
    var beside = !chart || getComputedStyle(chart).position === "absolute";
    var perPage = beside ? fit : Math.ceil(rows.length / pages);
    if (!keepPage || pageIndex >= pages) pageIndex = 0;
    rows.forEach(function (r, i) { r.hidden = Math.floor(i / perPage) !== pageIndex; });
    if (note) {
      note.hidden = pages <= 1;
      note.textContent = "Standings, page " + (pageIndex + 1) + " of " + pages;
    }
    return pages;
  }
  window.addEventListener("resize", function () { paginate(false); });
  addCsrf(document);
  paginate(false);
  // A panel the page was sent back to (``#stand-in-<table>``, after a stand-in): open, so the
  // next seat's button is at hand (not closed again after every one).
  var target = location.hash && document.getElementById(location.hash.slice(1));
  if (target && target.tagName === "DETAILS") target.open = true;
  window.liveResult = onResult;  // used by tests/browser/test_result_messages.py
  window.liveInstruction = onInstruction;  // and by its instruction test
  connect();
})();
