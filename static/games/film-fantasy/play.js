/* Film Fantasy's game screen: the hand grouped by film, passing, the auction's offers and
   exchanges, declaring, the log's and the result's words. Plain JS, no build step. The socket,
   the seats, the status line's frame, the log's frame and the result box are the shared
   client's (static/js/play_client.js, loaded first); this script registers the screen with it.
   Markup: templates/games/film-fantasy/play.html. The page's "game-data" block is
   FilmFantasy.screen_data(): {"film_names": [...], "declarer_joker_penalty": …, "max_offer": 3,
   "max_offers": 50}. */
(function () {
  "use strict";
  if (!window.PlayScreen) return;
  window.PlayScreen.register(function (client) {
    var $ = client.$, el = client.el, put = client.put, nameOf = client.nameOf, joined = client.joined;
    var listNames = client.listNames, who = client.who, whose = client.whose, button = client.button;
    var WATCH = client.watching;
    var FILMS = client.data.film_names;

    var MAX_OFFER = client.data.max_offer;  // the most cards an offer holds (the engine's MAX_OFFER)
    // A seat's offers in one hand (the engine's MAX_OFFERS_PER_SEAT): made, the form to offer
    // goes and this line stands in its place (the engine would refuse one more).
    var SPENT = "You have made your " + client.data.max_offers + " offers this hand: answer the offers made to you, or declare.";
    var tooMany = null;          // what a tap past the most cards said (cleared by the next choice)
    var chosen = [];             // auction: cards tapped to offer or to give in exchange
    var accepting = null;        // the offer being accepted (its id)
    var fresh = [];              // the cards that came in at the latest draw or exchange (shown as new)

    function film(card) { return card === "J" ? 11 : parseInt(card.split("-")[0], 10); }
    function label(card) { return card === "J" ? "Joker" : card.split("-")[1]; }
    function cardName(c) { return c === "J" ? "the Joker" : FILMS[film(c) - 1] + " " + label(c); }
    function cardTitle(c) { return c === "J" ? "Joker" : FILMS[film(c) - 1] + " " + label(c); }   // a button's name
    function cards(n) { return n + " card" + (n === 1 ? "" : "s"); }
    function spent(v) { return !WATCH && v.offers_left !== undefined && v.offers_left <= 0; }   // no offer left to make

    // A new view is coming (``before``: the one shown, if any). The cards marked new are the
    // engine's: those the seat's latest draw (the pass from its right and the card drawn) or
    // exchange brought that it still holds (the view's ``received``), so a reload shows them too.
    function update(next, before) {
      fresh = next.phase === "finished" ? [] : (next.received || []).slice();   // (over: nothing is new)
      if (!before || next.version !== before.version) keepChoices(next);
    }

    // Another seat's move must not undo this player's half-made choice: the cards tapped stay
    // chosen while this seat still holds them free, and an offer being accepted while it stands.
    function keepChoices(next) {
      if (next.phase !== "auction") { chosen = []; accepting = null; return; }
      var free = (next.hand || []).slice();
      lockedCards(next).forEach(function (c) { var i = free.indexOf(c); if (i >= 0) free.splice(i, 1); });
      chosen = chosen.filter(function (c) { var i = free.indexOf(c); if (i < 0) return false; free.splice(i, 1); return true; });
      if (accepting === null && spent(next)) chosen = [];   // nothing left to offer them in
      if (accepting !== null && !(next.offers || []).some(function (o) { return o.id === accepting && o.to === next.seat; })) {
        accepting = null;
        chosen = [];
        client.message("That offer is no longer open.");
      }
    }

    // --- drawing the view -----------------------------------------------------------------
    function seat(v, i) {
      return { after: " · " + cards(v.counts[i]), waiting: v.pass_pending.indexOf(i) >= 0 };
    }

    // How the dealer was found: cards dealt face up until the Joker (``drawn`` of them, the
    // Joker the last), or none dealt: a home game's deal passed to the left.
    function dealerWords(drawn) {
      if (!drawn) return " (a home game: the deal passes to the left)";
      if (drawn === 1) return " (drew the Joker with the first card face up)";
      return " (drew the Joker after " + cards(drawn - 1) + " face up)";
    }

    function render(v) {
      put($("dealer-draw"), ["Dealer: ", nameOf(v.dealer), dealerWords(v.dealer_drawn)]);
      var able = canDeclare(v.hand || []), over = v.phase === "finished";
      var news = $("news");
      if (news) {
        news.hidden = !fresh.length || v.phase === "finished";
        news.textContent = fresh.length ? "New in your hand: " + joined(fresh.map(cardName), ", ", " and ").join("") + "." : "";
      }
      renderHand(v);
      renderAuction(v);
      var declare = $("declare");
      declare.disabled = WATCH || over || !able || client.benched();
      declare.hidden = declare.disabled;   // shown when it can be tapped; over: the result is at the top
      $("declare-why").hidden = WATCH || over || able || client.benched();   // else one line on why not yet (not while a bot plays)
    }

    function status(v) {
      var me = v.seat, able = canDeclare(v.hand || []);
      // Over: who declared what, and the points, are in the result box at the top (said once).
      if (v.phase === "finished") return v.result.ended_by === "stopped" ? "The organiser ended the hand." : "The hand is over: the points are at the top.";
      var ready = !WATCH && able ? "You can declare! " : "";   // short: the dock is small
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
        if (taking) {   // counts down as cards are tapped; the last one is given by the Give button
          var left = taking.count - chosen.length;
          if (left <= 0) return [taking.count === 1 ? "Give this card to " : "Give these " + cards(taking.count) + " to ", nameOf(taking.from),
            "? Tap Give, or tap a chosen card to put it back."];
          return chosen.length ? ["Tap " + left + " more card" + (left === 1 ? "" : "s") + " to give ", nameOf(taking.from), " in exchange."]
            : ["Tap " + taking.count + " of your cards to give ", nameOf(taking.from), " in exchange."];
        }
      }
      var incoming = offers.filter(function (o) { return o.to === v.seat; });
      // Who offers what, and to whom, the list below says (and the log, once): the line says
      // only what is asked of the player.
      if (incoming.length > 1) return incoming.length + " offers for you: accept or decline them below.";
      if (incoming.length) return "An offer for you: accept or decline it below.";
      var waiting = offers.some(function (o) { return o.from === v.seat; });
      // No offer left to make: the line in the form's place says so and what is left to do.
      if (spent(v)) return waiting ? "Waiting for an answer to your offer." : "Auction open.";
      if (waiting) return "Waiting for an answer to your offer. You can tap cards to offer more.";
      // Cards chosen: the offer form below says whom to and sends it (the line does not ask
      // for more cards once three are chosen).
      if (chosen.length >= MAX_OFFER) return "Auction open: choose whom to offer these " + cards(chosen.length) + " to, and tap Offer.";
      if (chosen.length) return "Auction open: tap up to " + cards(MAX_OFFER - chosen.length) + " more, or choose whom to offer " +
        (chosen.length === 1 ? "it" : "them") + " to and tap Offer.";
      return "Auction open: tap one to three cards to offer someone.";
    }

    // The public log's entries in words (no cards in it); a pass is left out: who has still to
    // choose is shown by the seats.
    function logLine(e, v) {
      switch (e.type) {
        case "draw": return "The passes moved left and everyone drew a card.";
        case "auction_opened": return "The auction is open" + (e.odd_cards ? " (" + cards(e.odd_cards) + " left out of play)." : ".");
        case "offer": return [who(e.from, true), " offered " + cards(e.count) + " to ", who(e.to), "."];
        case "exchange": return [who(e.to, true), " took ", whose(e.from), " offer: " + cards(e.count) + " each way."];
        case "declined": return [who(e.to, true), " declined ", whose(e.from), " offer."];
        case "withdrawn": return [who(e.from, true), " withdrew the offer to ", who(e.to), "."];
        case "declared": return v && v.phase === "finished" ? null   // the result box says it
          : [who(e.seat, true), " declared" + (e.nine_card ? " with nine cards." : ".")];
        case "stopped": return "The organiser rang the bell: each player scores the best sets they hold.";  // (the status line says the hand ended)
        case "offers_void": return "The open offers were cancelled.";
        default: return null;
      }
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
      var pending = client.pending();
      // The card this seat passes (on its way, or the server's), while passing.
      var passing = v.phase === "passing" && (pending && pending.type === "pass" ? pending.card : v.my_pass);
      Object.keys(groups).map(Number).sort(function (a, b) { return a - b; }).forEach(function (f) {
        var group = groups[f];
        var distinct = {};
        group.forEach(function (c) { if (c !== "J") distinct[c] = true; });
        var div = el("div", null, "film" + (Object.keys(distinct).length === 4 ? " complete" : ""));
        div.appendChild(el("h3", FILMS[f - 1] + (Object.keys(distinct).length === 4 ? " — complete" : "")));
        div.setAttribute("role", "group");
        div.setAttribute("aria-label", FILMS[f - 1] + (Object.keys(distinct).length === 4 ? ", complete" : ""));
        var row = el("div", null, "cards");
        group.forEach(function (c) {
          var b = el("button", label(c), "c");
          b.type = "button";
          b.dataset.card = c;
          b.dataset.focus = "card-" + c;   // which control it is, in every view (static/js/play_focus.js)
          // Its name says what a tap does: "Pass Serenade 3" while passing (a pass chosen, a tap
          // on another card passes that one instead), "Give Serenade 3" while
          // answering an offer, else the card ("Serenade 3", pressed when chosen).
          // (The card being passed already: a tap on it does nothing, so its name offers nothing.)
          var verb = v.phase === "passing" ? (passing === c ? "" : "Pass ") : accepting !== null ? "Give " : "";
          var name = verb + cardTitle(c), notes = [];
          // A card held in this seat's own open offer (one a bot made for it, too) cannot be
          // chosen: it says so, seen and heard ("(in your offer)", in place of "(new)"), and a tap
          // says why and what frees it (``offeredTap``), rather than doing nothing.
          var li = locked.indexOf(c), offered = li >= 0;
          if (offered) { locked.splice(li, 1); b.className += " locked"; notes.push("in your offer"); }
          var fi = marks.indexOf(c), isNew = fi >= 0 && !offered;
          if (fi >= 0) marks.splice(fi, 1);
          if (isNew) {   // seen and heard: the visible "2 (new)" is also a part of the name
            b.className += " new";
            b.appendChild(el("span", " (new)", "tag"));
          }
          if (offered) b.appendChild(el("span", " (in your offer)", "tag"));   // (the name holds the visible words)
          var pi = picks.indexOf(c);
          if (passing === c || pi >= 0) { b.className += " chosen"; if (pi >= 0) picks.splice(pi, 1); notes.push(passing === c ? "passing" : "chosen"); }
          if (v.phase === "auction") b.setAttribute("aria-pressed", b.className.indexOf(" chosen") >= 0 ? "true" : "false");
          b.setAttribute("aria-label", name + (isNew ? " (new)" : "") + (notes.length ? " (" + notes.join(", ") + ")" : ""));
          b.disabled = b.disabled || v.phase === "finished" || client.benched();
          var shownChosen = pi >= 0;   // this very button (a copy: two packs hold two of each card)
          b.addEventListener("click", function () { if (offered) offeredTap(c); else tap(c, shownChosen); });
          row.appendChild(b);
        });
        div.appendChild(row);
        box.appendChild(div);
      });
    }

    // A tap chooses this button's card, or (``shownChosen``) unchooses it: by the button, not the
    // card's name, as a seat at a table of two packs may hold two copies and give both.
    function tap(card, shownChosen) {
      var view = client.view();
      if (!view || view.phase === "finished") return;
      if (view.phase === "passing") {
        client.send({ type: "pass", card: card });
        return;
      }
      var i = chosen.indexOf(card);
      var taking = accepting === null ? null : (view.offers || []).filter(function (o) { return o.id === accepting; })[0];
      if (!taking && spent(view)) { client.message(SPENT); return; }   // a card is chosen only to give now
      // At most what the offer being accepted asks for, else what an offer may hold: a tap past
      // that chooses nothing, and says why.
      var most = taking ? taking.count : MAX_OFFER;
      var full = !shownChosen && chosen.length >= most;
      if (shownChosen && i >= 0) chosen.splice(i, 1);
      else if (!shownChosen && !full) chosen.push(card);
      var said = $("message").textContent;
      if (full) {
        tooMany = taking ? "This offer takes " + cards(most) + " in exchange." : "An offer is at most " + MAX_OFFER + " cards.";
        client.message(tooMany);
      } else if (tooMany && said === tooMany) client.message("");   // said of the tap before: done with
      client.render();
    }

    // A tap on a card held in one's own open offer: why it is not chosen, and the way to free it.
    function offeredTap(card) {
      var view = client.view();
      if (!view || view.phase === "finished") return;
      var offer = (view.offers || []).filter(function (o) { return o.from === view.seat && (o.my_cards || []).indexOf(card) >= 0; })[0];
      var to = offer ? client.seats()[offer.to] : null;
      client.message(cardTitle(card) + " is in your offer" + (to ? " to " + to.name : "") +
        ": to choose it, first tap Withdraw on that offer.");
    }

    // The cards chosen for the offer being accepted are given by a tap on Give (a last look
    // before the exchange: a mis-tapped card can still be put back).
    function give() {
      var view = client.view(), offer = view && (view.offers || []).filter(function (o) { return o.id === accepting; })[0];
      if (!offer || chosen.length !== offer.count) return;
      var act = { type: "accept", offer: offer.id, cards: chosen.slice() };
      client.focusOn("card-" + chosen[0]);   // Give goes: the keyboard back to the cards (those given, then the next)
      accepting = null; chosen = [];   // answered: the offer's end is this player's own doing
      if (!client.send(act)) client.render();
    }

    function renderAuction(v) {
      var box = $("auction"), list = $("offers");
      box.hidden = v.phase !== "auction" || client.benched();   // a bot trades for this seat now
      list.textContent = "";
      list.hidden = box.hidden || !(v.offers || []).length;
      if (box.hidden) return;
      // An answer on its way (accepted, declined, withdrawn): its offer's buttons wait for it.
      // The tap that sent it changed the dock under the finger (Give went, the offer's Accept
      // took its place): a double tap's second must not open the offer again (the exchange
      // made then would say "That offer is no longer open").
      var answering = client.pending();
      (v.offers || []).forEach(function (o) {
        var n = o.count + " card" + (o.count > 1 ? "s" : "");
        var li, busy = !!answering && answering.offer === o.id;
        var other = client.seats()[o.from === v.seat ? o.to : o.from], otherName = other ? other.name : "";
        if (o.from === v.seat) {
          li = el("li", [el("span", ["You offer " + n + " to ", nameOf(o.to), "."])]);
          li.appendChild(keyed(named(button("Withdraw", function () { client.send({ type: "withdraw", offer: o.id }); }),
            "Withdraw your offer to " + otherName), "withdraw-" + o.id));
          if (busy) li.lastChild.disabled = true;
        } else {
          li = el("li", [el("span", [nameOf(o.from), " offers you " + n + "."])]);
          // While one is being accepted, only that one shows: its buttons stay in sight.
          li.hidden = accepting !== null && accepting !== o.id;
          if (accepting === o.id) {
            // Changed their mind before giving: the offer stays open, unanswered.
            // (Accept and Not now are one control, pressed or not: the keyboard stays on it.)
            li.appendChild(keyed(named(button("Not now", function () { accepting = null; chosen = []; client.render(); }),
              "Not now: leave " + otherName + "’s offer open"), "answer-" + o.id));
          } else li.appendChild(keyed(named(button("Accept", function () { accepting = o.id; chosen = []; client.render(); }),
            "Accept " + otherName + "’s offer of " + n), "answer-" + o.id));
          li.appendChild(keyed(named(button("Decline", function () {
            if (accepting === o.id) { accepting = null; chosen = []; }
            client.send({ type: "decline", offer: o.id });
          }), "Decline " + otherName + "’s offer of " + n), "decline-" + o.id));
          if (busy) li.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
        }
        list.appendChild(li);
      });
      var to = $("offer-to"), keep = to.value;
      to.textContent = "";
      client.seats().forEach(function (s, i) {
        if (i === v.seat) return;
        var opt = el("option", s.name);   // an <option> holds text only: no <bdi>, its own direction
        opt.dir = "auto";
        opt.value = String(i);
        to.appendChild(opt);
      });
      if (keep) to.value = keep;
      var taking = (v.offers || []).filter(function (o) { return o.id === accepting; })[0], g = $("give");
      if (g) {
        g.hidden = WATCH || !taking || chosen.length !== taking.count;
        if (!g.hidden) {
          var words = joined(chosen.map(cardTitle), ", ", " and ").join("");
          g.textContent = "Give " + words;
          var giver = client.seats()[taking.from];
          g.setAttribute("aria-label", "Give " + words + " to " + (giver ? giver.name : "") + " in exchange");
        }
      }
      $("offer").disabled = WATCH || accepting !== null || chosen.length === 0 || spent(v);
      $("offer-form").hidden = WATCH || accepting !== null || chosen.length === 0 || spent(v);   // once cards are tapped
      var done = $("offers-spent");
      if (done) {
        done.hidden = accepting !== null || !spent(v);
        done.textContent = done.hidden ? "" : SPENT;
      }
    }

    function named(b, name) { b.setAttribute("aria-label", name); return b; }
    function keyed(b, key) { b.dataset.focus = key; return b; }

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

    // --- the result box (the shared client lists each seat's points) ----------------------
    // Each seat's points with their reasons, from the finished view's public ``declared_films``
    // and ``holdings`` (FilmFantasyHand.view): the declaration, complete sets, Ice Follies groups.
    var ICE_WORDS = { four: "the Ice Follies four (+5)", five: "the Ice Follies four with the Joker (+10)",
      joker_three: "the Joker with three Ice Follies (+5)", joker: "a Joker alone (-5)" };
    function filmList(films) {
      return films.map(function (f) { return FILMS[f - 1]; }).join(" and ");
    }
    function resultNote(v, i) {
      var r = v.result, h = (r.holdings || [])[i], why = [];
      if (i === r.declarer) {   // the declaration alone scores, less its Jokers left over
        var base = r.nine_card ? 25 : 15, lost = base - r.points[i];
        why.push("declared " + (r.declared_films && r.declared_films.length ? filmList(r.declared_films) : "two sets") +
          (r.nine_card ? " with the Joker, nine cards" : "") + " (" + base + ")");
        if (lost > 0) why.push(lost / 5 + " Joker" + (lost === 5 ? "" : "s") + " left over (-" + lost + ")");
      } else if (h) {
        if (h.sets) why.push(h.sets + " complete set" + (h.sets === 1 ? "" : "s") + " (+" + 5 * h.sets + ")");
        [h.ice, h.ice2].forEach(function (g) { if (g && ICE_WORDS[g]) why.push(ICE_WORDS[g]); });
      }
      if (!why.length) why.push("no complete set");
      return " — " + why.join("; ");
    }
    function resultMore(v) {
      var more = [el("p", "A declaration scores 15 (25 with nine cards)" +
        (client.data.declarer_joker_penalty ? ", less 5 for each Joker left over" : "") + "; " +
        "everyone else scores 5 for each complete set held (10 for Ice Follies with a Joker), less 5 for a Joker left alone.", "small muted")];
      if (v.declaration) more.push(el("p", "Your declaration: " + v.declaration.map(cardTitle).join(", ")));
      // Who moves after the hand (docs/rules.md), except in the drive's last or at a lone table:
      // the declarer; with no declaration the top scorer, ties to the first on the dealer's left.
      var mover = v.result.mover, points = v.result.points;
      if (client.moves() && mover !== null && mover !== undefined) {
        var top = Math.max.apply(null, points);
        var tied = points.filter(function (p) { return p === top; }).length > 1;
        var why = v.result.declarer === mover ? [client.nameOf(mover), " declared and is the mover."]
          : tied ? ["Nobody declared, and several scored the most: ", client.nameOf(mover), ", the first of them on the dealer's left, is the mover."]
          : ["Nobody declared: ", client.nameOf(mover), " scored the most and is the mover."];
        more.push(el("p", why, "small muted"));   // (what the mover does: the shared client's)
      }
      return more;
    }

    $("declare").addEventListener("click", function () { client.send({ type: "declare" }); });
    if ($("give")) $("give").addEventListener("click", give);
    $("offer").addEventListener("click", function () {
      if (!chosen.length) return;
      // Offered, the form goes: the keyboard back to the cards (the first offered, which then says "in your offer").
      client.focusOn("card-" + chosen[0]);
      client.send({ type: "offer", to: parseInt($("offer-to").value, 10), cards: chosen.slice() });
    });

    return {
      update: update,
      seat: seat,
      render: render,
      status: status,
      logLine: logLine,
      resultNote: resultNote,
      resultMore: resultMore,
      noHand: function () { $("declare").hidden = true; }   // no hand here: nothing to declare
    };
  });
})();
