/* The Game of Alice in Wonderland's screen: the hand by set in rank order (only the cards that may
   be played are live; a tap on another says why not), the trick on the table with who played
   what, the last trick until the next card, each player's cards taken, the deal, who dealt and
   who leads, and the public log in words. Plain JS, no build step. The socket, the seats, the
   status line's frame, the log's frame and the result box are the shared client's
   (static/js/play_client.js, loaded first); this script registers the screen with it. Markup:
   templates/games/wonderland/play.html. The view is WonderlandHand.view (games/wonderland/hand.py).
   Card codes: "S1".."S16" star pictures, "P1".."P16" plain pictures, "N1".."N20" number cards. */
(function () {
  "use strict";
  if (!window.PlayScreen) return;
  window.PlayScreen.register(function (client) {
    var $ = client.$, el = client.el, put = client.put, nameOf = client.nameOf;
    var who = client.who, whose = client.whose;
    var WATCH = client.watching;

    var SETS = [  // in rank order: every star beats every plain, every plain every number
      { key: "S", name: "star", heading: "Stars", mark: "★" },
      { key: "P", name: "plain", heading: "Plains", mark: "▢" },
      { key: "N", name: "number", heading: "Numbers", mark: "#" }
    ];
    var SET = {};
    SETS.forEach(function (s, i) { s.rank = 2 - i; SET[s.key] = s; });

    function num(c) { return parseInt(c.slice(1), 10); }
    function rank(c) { return SET[c[0]].rank * 100 + num(c); }
    function mate(c) { return c[0] === "S" ? "P" + num(c) : c[0] === "P" ? "S" + num(c) : null; }
    // "star 7", "plain 16, the Pool of Tears", "number 12": a card in a sentence (its notes follow in brackets).
    function cardName(c, v) {
      return SET[c[0]].name + " " + num(c) + (v && c === v.pool_of_tears ? ", the Pool of Tears" : "");
    }
    function short(c) { return SET[c[0]].mark + num(c); }   // "★7": a card in a list
    function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
    function pairsIn(cards) {
      return cards.filter(function (c) { return c[0] === "S" && cards.indexOf(mate(c)) >= 0; }).length;
    }
    function best(plays) {   // the play that takes the trick so far
      return plays.reduce(function (top, p) { return !top || rank(p.card) > rank(top.card) ? p : top; }, null);
    }

    // --- the seats and the status line --------------------------------------------------------
    function seat(v, i) {
      return { after: " · " + plural(v.counts[i], "card"), waiting: !v.finished && v.turn === i };
    }

    function status(v) {
      if (v.result) return v.result.ended_by === "stopped" ? "The organiser ended the hand." : "The hand is played out.";
      var leading = !v.trick.length;
      if (WATCH || v.turn !== v.seat) {
        var verb = leading ? " to lead." : " to play.";
        return WATCH ? [nameOf(v.turn), verb] : ["Waiting for ", nameOf(v.turn), verb];
      }
      if (leading) return "Your lead: tap any card.";
      if (v.must && v.must.rule === "mate") return "Your turn: you hold the mate of " + cardName(v.must.of) + ", so you must play it.";
      if (v.must) return "Your turn: follow with a " + SET[v.must.led[0]].name + " card.";
      return "Your turn: tap a card.";
    }

    // Why a card that is not live may not be played now (said when it is tapped).
    function whyNot(v) {
      if (v.result) return "The hand is over.";
      if (client.benched()) return client.benchedWords;
      if (v.turn !== v.seat) return [nameOf(v.turn), " plays next: wait for your turn."];
      var m = v.must;
      if (m && m.rule === "mate") return "You hold the mate of " + cardName(m.of) + ": you must play " + cardName(mate(m.of)) + ".";
      if (m) return "The " + cardName(m.led) + " was led and you hold " + SET[m.led[0]].heading.toLowerCase() + ": play one of them.";
      return "";
    }

    // This seat's lead, said to its player (``words``); while a bot plays the seat for them (the
    // organiser's stand-in) the lead is the bot's, not the player's to make.
    function botLeads(words) { return client.benched() ? "The bot playing your seat leads" : words; }

    // --- drawing the view ---------------------------------------------------------------------
    function render(v) {
      renderDeal(v);
      // No card played yet: a line of words, not a numbered play ("1. Your lead: …" misreads).
      var empty = !v.trick.length;
      $("trick-box").hidden = !!v.result && empty;  // a hand played out: no empty trick
      $("trick").hidden = empty;
      $("trick-empty").hidden = !empty;
      if (empty) {
        put($("trick-empty"), v.result ? "No cards on the table." :
          [v.turn === v.seat ? botLeads("Your lead") : [nameOf(v.turn), " leads"], ": no card played yet."]);
      } else {
        renderTrick($("trick"), v.trick, v, false);
      }
      var last = v.last_trick;
      $("last-trick-box").hidden = !last;
      if (last) {
        put($("last-trick-title"), ["Last trick: taken by ", who(last.winner)]);
        renderTrick($("last-trick"), last.trick, v, true);
      }
      renderTaken(v);
      renderHand(v);
      renderHistory(v);
    }

    function renderDeal(v) {
      var parts = ["Deal " + v.deal + " of " + v.deals.length + " (" + plural(v.deals[v.deal - 1], "card") + " each). ",
        "Dealer: ", nameOf(v.dealer), ". "];
      if (!v.result) parts.push(v.leader === v.seat ? botLeads("You lead") : [nameOf(v.leader), " leads"], " this trick.");
      // In the last deal (or once the hand is over) the cards left are never dealt (docs/rules.md: the cards over stay unused).
      if (v.undealt) parts.push(" " + plural(v.undealt, "card") + (v.result || v.deal >= v.deals.length ? " never dealt." : " not dealt yet."));
      put($("deal-info"), parts);
    }

    // One trick's plays in order (at least one): who played what, the led card and the card taking it.
    function renderTrick(list, plays, v, done) {
      list.textContent = "";
      var top = best(plays);
      plays.forEach(function (p, i) {
        var notes = [];
        if (i === 0) notes.push("led");
        if (p === top) notes.push(done ? "took it" : v.result ? "nobody takes it: the hand was stopped" : "taking it so far");
        var li = el("li", [who(p.seat, true), ": ", cardName(p.card, v), notes.length ? " (" + notes.join(", ") + ")" : ""]);
        if (p === top) li.className = "top";
        li.dataset.card = p.card;
        list.appendChild(li);
      });
    }

    function renderTaken(v) {
      var ul = $("taken");
      ul.textContent = "";
      v.taken.forEach(function (cards, i) {
        var pictures = cards.filter(function (c) { return c[0] !== "N"; })
          .sort(function (a, b) { return num(a) - num(b) || rank(b) - rank(a); });
        var parts = [nameOf(i), ": " + plural(cards.length, "card") + ", " + plural(pairsIn(cards), "pair")];
        if (cards.indexOf(v.pool_of_tears) >= 0) parts.push(", the Pool of Tears");
        if (pictures.length) parts.push(" — pictures " + pictures.map(short).join(" "));
        ul.appendChild(el("li", parts));
      });
    }

    // The seat's cards by set, stars first, each set by number; the live ones are those it may play.
    function renderHand(v) {
      var box = $("hand");
      if (!box) return;   // the organiser's view: no cards
      box.textContent = "";
      if (!v.hand || !v.hand.length) {
        if (v.hand) box.appendChild(el("p", v.result ? "" : "No cards in your hand.", "small muted"));
        return;
      }
      var myTurn = !v.result && v.turn === v.seat && !client.benched(), pending = client.pending();
      SETS.forEach(function (s) {
        var cards = v.hand.filter(function (c) { return c[0] === s.key; }).sort(function (a, b) { return num(a) - num(b); });
        if (!cards.length) return;
        var div = el("div", null, "wl-set");
        div.appendChild(el("h3", s.mark + " " + s.heading));
        var row = el("div", null, "cards");
        cards.forEach(function (c) {
          var live = myTurn && v.legal.indexOf(c) >= 0;
          var b = el("button", String(num(c)), "wl-card " + s.key + (live ? " legal" : " dim"));
          b.type = "button";
          b.dataset.card = c;
          b.dataset.focus = "card-" + c;   // which control it is, in every view (static/js/play_focus.js)
          b.title = cardName(c, v) + (live ? ": tap to play" : "");
          // What a tap does: "Play star 7"; a card that may not be played now says so, and a tap
          // on it says why (not aria-disabled: that would say it does nothing at all).
          b.setAttribute("aria-label", live ? "Play " + cardName(c, v) : cardName(c, v) + ", not playable now");
          if (pending && pending.card === c) b.className += " chosen";
          b.addEventListener("click", function () { tap(c); });
          row.appendChild(b);
        });
        div.appendChild(row);
        box.appendChild(div);
      });
    }

    function tap(card) {
      var v = client.view();
      if (!v || WATCH) return;
      if (v.result || v.turn !== v.seat || v.legal.indexOf(card) < 0 || client.benched()) {
        var why = whyNot(v);
        if (Array.isArray(why)) put($("message"), why); else client.message(why);
        return;
      }
      client.send({ type: "play", card: card });
    }

    // Every move of the hand so far in words, newest first (the dock shows only the newest).
    function renderHistory(v) {
      var ol = $("history");
      ol.textContent = "";
      for (var i = v.log.length - 1; i >= 0; i--) {
        var line = logLine(v.log[i], v);
        if (line) ol.appendChild(el("li", line));
      }
    }

    // The public log's entries in words.
    function logLine(e, v) {
      switch (e.type) {
        case "dealer": return [who(e.seat, true), " dealt."];
        case "deal": return ["Deal " + e.deal + ": " + plural(e.cards_each, "card") + " each; ", whose(e.leader), " lead."];
        case "play": return [who(e.seat, true), " played ", cardName(e.card, v), "."];
        case "took": return [who(e.seat, true), " took the trick: " + e.cards.map(short).join(" ") + "."];
        case "stopped": return "The organiser rang the bell: the cards taken so far count.";  // (the status line says the hand ended)
        case "end":  // after the bell the "stopped" line has said it; cards were left in hands
          return v.log.some(function (x) { return x.type === "stopped"; }) ? null : "Every card has been played.";
        default: return null;
      }
    }

    // --- the result box (the shared client lists each seat's points) --------------------------
    // Each seat's points with their reasons (10 a pair, 20 the Pool of Tears, 10 the most
    // cards taken when nobody ties), from the result's pairs, cards and pool_of_tears.
    function resultNote(v, i) {
      var r = v.result, most = Math.max.apply(null, r.cards);
      var alone = r.cards.filter(function (n) { return n === most; }).length === 1;
      var why = [plural(r.pairs[i], "pair") + " (+" + 10 * r.pairs[i] + ")"];
      if (r.pool_of_tears === i) why.push("the Pool of Tears (+20)");
      why.push(plural(r.cards[i], "card") + " taken" + (alone && r.cards[i] === most ? ", the most (+10)" : ""));
      return " — " + why.join("; ") + (r.mover === i ? "; top scorer" : "");
    }
    function resultMore(v) {
      // The Pool of Tears card named as the drive's form and the page's rules name it ("Plain picture 16").
      var pool = (v.pool_of_tears[0] === "S" ? "Star" : "Plain") + " picture " + num(v.pool_of_tears);
      var more = [el("p", "10 points for each pair taken, 20 for the Pool of Tears card (" + pool +
        "), 10 for the most cards taken (nobody on a tie).", "small muted")];
      // Who is the mover (docs/rules.md), except when nobody moves (the shared client says what the mover does).
      if (client.moves()) more.push(el("p", "The top scorer is the mover; " +
        "ties go to more cards taken, then the first on the dealer's left.", "small muted"));
      return more;
    }

    return {
      seat: seat,
      render: render,
      status: status,
      logLine: logLine,
      resultNote: resultNote,
      resultMore: resultMore,
      noHand: function () { var box = $("hand"); if (box) box.textContent = ""; }
    };
  });
})();
