/* The keyboard's place on a game screen, kept across redraws (WCAG 2.4.3, focus order). Every view
   rebuilds a game's controls (its cards, its questions' buttons), and a control rebuilt while it
   has the focus drops the focus to <body>: a keyboard or screen-reader user would start again
   from the top of the page after every move, their own or another player's. Shared by
   every game's screen: the play client (static/js/play_client.js, loaded after this) notes the
   focused control before it draws a view (``before``) and puts the focus back after (``after``).

   A control says which it is with ``data-focus``, a key of the game's screen ("card-7"), the same
   in every view; one never rebuilt, by its id. After a redraw the focus goes to the first of these
   that can take it (shown, enabled, not inert):
     1. the same control (its key; of two controls with one key, the same copy);
     2. the control next to it in its group (its nearest ancestor with an id), after it, then
        before it;
     3. what the game's screen offers (``home``: a question it asks the player, say);
     4. the control next to it elsewhere on the screen, after it, then before it;
     5. the status line (``parkId``, focusable by script only), never <body>.
   Parked on the status line, the focus goes back by 1 to 3 at a later redraw that brings them
   (the player's turn again, their cards live again). Only a focus the redraw took away is moved:
   one the player took elsewhere (a link, a list, the status line) stays theirs. */
(function () {
  "use strict";
  var CONTROLS = "[data-focus], button[id], select[id], input[id]";

  window.PlayFocus = function (root, parkId) {
    var place = null;      // the keyboard's place: {key, nth, near, far, keyboard}
    var parked = null;     // the status line, while the focus waits there
    var parking = false;

    // Whether ``e`` shows the keyboard's focus ring (false where a browser knows no :focus-visible).
    function byKeyboard(e) { try { return !!(e && e.matches && e.matches(":focus-visible")); } catch (x) { return false; } }
    function keyOf(e) { return (e.dataset && e.dataset.focus) || (e.id ? "#" + e.id : ""); }
    function controls() {
      return Array.prototype.filter.call(root.querySelectorAll(CONTROLS), function (e) { return !!keyOf(e); });
    }
    function withKey(key) {
      if (key.charAt(0) === "#") {
        var e = document.getElementById(key.slice(1));
        return e && root.contains(e) ? [e] : [];
      }
      return Array.prototype.slice.call(root.querySelectorAll('[data-focus="' + CSS.escape(key) + '"]'));
    }
    function group(e) { var g = e.parentElement && e.parentElement.closest("[id]"); return g ? g.id : ""; }
    // The control at a spot ({key, nth}), shown or not: the same copy, else the last one left.
    function at(spot) { var all = withKey(spot.key); return all[Math.min(spot.nth, all.length - 1)] || null; }
    function focusable(e) {
      return !!e && e.isConnected && !e.disabled && !e.closest("[inert]") && e.getClientRects().length > 0;
    }

    // The place of control ``e``: its key and copy, and the controls around it, in the order
    // they are tried if it goes (its group's first, each list the nearest first).
    function placeOf(e, keyboard) {
      var list = controls(), seen = {}, spots = list.map(function (c) {
        var k = keyOf(c);
        seen[k] = (seen[k] || 0) + 1;
        return { key: k, nth: seen[k] - 1, group: group(c) };
      });
      var i = list.indexOf(e), g = group(e);
      var order = spots.slice(i + 1).concat(spots.slice(0, i).reverse());
      return { key: spots[i].key, nth: spots[i].nth, keyboard: keyboard,
               near: order.filter(function (s) { return s.group === g; }),
               far: order.filter(function (s) { return s.group !== g; }) };
    }

    // A keyboard's focus scrolls the control into sight; a finger's does not move the page
    // (the play client keeps a tap's target under the finger).
    function focusOn(e, keyboard) {
      if (!focusable(e)) return false;
      e.focus({ preventScroll: !keyboard });
      return document.activeElement === e;
    }
    function firstOf(spots, keyboard) {
      return spots.some(function (s) { return focusOn(at(s), keyboard); });
    }
    function park() {
      var s = document.getElementById(parkId);
      if (!s || !root.contains(s)) return;
      if (!s.hasAttribute("tabindex")) s.tabIndex = -1;
      parking = true;
      s.focus({ preventScroll: true });
      parking = false;
      parked = document.activeElement === s ? s : null;
    }

    // The focus lost (or ``fromPark``: waiting on the status line): back to the steps 1 to 5 above.
    function restore(fromPark, home) {
      var p = place, keyboard = !!(p && p.keyboard);
      if (p && firstOf([p].concat(p.near), keyboard)) return;
      if (focusOn(home && home(), keyboard)) return;
      if (fromPark) return;
      if (p && firstOf(p.far, keyboard)) return;
      park();
    }

    // Where the player moves the focus (a key, or anything else: their own place, not kept).
    root.addEventListener("focusin", function (event) {
      if (parking) return;
      parked = null;
      var t = event.target;
      place = t.matches(CONTROLS) && keyOf(t) ? placeOf(t, byKeyboard(t)) : null;
    });

    return {
      // Before a redraw: the element focused (null if the focus is not on the screen), and the
      // place's neighbours as they are now, if its control is still there.
      before: function () {
        var a = document.activeElement;
        if (!a || a === document.body || !root.contains(a)) return null;
        var e = place && at(place);
        if (e) place = placeOf(e, place.keyboard);
        return { el: a, parked: a === parked };
      },
      // After it: the focus back in its place if the redraw took it; ``home()`` the screen's offer.
      after: function (was, home) {
        if (!was) return;
        var a = document.activeElement;
        if (a === was.el && focusable(a)) {
          if (was.parked) restore(true, home);
          return;
        }
        if (a && a !== document.body && a !== was.el) return;   // focused elsewhere meanwhile
        restore(false, home);
      },
      // The screen moves the keyboard's place to the control ``key`` (drawn now, or by the next
      // redraw): the focus goes there once the control it is on is redrawn away.
      want: function (key) {
        var a = document.activeElement, keyboard = byKeyboard(a);
        var e = withKey(key)[0];
        place = e ? placeOf(e, keyboard) : { key: key, nth: 0, near: [], far: [], keyboard: keyboard };
      }
    };
  };
})();
