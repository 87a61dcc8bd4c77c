/* The join page of a hall: a few letters typed show only the names that hold them (any part of
   the name, any case, accents or not: "elo" finds "Élodie Martin"). Without this script, or
   with nothing typed, every name is there to tap. */
(function () {
  "use strict";
  var box = document.querySelector("[data-find-name]"), list = document.getElementById("names");
  if (!box || !list) return;
  var input = box.querySelector("input"), count = document.getElementById("find-name-count");
  var names = Array.prototype.slice.call(list.querySelectorAll("button[name=player]"));
  // Letters that lose no accent but are typed plain ("lukasz" for "Łukasz"), and every apostrophe
  // as one (a phone types ’ or ', whichever the name was written with).
  var FOLD = {"ł": "l", "ß": "ss", "ı": "i", "ø": "o", "æ": "ae", "œ": "oe", "đ": "d", "ð": "d", "þ": "th"};
  function plain(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
      .replace(/[łßıøæœđðþ]/g, function (c) { return FOLD[c]; })
      .replace(/[\u2018\u2019\u02bc`´]/g, "'").replace(/\s+/g, " ").trim();
  }
  var keys = names.map(function (b) { return plain(b.querySelector("bdi") ? b.querySelector("bdi").textContent : b.textContent); });
  function filter() {
    var typed = plain(input.value), shown = 0;
    names.forEach(function (b, i) {
      var hit = !typed || keys[i].indexOf(typed) >= 0;
      b.hidden = !hit;
      if (hit) shown += 1;
    });
    count.textContent = !typed ? "" : shown === 0 ? "No name holds “" + input.value.trim() + "”: check the spelling, or ask the organiser."
      : shown === 1 ? "1 name." : shown + " names.";
  }
  input.addEventListener("input", filter);
  box.hidden = false;
  filter();
})();
