/* The shared client of a digital table's screen (/<CODE>/play) and of the organiser's view of one
   (watch), for every game. Plain JS, no build step. The server is the authority: the page only
   shows the view it is sent and sends the player's choices with the version it saw and a client
   key. This file does the play socket (connecting, reconnecting with backoff, the watchdog, the
   version, the one pending action and its key, refusals), the seats, the table's title, the
   "reconnecting…" marker, the box saying where the player goes next, the status line's frame,
   the log's frame and the result box. The game's own script (static/games/<slug>/play.js,
   loaded after this one) says how its view looks and which actions it offers:

     PlayScreen.register(function (client) {
       return { render: function (view) { ... }, status: function (view) { return "..."; } };
     });

   docs/games.md lists what ``client`` offers and what the returned screen may define.

   Every name is written as text, never as HTML, in a <bdi> of its own: a right-to-left name, or
   one ending in digits, does not reorder the words and numbers around it (docs/architecture.md).
   A line with names in it is a list of parts, texts and names, put into its element by put(). */
(function () {
  "use strict";
  var root = document.getElementById("play");
  var WATCH = !!root && root.dataset.mode === "watch";
  var $ = function (id) { return document.getElementById(id); };
  var dataBlock = document.getElementById("game-data");
  var DATA = dataBlock ? JSON.parse(dataBlock.textContent) : {};

  var ws = null, retry = null, backoff = 500, view = null, seats = [], stopped = false, shownTable = null, shownHand = null, moves = false;
  var ending = "";             // the drive ends with this hand: the server's words for it (no move follows)
  var movement = [];           // [[the mover's seat, words], [the seat on their left, words]] once the result is in
  var pending = null;          // the one action sent and not yet answered: {key, frame}
  var screen = null;           // the game's screen (PlayScreen.register)
  // The watchdog: a socket that has heard nothing for QUIET_MS asks for its view again (a missed
  // move, however it was missed, shows within that); one whose question gets no answer within
  // ANSWER_MS is closed and reconnects (a socket left half-open by a sleeping phone or a network
  // change). A page coming back into view asks at once.
  var QUIET_MS = window.PLAY_QUIET_MS || 20000, ANSWER_MS = 5000;
  var heardAt = Date.now(), askedAt = 0;
  var skew = 0;                // the server's clock less this phone's, in seconds (each state frame's "now")

  function key() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }
  function el(tag, parts, cls) {
    var e = document.createElement(tag);
    put(e, parts);
    if (cls) e.className = cls;
    return e;
  }
  // The element's content becomes ``parts``: a text, a node, or a list of them (nested lists
  // too); texts are added as text nodes, never parsed as HTML.
  function put(e, parts) {
    e.textContent = "";
    add(e, parts);
  }
  function add(e, parts) {   // as put(), after what the element holds
    if (Array.isArray(parts)) parts.forEach(function (p) { add(e, p); });
    else if (parts !== undefined && parts !== null) e.append(parts);
  }
  function bdi(name) { return el("bdi", name); }
  var sentence = window.sentenceParts;   // static/js/sentence.js: its names as <bdi>s
  function nameOf(seat) {
    var s = seats[seat];
    return bdi(s ? s.name : "Seat " + (seat + 1));
  }
  // [a, ", ", b, " and ", c]: the items with separators between them (``last`` before the last).
  function joined(items, sep, last) {
    var out = [];
    items.forEach(function (item, i) {
      if (i) out.push(i === items.length - 1 && last ? last : sep);
      out.push(item);
    });
    return out;
  }
  function listNames(list) { return joined(list.map(nameOf), ", ", " and "); }
  // A seat in a sentence: "You"/"you" on that seat's own phone, else its player's name.
  function who(seat, start) { return view && seat === view.seat ? (start ? "You" : "you") : nameOf(seat); }
  function whose(seat) { return view && seat === view.seat ? "your" : [nameOf(seat), "’s"]; }
  // A button that does something on this seat's phone (disabled on the organiser's view).
  function button(text, onclick) {
    var b = el("button", text);
    b.type = "button";
    b.disabled = WATCH;
    b.addEventListener("click", onclick);
    return b;
  }
  // The message line (#message: a refusal, "wait for your turn", "Hand 2 has started…") speaks
  // of the table as it was when it was said: it goes once a newer view comes (a move, the turn
  // passed, the hand over, the next hand) unless its ``keep(view, hand)`` says it still holds.
  // A game's screen may write the line itself: what it wrote is dated to the view then shown.
  var said = { text: "", hand: null, version: null, keep: null };
  function message(text, keep) {
    var m = $("message");
    if (!m) return;
    put(m, sentence(text));
    said = { text: m.textContent, hand: shownHand, version: view ? view.version : null, keep: keep || null };
  }
  // A new view (``v`` of ``hand``): clear the message line if what it said is out of date.
  function messageAgainst(v, hand) {
    var m = $("message");
    if (!m || !m.textContent) return;
    if (m.textContent !== said.text) said = { text: m.textContent, hand: shownHand, version: view ? view.version : null, keep: null };
    if (said.version === "next") { said.hand = hand; said.version = v.version; return; }   // the view a refusal comes with
    if (hand === said.hand && v.version === said.version) return;
    if (said.keep && said.keep(v, hand)) return;
    m.textContent = "";
    said = { text: "", hand: null, version: null, keep: null };
  }
  function sendFrame(frame) { ws.send(JSON.stringify(frame)); }

  // --- the socket -------------------------------------------------------------------------
  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + location.host + root.dataset.ws);
    ws.onopen = function () {
      heardAt = Date.now(); askedAt = 0;
      $("conn").hidden = true;
      backoff = 500;
      // Re-send only what was never answered, with the same key: the server applies it once.
      if (pending) sendFrame(pending.frame);
      sendFrame({ type: "sync" });
    };
    ws.onmessage = function (event) {
      heardAt = Date.now(); askedAt = 0;
      $("conn").hidden = true;   // heard: connected, whatever the browser said of the network
      var msg;
      try { msg = JSON.parse(event.data); } catch (e) { return; }
      receive(msg);
    };
    ws.onclose = function (event) {
      ws = null;
      if (event.code === 4403 || stopped) return;   // refused: reconnecting would not help
      if (event.code === 4401) { location.reload(); return; }   // signed out: the page sends the phone to join
      $("conn").hidden = false;
      retry = setTimeout(function () { retry = null; connect(); }, backoff);
      backoff = Math.min(backoff * 2, 10000);
    };
  }

  // The player's action (an object with its ``type``), sent with the version seen, the basis and
  // a new key. One at a time: true when it is sent (or kept to send once the socket is back),
  // false when it is not (the organiser's view, no view yet, or the last one still unanswered).
  function send(action) {
    if (WATCH || !view) return false;
    if (pending) { message("One moment: your last choice is still on its way."); return false; }
    // basis: what this seat's choice rests on; the server accepts it despite a newer version
    // when only other seats' simultaneous moves happened meanwhile.
    var frame = Object.assign({}, action, { version: view.version, basis: view.basis, key: key() });
    pending = { key: frame.key, frame: frame };
    sentAt = Date.now();
    message("");
    if (ws && ws.readyState === 1) sendFrame(frame);
    else {  // kept: the socket sends it (same key, applied once) as soon as it is back
      $("conn").hidden = false;
      message("Not connected: your choice will be sent when the connection is back.");
    }
    render();
    return true;
  }

  // A tap sent a move and the screen changed under the finger (a list closed, the page got
  // shorter): the second tap of a double tap, within DOUBLE_TAP_MS, does not follow a link or
  // open a summary that moved up under it (such as "Back to the drive" below a game's list of
  // choices). The game's own buttons stay live: a quick next move is the player's.
  var sentAt = 0, DOUBLE_TAP_MS = 400;
  if (root) root.addEventListener("click", function (e) {
    var away = e.target && e.target.closest && e.target.closest("a[href], summary");
    if (away && Date.now() - sentAt < DOUBLE_TAP_MS) { e.preventDefault(); e.stopPropagation(); }
  }, true);

  // Is a bot playing the seat of ``v`` (a view) now?
  function botted(list, v) {
    return !!(v && v.seat !== null && v.seat !== undefined && list[v.seat] && list[v.seat].bot);
  }

  function receive(msg) {
    if (msg.type === "state") {
      if (typeof msg.now === "number") skew = msg.now - Date.now() / 1000;
      // Never go back: a view older than the one shown (same table and hand) is stale.
      var sameHand = !!view && msg.table === shownTable && msg.hand === shownHand;
      if (sameHand && msg.view.version < view.version) return;
      var moved = $("instruction");
      if (moved && !moved.hidden && msg.hand >= Number(moved.dataset.hand)) moved.hidden = true;   // at the new table now
      var next = view && msg.hand > shownHand;   // the hand shown is over: this is the player's next one
      var wasBot = botted(seats, view);
      seats = msg.seats || seats;
      moves = !!msg.moves;
      ending = msg.ending || "";
      movement = msg.movement || [];
      var nowBot = botted(seats, msg.view);
      messageAgainst(msg.view, msg.hand);
      if (screen.update) screen.update(msg.view, view, sameHand);
      view = msg.view;
      root.removeAttribute("data-no-view");   // (the game's whole screen from now on: _play_style.html)
      shownTable = msg.table; shownHand = msg.hand;
      overScreen(false);
      $("table-title").textContent = "Table " + msg.table + ", hand " + msg.hand;
      render();
      var hand = msg.hand;
      // Said for as long as that hand is being played.
      if (next) message("Hand " + hand + " has started: you are at Table " + msg.table + ".",
                        function (v, h) { return h === hand && !finished(v); });
      // Said at once (the message line is an alert) when the organiser hands this seat to a
      // bot or gives it back; the status line says it for as long as it lasts. "A bot has taken
      // over" stays while the bot plays on (its moves are new views), until the hand is over.
      else if (sameHand && !WATCH && nowBot !== wasBot) {
        if (nowBot) message("A bot has taken over your seat.", function (v, h) { return h === hand && !finished(v) && botted(seats, v); });
        else message("Your seat is yours again: play on.");
      }
    } else if (msg.type === "ok") {
      if (pending && msg.key === pending.key) { pending = null; message(""); }
    } else if (msg.type === "error" && msg.elsewhere) {
      // No hand of this player's here now (a table with cards, none, the drive over): where to go.
      pending = null;
      showWhere(msg.message, msg.elsewhere.hand, msg.elsewhere.href, msg.elsewhere.button);
      // (No hand shown: the status line says so in a few words; where to go is said once, above.)
      if (!view) { put($("status"), "No hand of yours is played on this page now."); if (screen.noHand) screen.noHand(); }
      else render();   // the status line says the hand shown again, not a wait for a hand now played elsewhere
    } else if (msg.type === "error") {
      if (pending && (!msg.key || msg.key === pending.key)) pending = null;
      message(msg.message);
      if (view) said.version = "next";   // a refused move's view follows it: the refusal is about that one
    } else if (msg.type === "instruction") {
      showInstruction(msg);
    } else if (msg.type === "waiting") {
      put($("status"), sentence(msg.message));
      // The next hand at a table on the phones, not started yet: said above a finished hand.
      if (view && msg.hand > shownHand) showWhere(msg.message, msg.hand, null, null);
      // The hand shown is over though its last view never came (the server stopped just after
      // the organiser's close): its controls can do nothing now, so none stays live.
      if (view && msg.hand > shownHand && !finished(view)) overScreen(true);
      setTimeout(function () { if (ws && ws.readyState === 1) sendFrame({ type: "sync" }); }, 5000);
    }
  }

  // The game's screen greyed out and out of reach (``over``), or back.
  function overScreen(over) {
    var box = $("screen");
    if (!box || box.inert === over) return;
    box.inert = over;
    box.classList.toggle("over", over);
  }

  // The close's movement instruction (sent to this player's phones the moment the organiser
  // closes the hand): shown above the game, as text.
  function showInstruction(msg) {
    if (view && msg.hand <= shownHand) return;
    var text = new DOMParser().parseFromString(msg.html, "text/html").body.textContent.trim();
    if (text) showWhere(text, msg.hand, null, null);
  }
  // The box above the game: where this player goes for ``hand`` (as text), with the button to
  // their phone's page (``href``/``button`` from the server; else the page's own link and words).
  var LINK = $("instruction") && $("instruction").querySelector("[data-instruction-link]");
  var LINK_HOME = LINK && LINK.getAttribute("href"), LINK_WORDS = LINK && LINK.textContent;
  function showWhere(text, hand, href, button) {
    var box = $("instruction");
    if (!box) return;
    var news = box.hidden || box.querySelector("[data-instruction-text]").textContent !== text;
    put(box.querySelector("[data-instruction-text]"), sentence(text));
    box.querySelector("[data-instruction-text]").classList.toggle("long", text.length > 40);   // a sentence, not "Stay at Table 3"
    if (LINK) { LINK.setAttribute("href", href || LINK_HOME); LINK.textContent = button || LINK_WORDS; }
    box.dataset.hand = String(hand);
    box.hidden = false;
    if (news && box.scrollIntoView) box.scrollIntoView({ block: "start", behavior: "smooth" });
  }

  // --- drawing the view -------------------------------------------------------------------
  // A view with a ``result`` is a finished hand; ``result.points`` has each seat's points.
  function finished(v) { return !!v.result; }

  var BENCHED = root ? root.dataset.stoodIn || "" : "";   // tables.frames.STOOD_IN, from the page
  // The keyboard's place, kept across each redraw (static/js/play_focus.js; a phone's page only).
  var keeper = root && !WATCH && window.PlayFocus ? window.PlayFocus(root, "status") : null;
  function render() {
    if (!view) return;
    var focused = keeper && keeper.before();
    var v = view, me = v.seat;
    var ul = $("seats");
    ul.textContent = "";
    var away = [];   // seats waited for whose player has no phone in the drive (tables.screen_facts.seat_names)
    // Every seat's chip stays in sight (the row wraps; _play_style.html): a long name ends in an
    // ellipsis there, and the chip's title says it whole.
    seats.forEach(function (s, i) {
      var about = (screen.seat && screen.seat(v, i)) || {};
      var note = (s.bot ? " (bot)" : s.away ? " (no phone)" : "") + (about.after || "");
      var li = el("li", [bdi(s.name), note]);
      li.title = s.name + note;   // (a title holds the name as it is: common/bidi.py)
      if (i === me) li.className = "me";
      if (about.waiting) li.className += " waiting";
      if (about.waiting && s.away && !finished(v)) away.push(i);
      ul.appendChild(li);
    });
    if (screen.render) screen.render(v);
    put($("status"), [statusLine(v), pending ? " — sending…" : "", awayLine(away)]);
    renderLog(v);
    renderResult(v);
    if (keeper) keeper.after(focused, function () { return screen.focusHome ? screen.focusHome(v) : null; });
  }

  // Why the hand may not move on: a seat it waits for has no phone (never joined, or signed
  // out). The table can tell the player, or the organiser can have a bot play the seat.
  function awayLine(away) {
    if (!away.length) return "";
    return [" ", listNames(away), away.length > 1 ? " have" : " has",
            " no phone in the drive, so the hand waits. Ask them to join on their phone, or the organiser to have a bot play for them."];
  }

  function statusLine(v) {
    var me = v.seat;
    if (!WATCH && !finished(v) && seats[me] && seats[me].bot) {
      return BENCHED;
    }
    return screen.status ? screen.status(v) : "";
  }

  // The table's last moves in words, newest first (the public log, ``view.log``: the game's
  // ``logLine`` says each entry, or null to leave it out).
  var LOG_LINES = WATCH ? 3 : 1;   // a phone's dock has room for the newest
  function renderLog(v) {
    var ul = $("log");
    if (!ul || !screen.logLine || !v.log) return;
    ul.textContent = "";
    var lines = [];
    for (var i = v.log.length - 1; i >= 0 && lines.length < LOG_LINES; i--) {
      var line = screen.logLine(v.log[i], v);
      if (line) lines.push(line);
    }
    lines.forEach(function (line) { ul.appendChild(el("li", line)); });
  }

  // The result box at the top once the hand is over: each seat's points (the game's
  // ``resultNote`` adds a word after a seat's), then the game's ``resultMore`` (nodes).
  function renderResult(v) {
    var box = $("result");
    if (!box) return;
    box.hidden = !finished(v);
    if (box.hidden) return;
    box.textContent = "";
    box.appendChild(el("h2", "The hand is over"));
    var ul = el("ul");
    v.result.points.forEach(function (p, i) {
      var note = screen.resultNote ? screen.resultNote(v, i) || "" : "";
      ul.appendChild(el("li", [nameOf(i), ": " + p + " point" + (Math.abs(p) === 1 ? "" : "s") + note]));
    });
    box.appendChild(ul);
    if (screen.resultMore) add(box, screen.resultMore(v));
    if (ending) box.appendChild(el("p", ending, "small"));   // (nobody moves: client.moves() is false)
    // Who moves after the hand, as the movement rule says at this table (drive/ending.py, moves_after):
    // "Ann moves up a table; Bob, on Ann’s left, moves down a table."
    if (moves && movement.length === 2) {
      var up = movement[0], down = movement[1];
      box.appendChild(el("p", [nameOf(up[0]), " " + up[1] + "; ", nameOf(down[0]), ", on ", nameOf(up[0]), "’s left, " + down[1] + "."], "small"));
    }
  }

  function watchdog() {
    if (stopped || !ws || ws.readyState !== 1) return;
    var now = Date.now();
    if (askedAt && now - askedAt > ANSWER_MS) {   // no answer: a new socket now, not after the old one's close
      var dead = ws;
      ws = null; dead.onclose = null; dead.onmessage = null;
      try { dead.close(); } catch (e) { /* already closing */ }
      $("conn").hidden = false;
      connect();
      return;
    }
    if (!askedAt && now - heardAt > QUIET_MS) {
      askedAt = now;
      sendFrame({ type: "sync" });
    }
  }

  // What a keyboard focuses is never left under the dock (#dock, sticky at the bottom of the
  // screen): the page scrolls it up above the dock, once the browser has scrolled it into the
  // screen. Not for a tap (a scroll under the finger would move what a second tap lands on), nor
  // for the dock's own controls. (Not a scroll padding of the dock's height: with one, a control
  // of the dock focused or tapped scrolled the page to its end.)
  function keepFocusAboveDock() {
    var dock = $("dock");
    if (!dock) return;
    root.addEventListener("focusin", function (e) {
      var t = e.target;
      if (dock.contains(t) || !t.matches || !t.matches(":focus-visible")) return;
      requestAnimationFrame(function () {
        var r = t.getBoundingClientRect(), d = dock.getBoundingClientRect();
        if (document.activeElement === t && r.bottom > d.top && r.top < d.bottom) window.scrollBy(0, r.bottom - d.top + 8);
      });
    });
  }

  function start() {
    keepFocusAboveDock();
    setInterval(watchdog, 1000);
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) { heardAt = 0; watchdog(); }
    });
    window.addEventListener("pagehide", function () { stopped = true; });
    window.addEventListener("offline", function () { $("conn").hidden = false; });
    window.addEventListener("online", function () {
      if (stopped) return;
      if (retry) { clearTimeout(retry); retry = null; backoff = 500; connect(); return; }   // now, not after the backoff
      if (ws && ws.readyState === 1) { askedAt = Date.now(); sendFrame({ type: "sync" }); }   // unanswered: replaced
    });
    connect();
  }

  // What the game's screen is given.
  var client = {
    root: root,
    watching: WATCH,          // the organiser's view: no seat, no cards, nothing to send
    data: DATA,               // the game's screen_data(), from the page's "game-data" block
    $: $, el: el, put: put, add: add, bdi: bdi, nameOf: nameOf, joined: joined, listNames: listNames,
    who: who, whose: whose, button: button,
    send: send,               // send(action): true when sent or kept to send
    render: render,           // draw the current view again (after a local choice changed)
    message: message,         // the one line under the actions ("" clears it)
    // The keyboard's place moves to the control whose data-focus is ``key`` (play_focus.js): the
    // focus goes there when the redraw that follows (render, send) takes away the control it is on.
    focusOn: function (key) { if (keeper) keeper.want(key); },
    view: function () { return view; },
    seats: function () { return seats; },   // [{position, name, bot, away}], by seat
    moves: function () { return moves; },   // whether anyone moves after this hand (not after the drive's last, nor at a lone table)
    // A bot plays this phone's seat now (the organiser's stand-in): nothing on the screen is the
    // player's to do, so the game's screen offers nothing (the status line says why).
    benched: function () { return !WATCH && botted(seats, view); },
    benchedWords: BENCHED,    // what the status line says meanwhile
    pending: function () { return pending ? pending.frame : null; },   // the action on its way
    serverNow: function () { return Date.now() / 1000 + skew; }   // Unix time by the server's clock
  };

  window.PlayScreen = {
    // make(client) returns the game's screen; the socket opens once it is registered.
    register: function (make) {
      if (!root || screen) return;
      screen = make(client) || {};
      start();
    }
  };
})();
