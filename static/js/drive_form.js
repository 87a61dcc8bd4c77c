// The new-drive and edit forms: only the chosen game's house rules are shown, and only the
// target fields that the chosen end applies to (both for "whichever comes first"; the hands hidden for suspense only with a number of hands). Without this script both are shown, and the
// server checks the one that applies (drive/forms.py).
(function () {
  "use strict";
  var target = document.querySelector("select[name=target]");
  if (!target) return;
  // Hiding the last hands' standings needs a number of hands: not asked of a drive that ends at a total.
  var uses = {hands: ["target_hands", "suspense_hands"], total: ["target_total"],
              either: ["target_hands", "target_total", "suspense_hands"]};
  function show() {
    var wanted = uses[target.value] || ["target_hands", "target_total", "suspense_hands"];
    ["target_hands", "target_total", "suspense_hands"].forEach(function (name) {
      var label = document.querySelector(".form-field[data-field=" + name + "]");
      // A field the server refused stays in sight with its message, whichever end is chosen.
      if (label) label.hidden = wanted.indexOf(name) < 0 && !label.querySelector(".errorlist");
    });
  }
  target.addEventListener("change", show);
  show();
  // Each game's house rules ([data-game]): only the chosen game's are shown.
  var game = document.querySelector("select[name=game]");
  function showRules() {
    document.querySelectorAll(".form-field[data-game]").forEach(function (label) {
      label.hidden = game && label.dataset.game !== game.value && !label.querySelector(".errorlist");
    });
  }
  if (game) game.addEventListener("change", showRules);
  showRules();
  // Each game's table sizes (select[data-sizes]): the players-per-table box offers the chosen
  // game's, as the server checks them (a box that offered 10 for a game of six puzzled a tester).
  var size = document.querySelector("input[name=preferred_table_size]");
  if (game && size && game.dataset.sizes) {
    var sizes = JSON.parse(game.dataset.sizes);
    var bound = function () {
      var s = sizes[game.value];
      if (s) { size.min = s[0]; size.max = s[1]; }
    };
    game.addEventListener("change", bound);
    bound();
  }
  // Each game's suggested total to reach (select[data-totals]): a total left as the previous
  // game suggested follows the game chosen; one the organiser typed stays.
  var total = document.querySelector("input[name=target_total]");
  if (game && total && game.dataset.totals) {
    var totals = JSON.parse(game.dataset.totals), previous = game.value;
    game.addEventListener("change", function () {
      if (String(totals[previous]) === total.value && totals[game.value]) total.value = totals[game.value];
      previous = game.value;
    });
  }
})();
