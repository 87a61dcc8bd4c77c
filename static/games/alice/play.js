/* Alice's game screen: the row, the player's cards by set, asking (a missing card, then a player),
   the asked player's give-or-Rabbit and the asker's Cat-or-pass questions with their countdown,
   the laid sets and card counts (in the seats' chips), the public log in words, the cards just
   received marked "new" (seen and heard: the class ``new`` and the word). Plain JS, no
   build step. The socket, the seats, the status line's frame, the last log line and the result
   box are the shared client's (static/js/play_client.js, loaded first). Markup:
   templates/games/alice/play.html. The page's "game-data" block is Alice.screen_data():
   {"titles": {"A1": "Alice", ...}, "sets": "ABCDEFGH"}. The view is
   AliceHand.view (games/alice/hand.py); ``deadline``, when the server sets one, is a Unix time
   in seconds. */
(function () {
  "use strict";
  if (!window.PlayScreen) return;
  window.PlayScreen.register(function (client) {
    var $ = client.$, el = client.el, put = client.put, nameOf = client.nameOf, who = client.who;
    var whose = client.whose, button = client.button;
    var WATCH = client.watching;
    var TITLES = client.data.titles || {}, SETS = client.data.sets || "ABCDEFGH";
    var RABBIT = "WR", CAT = "CC";

    var chosen = null;   // the missing card tapped, to ask for once a player is tapped

    function setOf(card) { return TITLES[card] ? card.charAt(0) : ""; }
    function shortName(card) { return card === RABBIT ? "White Rabbit" : card === CAT ? "Cheshire Cat" : card; }
    function titled(card) { return TITLES[card] ? card + " (" + TITLES[card] + ")" : "a " + shortName(card); }
    function cards(n) { return n + " card" + (n === 1 ? "" : "s"); }
    function mine(v) { return !WATCH && v.seat !== null && v.seat !== undefined && !client.benched(); }
    function may(v, kind) { return mine(v) && (v.may || []).indexOf(kind) >= 0; }
    function holdsSet(v, s) { return (v.hand || []).some(function (c) { return setOf(c) === s; }); }

    // A new view is coming: a half-made ask stays only while it can still be made.
    function update(next) {
      if (chosen && (!may(next, "ask") || next.hand.indexOf(chosen) >= 0 || !holdsSet(next, setOf(chosen)))) chosen = null;
    }

    // --- the seats' chips: card count and sets laid; who is being waited for ---------------
    function seat(v, i) {
      var laid = v.laid[i] || [];
      var waiting = v.finished ? false : v.answering !== null ? v.answering === i : v.turn === i;
      return { after: " · " + cards(v.counts[i]) + (laid.length ? " · laid " + laid.join(" ") : ""), waiting: waiting };
    }

    // --- the status line ------------------------------------------------------------------
    function status(v) {
      var p = v.pending, me = v.seat;
      if (v.finished) return v.ended_by === "stopped" ? "The organiser ended the hand." : "All eight sets are laid: the hand is over.";
      if (p && p.decision === "give") {
        if (mine(v) && p.to === me) return [nameOf(p.asker), " asks you for " + p.card + ": give it or play your White Rabbit?"];
        return [who(p.asker, true), " asked ", who(p.to), " for " + p.card + ": waiting for ", nameOf(p.to), " to give it or play a White Rabbit."];
      }
      if (p && p.decision === "cat") {
        if (mine(v) && p.asker === me) return [nameOf(p.to), " does not hold " + p.card + ": play your Cheshire Cat and go on, or let the turn pass?"];
        return [who(p.to, true), (mine(v) && p.to === me ? " do" : " does") + " not hold " + p.card + ": waiting for ", nameOf(p.asker), " to play a Cheshire Cat or let the turn pass."];
      }
      if (mine(v) && v.turn === me) {
        if (may(v, "take") && may(v, "ask")) return "Your turn: take a card from the row, or tap a missing card to ask for it.";
        if (may(v, "take")) return "Your turn: take a card from the row.";
        return "Your turn: tap a card missing from one of your sets to ask for it.";
      }
      return ["It is ", whose(v.turn), " turn."];
    }

    // --- the public log in words ----------------------------------------------------------
    function logLine(e, v) {
      switch (e.type) {
        case "deal": return [who(e.dealer, true), " dealt " + cards(e.cards_each) + " each; " + cards(e.stock) + " in the stock."];
        case "took": return [who(e.seat, true), " took " + shortName(e.card) + " from the row" +
          (e.filled ? "; " + shortName(e.filled) + " was turned up from the stock." : ".")];
        case "asked": return [who(e.seat, true), " asked ", who(e.to), " for " + e.card + "."];
        case "not_held": return [who(e.seat, true), (e.seat === v.seat ? " do" : " does") + " not hold " + e.card + "."];
        case "handed": {   // after the seat's time ran out, the server's clock handed it over
          var before = v.log[v.log.indexOf(e) - 1];
          var timed = before && before.type === "timeout" && before.seat === e.seat;
          return [timed ? "Time ran out: " : "", who(e.seat, !timed), " handed " + e.card + " to ", who(e.to), "."];
        }
        case "rabbit": return [who(e.seat, true), " refused with a White Rabbit."];
        case "cat": return [who(e.seat, true), " played a Cheshire Cat and " + (e.seat === v.seat ? "go" : "goes") + " on."];
        case "timeout": {  // the asked seat's: its "handed" line says so; the asker's: the turn passes
          var next = v.log[v.log.indexOf(e) + 1];
          if (next && next.type === "handed" && next.seat === e.seat) return null;
          return ["Time ran out for ", who(e.seat), ": the turn passes without a Cheshire Cat."];
        }
        case "laid": return [who(e.seat, true), " laid set " + e.set + "."];
        case "skipped": return [who(e.seat, true), " could do nothing and " + (e.seat === v.seat ? "were" : "was") + " skipped."];
        case "stopped": return "The organiser rang the bell: the sets laid so far count.";  // (the status line says the hand ended)
        case "ended": return e.by === "all_laid" ? "The last set is laid." : null;  // (the status line says the hand is over)
        default: return null;   // "turn": the status line says whose turn it is
      }
    }

    // --- drawing the view -----------------------------------------------------------------
    function render(v) {
      $("alice").hidden = $("alice-more").hidden = false;   // (hidden by noHand: a hand with cards before this one)
      $("alice").dataset.version = String(v.version);   // the version shown (tests wait for it)
      var starter = (v.dealer + 1) % v.players;
      put($("alice-deal"), ["Dealt by ", who(v.dealer), "; first to play: ", who(starter), "."]);
      var played = v.played.length ? "; played: " + v.played.map(shortName).join(", ") : "";
      put($("alice-stock"), "(stock: " + cards(v.stock) + played + ")");
      renderRow(v);
      if ($("hand")) renderHand(v);
      renderPrompt(v);
      renderAsk(v);
      renderHistory(v);
      tick();
    }

    // ``name``: what a tap does, for screen readers ("Take B2 (Queen) from the row"); ``key``: which
    // control it is, in every view (the keyboard's place, static/js/play_focus.js).
    // A White Rabbit or a Cheshire Cat in the row shows its last word ("Rabbit", "Cat"): seven
    // cards share one line on a small phone; its name and title say it whole.
    function cardButton(card, cls, onclick, enabled, name, key) {
      var b = button(TITLES[card] ? card : shortName(card).split(" ").pop(), onclick);
      b.dataset.focus = key;
      b.setAttribute("aria-label", name);
      b.className = "c " + cls;
      b.dataset.card = card;
      b.title = titled(card);
      b.disabled = !enabled;
      return b;
    }

    function renderRow(v) {
      var box = $("alice-row");
      box.textContent = "";
      var canTake = may(v, "take") && !client.pending();
      v.row.forEach(function (c) {
        box.appendChild(cardButton(c, TITLES[c] ? "" : "special", function () { take(c); }, canTake,
          "Take " + (TITLES[c] ? titled(c) : "the " + shortName(c)) + " from the row", "take-" + c));
      });
      if (!v.row.length) box.appendChild(el("p", "The row is empty.", "small muted"));
    }

    function take(card) {
      chosen = null;
      client.send({ type: "take", card: card });
    }

    // The cards this seat received in the last action that gave it any (a card taken from the
    // row, or one handed over by the player it asked), from the public log: those still held are
    // marked new; a newer receipt replaces the older marks. A card that completed a set was laid
    // at once: it is no longer held, so nothing is marked.
    function received(v) {
      if (!mine(v) || !v.hand) return [];
      for (var i = v.log.length - 1; i >= 0; i--) {
        var e = v.log[i];
        if ((e.type === "took" && e.seat === v.seat) || (e.type === "handed" && e.to === v.seat)) {
          return v.hand.indexOf(e.card) >= 0 ? [e.card] : [];
        }
      }
      return [];
    }

    // A card held: not a control, a picture named by what it is ("A2 (…), held (new)").
    function heldCard(card, fresh) {
      var special = !TITLES[card];
      var held = el("span", shortName(card), "c held" + (special ? " special" : ""));
      held.dataset.card = card;
      held.title = titled(card);
      held.setAttribute("role", "img");
      var name = (special ? shortName(card) : titled(card)) + ", held";
      var fi = fresh.indexOf(card);
      if (fi >= 0) {   // one copy only: a second White Rabbit taken beside one held is the one new
        fresh.splice(fi, 1);
        held.className += " new";
        held.appendChild(el("span", "new", "tag"));
        name += " (new)";
      }
      held.setAttribute("aria-label", name);
      return held;
    }

    // The hand by set: each set held shows its five cards, the missing ones to tap (to ask).
    function renderHand(v) {
      var box = $("hand");
      box.textContent = "";
      if (!v.hand) return;
      var fresh = received(v);
      var canAsk = may(v, "ask") && !client.pending();
      SETS.split("").forEach(function (s) {
        if (!holdsSet(v, s)) return;
        var div = el("div", null, "set");
        div.appendChild(el("h3", "Set " + s));
        var row = el("div", null, "cards");
        for (var n = 1; n <= 5; n++) {
          var card = s + n;
          if (v.hand.indexOf(card) >= 0) {
            row.appendChild(heldCard(card, fresh));
          } else if (v.row.indexOf(card) >= 0) {   // face up in the row: nobody holds it to give
            row.appendChild(cardButton(card, "in-row", take.bind(null, card), may(v, "take") && !client.pending(),
              titled(card) + ", in the row: tap to take it", "hand-take-" + card));
          } else {
            var ask = cardButton(card, "missing" + (chosen === card ? " chosen" : ""), choose.bind(null, card), canAsk,
              "Ask for " + titled(card), "ask-" + card);
            ask.setAttribute("aria-pressed", chosen === card ? "true" : "false");
            row.appendChild(ask);
          }
        }
        div.appendChild(row);
        box.appendChild(div);
      });
      var specials = v.hand.filter(function (c) { return !TITLES[c]; });
      if (specials.length) {
        var sp = el("div", null, "set specials");
        sp.appendChild(el("h3", "Special"));
        var line = el("div", null, "cards");
        specials.forEach(function (c) { line.appendChild(heldCard(c, fresh)); });
        sp.appendChild(line);
        box.appendChild(sp);
      }
      if (!v.hand.length) box.appendChild(el("p", "You hold no cards.", "small muted"));
    }

    // A card chosen: the keyboard goes on to whom to ask (the first player of the ask box).
    function choose(card) {
      chosen = chosen === card ? null : card;
      var v = client.view();
      if (chosen) client.focusOn("to-" + (v.seat === 0 ? 1 : 0));
      client.render();
    }

    // The question this phone must answer now (give or Rabbit; Cat or pass), with its buttons.
    function renderPrompt(v) {
      var box = $("alice-prompt");
      if (!box) return;
      var p = v.pending, ask = null;
      if (p && p.decision === "give" && may(v, "give")) {   // the status line says who asks for which card
        ask = actions([keyed(named(button("Give " + p.card, answer("give")), "Give " + titled(p.card)), "give"),
          keyed(button("Play your White Rabbit", answer("rabbit")), "rabbit")]);
      } else if (p && p.decision === "cat" && may(v, "cat")) {
        ask = actions([keyed(button("Play your Cheshire Cat", answer("cat")), "cat"),
          keyed(button("Let the turn pass", answer("pass")), "pass")]);
      }
      box.hidden = !ask;
      put(box, ask);
    }

    function answer(kind) { return function () { client.send({ type: kind }); }; }
    function named(b, name) { b.setAttribute("aria-label", name); return b; }
    function keyed(b, key) { b.dataset.focus = key; return b; }
    // Where the keyboard goes when its control is gone and none near it is live: the question
    // this phone must answer, if there is one (static/js/play_focus.js).
    function focusHome() {
      var box = $("alice-prompt");
      return box && !box.hidden ? box.querySelector("button") : null;
    }
    function actions(buttons) { var d = el("div", buttons, "actions"); return d; }

    // After a missing card is tapped: whom to ask for it.
    function renderAsk(v) {
      var box = $("alice-ask");
      if (!box) return;
      box.hidden = !chosen;
      if (!chosen) { box.textContent = ""; return; }
      var buttons = [];
      for (var i = 0; i < v.players; i++) {
        if (i === v.seat) continue;
        var b = button([nameOf(i), " (" + cards(v.counts[i]) + ")"], ask.bind(null, i));
        b.setAttribute("aria-label", "Ask " + (client.seats()[i] ? client.seats()[i].name : "seat " + (i + 1)) +
          " (" + cards(v.counts[i]) + ") for " + chosen);
        b.dataset.seat = String(i);
        buttons.push(keyed(b, "to-" + i));
      }
      buttons.push(keyed(button("Cancel", cancel), "to-cancel"));
      put(box, [el("p", "Ask for " + titled(chosen) + ": tap a player.", "small"), actions(buttons)]);
    }

    // Asked, or not: the keyboard goes back to the card (greyed while the answer comes, it has the
    // focus again once live; handed over, the next card missing has it).
    function cancel() {
      var card = chosen;
      chosen = null;
      if (card) client.focusOn("ask-" + card);
      client.render();
    }
    function ask(to) {
      var card = chosen;
      chosen = null;
      if (!card) return;
      client.focusOn("ask-" + card);
      client.send({ type: "ask", to: to, card: card });
    }

    // The whole public log the view carries, oldest first, folded away: the newest 100 entries
    // (games/alice/hand.py VIEW_LOG), saying so when the hand has more.
    function renderHistory(v) {
      var ol = $("alice-log");
      ol.textContent = "";
      if (v.log_from) ol.appendChild(el("li", "The hand's first " + v.log_from + " lines are left out here; the last " +
        v.log.length + " follow.", "muted"));
      v.log.forEach(function (e) {
        var line = logLine(e, v);
        if (line) ol.appendChild(el("li", line));
      });
    }

    // The answer's countdown, when the server has set a deadline (it answers by itself then).
    function tick() {
      var v = client.view(), box = $("alice-countdown");
      if (!box) return;
      if (!v || v.finished || !v.pending || typeof v.deadline !== "number") { box.textContent = ""; return; }
      var left = Math.max(0, Math.ceil(v.deadline - client.serverNow()));
      var mineToAnswer = mine(v) && v.answering === v.seat;
      put(box, left > 0 ? [mineToAnswer ? "You have " : [nameOf(v.answering), " has "], left + " s to answer (of " + v.answer_seconds + ")."]
        : "Time is up: the default answer is on its way.");
    }
    setInterval(tick, 500);

    // --- the result box (the shared client lists each seat's points) ----------------------
    // Each seat's points with their reasons: the sets it laid (5 each), and the hand's mover
    // (docs/rules.md: "mover", not "moves up": at the top table the mover stays).
    function resultNote(v, i) {
      var sets = v.result.sets[i], laid = v.laid[i] || [];
      var why = sets ? "laid " + (sets === 1 ? "set " : "sets ") + client.joined(laid, ", ", " and ").join("") +
        " (" + sets + " set" + (sets === 1 ? "" : "s") + " × 5)" : "no set laid";
      return " — " + why + (i === v.result.mover ? "; the mover" : "");
    }
    // The mover, and by which rule (docs/rules.md): the most sets; on a tie, who laid a set last;
    // nobody laid one: the dealer's left.
    function resultMore(v) {
      var sets = v.result.sets, mover = v.result.mover, top = Math.max.apply(null, sets);
      var tied = sets.filter(function (s) { return s === top; }).length > 1;
      var why = mover === null || mover === undefined ? []
        : (!top ? [" Nobody laid a set: ", nameOf(mover), ", on the dealer's left, is the mover."]
          : tied ? [" Tied on most sets: ", nameOf(mover), " laid a set last and is the mover."]
          : [" ", nameOf(mover), " laid the most sets and is the mover."]);   // (what the mover does: the shared client's)
      return el("p", ["Each set laid scores 5 points."].concat(why), "small muted");
    }

    return {
      update: update,
      seat: seat,
      render: render,
      status: status,
      logLine: logLine,
      resultNote: resultNote,
      resultMore: resultMore,
      focusHome: focusHome,
      noHand: function () { $("alice").hidden = true; $("alice-more").hidden = true; }
    };
  });
})();
