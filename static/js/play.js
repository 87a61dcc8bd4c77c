/* The game screen of a digital table (/<CODE>/play) and the organiser's view of one (watch).
   Plain JS, no build step. The server is the authority: this page only shows the view it is sent
   and sends the player's choices with the version it saw and a client key. Every name is written
   as text, never as HTML, in a <bdi> of its own: a right-to-left name, or one ending in digits,
   does not reorder the words and numbers around it (docs/architecture.md). A line with names
   in it is a list of parts, texts and names, put into its element by put(). */
(function () {
  "use strict";
  var root = document.getElementById("play");
  if (!root) return;
  var FILMS = JSON.parse(document.getElementById("film-names").textContent);
  var WATCH = root.dataset.mode === "watch";
  var $ = function (id) { return document.getElementById(id); };

  var ws = null, retry = null, backoff = 500, view = null, seats = [], stopped = false, shownTable = null, shownHand = null;
  var pending = null;          // the one action sent and not yet answered: {key, frame}
  var chosen = [];             // auction: cards tapped to offer or to give in exchange
  var accepting = null;        // the offer being accepted (its id)
  var fresh = [];              // the cards that came in at the last pass and draw (shown as new)
  var lastPass = null;         // the pass this phone sent last: {round, card}
  // The watchdog: a socket that has heard nothing for QUIET_MS asks for its view again (a missed
  // move, however it was missed, shows within that); one whose question gets no answer within
  // ANSWER_MS is closed and reconnects (a socket left half-open by a sleeping phone or a network
  // change). A page coming back into view asks at once.
  var QUIET_MS = window.PLAY_QUIET_MS || 20000, ANSWER_MS = 5000;
  var heardAt = Date.now(), askedAt = 0;

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
    (function add(p) {
      if (Array.isArray(p)) p.forEach(add);
      else if (p !== undefined && p !== null) e.append(p);
    })(parts);
  }
  function bdi(name) { return el("bdi", name); }
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
  function film(card) { return card === "J" ? 11 : parseInt(card.split("-")[0], 10); }
  function label(card) { return card === "J" ? "Joker" : card.split("-")[1]; }

  // --- the socket -------------------------------------------------------------------------
  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + location.host + root.dataset.ws);
    ws.onopen = function () {
      heardAt = Date.now(); askedAt = 0;
      $("conn").hidden = true;
      backoff = 500;
      // Re-send only what was never answered, with the same key: the server applies it once.
      if (pending) ws.send(JSON.stringify(pending.frame));
      ws.send(JSON.stringify({ type: "sync" }));
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

  function send(action) {
    if (WATCH || !view) return;
    if (pending) { $("message").textContent = "One moment: your last choice is still on its way."; return; }
    // basis: what this seat's choice rests on; the server accepts it despite a newer version
    // when only other seats' simultaneous moves happened meanwhile.
    var frame = Object.assign({}, action, { version: view.version, basis: view.basis, key: key() });
    pending = { key: frame.key, frame: frame };
    if (frame.type === "pass") lastPass = { round: view.round, card: frame.card };
    $("message").textContent = "";
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(frame));
    else {  // kept: the socket sends it (same key, applied once) as soon as it is back
      $("conn").hidden = false;
      $("message").textContent = "Not connected: your choice will be sent when the connection is back.";
    }
    render();
  }

  function receive(msg) {
    if (msg.type === "state") {
      // Never go back: a view older than the one shown (same table and hand) is stale.
      if (view && msg.table === shownTable && msg.hand === shownHand && msg.view.version < view.version) return;
      var moved = $("instruction");
      if (moved && !moved.hidden && msg.hand >= Number(moved.dataset.hand)) moved.hidden = true;   // at the new table now
      var next = view && msg.hand > shownHand;   // the hand shown is over: this is the player's next one
      seats = msg.seats || seats;
      if (!view || msg.table !== shownTable || msg.hand !== shownHand) fresh = [];
      else if (msg.view.round > view.round) fresh = cameIn(view, msg.view);
      if (!view || msg.view.version !== view.version) keepChoices(msg.view);
      view = msg.view;
      shownTable = msg.table; shownHand = msg.hand;
      $("table-title").textContent = "Table " + msg.table + ", hand " + msg.hand;
      render();
      if (next) $("message").textContent = "Hand " + msg.hand + " has started: you are at Table " + msg.table + ".";
    } else if (msg.type === "ok") {
      if (pending && msg.key === pending.key) { pending = null; $("message").textContent = ""; }
    } else if (msg.type === "error" && msg.elsewhere) {
      // No hand of this player's here now (a table with cards, none, the drive over): where to go.
      pending = null;
      showWhere(msg.message, msg.elsewhere.hand, msg.elsewhere.href, msg.elsewhere.button);
      if (!view) { $("status").textContent = msg.message; $("declare").hidden = true; }
    } else if (msg.type === "error") {
      if (pending && (!msg.key || msg.key === pending.key)) pending = null;
      $("message").textContent = msg.message;
    } else if (msg.type === "instruction") {
      showInstruction(msg);
    } else if (msg.type === "waiting") {
      $("status").textContent = msg.message;
      // The next hand at a table on the phones, not started yet: said above a finished hand.
      if (view && msg.hand > shownHand) showWhere(msg.message, msg.hand, null, null);
      setTimeout(function () { if (ws && ws.readyState === 1) ws.send(JSON.stringify({ type: "sync" })); }, 5000);
    }
  }

  // Another seat's move must not undo this player's half-made choice: the cards tapped stay
  // chosen while this seat still holds them free, and an offer being accepted while it stands.
  function keepChoices(next) {
    if (next.phase !== "auction") { chosen = []; accepting = null; return; }
    var free = (next.hand || []).slice();
    lockedCards(next).forEach(function (c) { var i = free.indexOf(c); if (i >= 0) free.splice(i, 1); });
    chosen = chosen.filter(function (c) { var i = free.indexOf(c); if (i < 0) return false; free.splice(i, 1); return true; });
    if (accepting !== null && !(next.offers || []).some(function (o) { return o.id === accepting && o.to === next.seat; })) {
      accepting = null;
      chosen = [];
      $("message").textContent = "That offer is no longer open.";
    }
  }

  // A passing round ended (every pass moved left, then everyone drew): the cards this seat
  // holds now that it did not hold before, less the one it passed.
  function cameIn(before, after) {
    var passed = before.my_pass || (lastPass && lastPass.round === before.round ? lastPass.card : null);
    if (!passed || !before.hand || !after.hand) return [];
    var kept = before.hand.slice();
    kept.splice(kept.indexOf(passed), 1);
    var came = [];
    after.hand.forEach(function (c) { var i = kept.indexOf(c); if (i >= 0) kept.splice(i, 1); else came.push(c); });
    return came;
  }
  function cardName(c) { return c === "J" ? "the Joker" : FILMS[film(c) - 1] + " " + label(c); }

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
    box.querySelector("[data-instruction-text]").textContent = text;
    box.querySelector("[data-instruction-text]").classList.toggle("long", text.length > 40);   // a sentence, not "Stay at Table 3"
    if (LINK) { LINK.setAttribute("href", href || LINK_HOME); LINK.textContent = button || LINK_WORDS; }
    box.dataset.hand = String(hand);
    box.hidden = false;
    if (news && box.scrollIntoView) box.scrollIntoView({ block: "start", behavior: "smooth" });
  }

  // --- drawing the view -------------------------------------------------------------------
  function render() {
    var v = view, me = v.seat;
    var ul = $("seats");
    ul.textContent = "";
    seats.forEach(function (s, i) {
      var li = el("li", [bdi(s.name), (s.bot ? " (bot)" : "") + " · " + v.counts[i]]);
      if (i === me) li.className = "me";
      if (v.pass_pending.indexOf(i) >= 0) li.className += " waiting";
      ul.appendChild(li);
    });
    put($("dealer-draw"), ["Dealer: ", nameOf(v.dealer),
      v.dealer_draw ? " (drew the Joker after " + cards(v.dealer_draw.length - 1) + " face up)" : ""]);
    var able = canDeclare(v.hand || []), over = v.phase === "finished";
    put($("status"), [statusLine(v, able), pending ? " — sending…" : ""]);
    renderLog(v);
    var news = $("news");
    if (news) {
      news.hidden = !fresh.length || v.phase === "finished";
      news.textContent = fresh.length ? "New in your hand: " + fresh.map(cardName).join(" and ") + "." : "";
    }
    renderHand(v);
    renderAuction(v);
    var declare = $("declare");
    declare.disabled = WATCH || over || !able;
    declare.hidden = WATCH || over || !able;   // shown when it can be tapped; over: the result is at the top
    $("declare-why").hidden = WATCH || over || able;   // else one line on why not yet
    renderResult(v);
  }

  function statusLine(v, able) {
    var me = v.seat;
    if (!WATCH && v.phase !== "finished" && seats[me] && seats[me].bot) {
      return "A bot is playing your seat for now: ask the organiser to give it back to you.";
    }
    if (v.phase === "finished") return v.result.declarer === null ? "The hand was stopped." : [nameOf(v.result.declarer), " declared!"];
    var ready = !WATCH && able ? "You hold two complete sets: tap Declare! " : "";
    if (v.phase === "auction") return [ready, auctionLine(v)];
    var others = v.pass_pending.filter(function (s) { return s !== me; });
    if (WATCH) return ["Round " + v.round + ": waiting for ", listNames(v.pass_pending)];
    if (v.my_pass === null) return [ready + "Round " + v.round + ": choose a card to pass to ", nameOf((me + 1) % v.players), "."];
    return others.length ? ["Passing " + label(v.my_pass) + " of " + FILMS[film(v.my_pass) - 1] + ". Waiting for ", listNames(others)] : "Passing…";
  }

  function auctionLine(v) {
    if (WATCH) return "Auction open: " + v.odd_cards + " odd card" + (v.odd_cards === 1 ? "" : "s") + " out of play.";
    var offers = v.offers || [];
    if (accepting !== null) {
      var taking = offers.filter(function (o) { return o.id === accepting; })[0];
      if (taking) return ["Tap " + taking.count + " of your cards to give ", nameOf(taking.from), " in exchange."];
    }
    var incoming = offers.filter(function (o) { return o.to === v.seat; });
    if (incoming.length) {
      return [joined(incoming.map(function (o) { return [nameOf(o.from), " offers you " + cards(o.count)]; }), "; "),
        ": accept or decline below."];
    }
    var mine = offers.filter(function (o) { return o.from === v.seat; });
    if (mine.length) return ["Your offer to ", listNames(mine.map(function (o) { return o.to; })), " is waiting for an answer. You can tap cards to offer more."];
    return "Auction open: tap one to three cards to offer someone.";
  }

  // The table's last moves in words, newest first (the public log: no cards in it).
  var LOG_LINES = WATCH ? 3 : 1;   // a phone's dock has room for the newest
  function who(seat, start) { return seat === view.seat ? (start ? "You" : "you") : nameOf(seat); }
  function whose(seat) { return seat === view.seat ? "your" : [nameOf(seat), "’s"]; }
  function cards(n) { return n + " card" + (n === 1 ? "" : "s"); }
  function logLine(e) {
    switch (e.type) {
      case "draw": return "The passes moved left and everyone drew a card.";
      case "auction_opened": return "The auction is open" + (e.odd_cards ? " (" + cards(e.odd_cards) + " left out of play)." : ".");
      case "offer": return [who(e.from, true), " offered " + cards(e.count) + " to ", who(e.to), "."];
      case "exchange": return [who(e.to, true), " took ", whose(e.from), " offer: " + cards(e.count) + " each way."];
      case "declined": return [who(e.to, true), " declined ", whose(e.from), " offer."];
      case "withdrawn": return [who(e.from, true), " withdrew the offer to ", who(e.to), "."];
      case "declared": return [who(e.seat, true), " declared" + (e.nine_card ? " with nine cards." : ".")];
      case "stopped": return "The organiser ended the hand.";
      case "offers_void": return "The open offers were cancelled.";
      default: return null;   // a pass: who has still to choose is shown by the seats
    }
  }
  function renderLog(v) {
    var ul = $("log");
    ul.textContent = "";
    var lines = [];
    for (var i = v.log.length - 1; i >= 0 && lines.length < LOG_LINES; i--) {
      var line = logLine(v.log[i]);
      if (line) lines.push(line);
    }
    lines.forEach(function (line) { ul.appendChild(el("li", line)); });
  }

  function lockedCards(v) {
    var locked = [];
    (v.offers || []).forEach(function (o) { if (o.my_cards) locked = locked.concat(o.my_cards); });
    return locked;
  }

  function renderHand(v) {
    var box = $("hand");
    box.textContent = "";
    if (!v.hand) return;
    var groups = {};
    v.hand.forEach(function (c) { (groups[film(c)] = groups[film(c)] || []).push(c); });
    var locked = lockedCards(v).slice();
    var picks = chosen.slice();
    var marks = fresh.slice();
    Object.keys(groups).map(Number).sort(function (a, b) { return a - b; }).forEach(function (f) {
      var cards = groups[f];
      var distinct = {};
      cards.forEach(function (c) { if (c !== "J") distinct[c] = true; });
      var div = el("div", null, "film" + (Object.keys(distinct).length === 4 ? " complete" : ""));
      div.appendChild(el("h3", FILMS[f - 1] + (Object.keys(distinct).length === 4 ? " — complete" : "")));
      var row = el("div", null, "cards");
      cards.forEach(function (c) {
        var b = el("button", label(c), "c");
        b.type = "button";
        b.dataset.card = c;
        var li = locked.indexOf(c);
        if (li >= 0) { locked.splice(li, 1); b.className += " locked"; b.disabled = true; }
        var fi = marks.indexOf(c);
        if (fi >= 0) { marks.splice(fi, 1); b.className += " new"; b.title = "new in your hand"; }
        var pi = picks.indexOf(c);
        var passing = v.phase === "passing" && (pending && pending.frame.type === "pass" ? pending.frame.card : v.my_pass);
        if (passing === c || pi >= 0) { b.className += " chosen"; if (pi >= 0) picks.splice(pi, 1); }
        b.disabled = b.disabled || v.phase === "finished";
        b.addEventListener("click", function () { tap(c); });
        row.appendChild(b);
      });
      div.appendChild(row);
      box.appendChild(div);
    });
  }

  function tap(card) {
    if (!view || view.phase === "finished") return;
    if (view.phase === "passing") { send({ type: "pass", card: card }); return; }
    var i = chosen.indexOf(card);
    if (i >= 0) chosen.splice(i, 1); else if (chosen.length < 3) chosen.push(card);
    render();
    if (accepting !== null) {
      var offer = (view.offers || []).filter(function (o) { return o.id === accepting; })[0];
      if (offer && chosen.length === offer.count) {
        var act = { type: "accept", offer: offer.id, cards: chosen.slice() };
        accepting = null; chosen = [];   // answered: the offer's end is this player's own doing
        send(act);
      }
    }
  }

  function renderAuction(v) {
    var box = $("auction"), list = $("offers");
    box.hidden = v.phase !== "auction";
    list.textContent = "";
    list.hidden = box.hidden || !(v.offers || []).length;
    if (box.hidden) return;
    (v.offers || []).forEach(function (o) {
      var n = o.count + " card" + (o.count > 1 ? "s" : "");
      var li;
      if (o.from === v.seat) {
        li = el("li", ["You offer " + n + " to ", nameOf(o.to), ". "]);
        li.appendChild(button("Withdraw", function () { send({ type: "withdraw", offer: o.id }); }));
      } else {
        li = el("li", [nameOf(o.from), " offers you " + n + ". "]);
        if (accepting === o.id) li.appendChild(el("span", "Tap " + n + " of yours to give. "));
        else li.appendChild(button("Accept", function () { accepting = o.id; chosen = []; render(); }));
        li.appendChild(button("Decline", function () {
          if (accepting === o.id) { accepting = null; chosen = []; }
          send({ type: "decline", offer: o.id });
        }));
      }
      list.appendChild(li);
    });
    var to = $("offer-to"), keep = to.value;
    to.textContent = "";
    seats.forEach(function (s, i) {
      if (i === v.seat) return;
      var opt = el("option", s.name);   // an <option> holds text only: no <bdi>, its own direction
      opt.dir = "auto";
      opt.value = String(i);
      to.appendChild(opt);
    });
    if (keep) to.value = keep;
    $("offer").disabled = WATCH || accepting !== null || chosen.length === 0;
    $("offer-form").hidden = WATCH || accepting !== null || chosen.length === 0;   // once cards are tapped
  }

  function button(text, onclick) {
    var b = el("button", text);
    b.type = "button";
    b.disabled = WATCH;
    b.addEventListener("click", onclick);
    return b;
  }

  function canDeclare(hand) {
    // Two complete sets of four different cards of a film (two packs: possibly the same film twice).
    var count = {};
    hand.forEach(function (c) { if (c !== "J") count[c] = (count[c] || 0) + 1; });
    var sets = 0;
    for (var f = 1; f <= 11; f++) {
      var least = Infinity;
      for (var n = 1; n <= 4; n++) least = Math.min(least, count[f + "-" + n] || 0);
      sets += least;
    }
    return sets >= 2;
  }

  function renderResult(v) {
    var box = $("result");
    box.hidden = v.phase !== "finished";
    if (box.hidden) return;
    box.textContent = "";
    box.appendChild(el("h2", "The hand is over"));
    var ul = el("ul");
    v.result.points.forEach(function (p, i) {
      ul.appendChild(el("li", [nameOf(i), ": " + p + " point" + (Math.abs(p) === 1 ? "" : "s") +
        (i === v.result.declarer ? " (declared" + (v.result.nine_card ? ", nine cards" : "") + ")" : "")]));
    });
    box.appendChild(ul);
    box.appendChild(el("p", "A declaration scores 15 (25 with nine cards), less 5 for each Joker left over; " +
      "everyone else scores 5 for each complete set held (10 for Ice Follies with a Joker), less 5 for a Joker left alone.", "small muted"));
    if (v.declaration) box.appendChild(el("p", "Your declaration: " + v.declaration.map(function (c) { return FILMS[film(c) - 1] + " " + label(c); }).join(", ")));
  }

  $("declare").addEventListener("click", function () { send({ type: "declare" }); });
  $("offer").addEventListener("click", function () {
    if (!chosen.length) return;
    send({ type: "offer", to: parseInt($("offer-to").value, 10), cards: chosen.slice() });
  });
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
      ws.send(JSON.stringify({ type: "sync" }));
    }
  }
  setInterval(watchdog, 1000);
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { heardAt = 0; watchdog(); }
  });
  window.addEventListener("pagehide", function () { stopped = true; });
  window.addEventListener("offline", function () { $("conn").hidden = false; });
  window.addEventListener("online", function () {
    if (stopped) return;
    if (retry) { clearTimeout(retry); retry = null; backoff = 500; connect(); return; }   // now, not after the backoff
    if (ws && ws.readyState === 1) { askedAt = Date.now(); ws.send(JSON.stringify({ type: "sync" })); }   // unanswered: replaced
  });
  connect();
})();
