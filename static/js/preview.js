/* The points preview of a result form: the phone's entry page and the organiser's result page.
   As the answers change, the form's answers go to the URL in its data-preview (POST, with the
   form's own CSRF token) and the server's answer is shown in its [data-preview-box]: each
   player's points, computed by the game's rules on the server (never here), or what is missing
   or wrong. For a correction the server also sends each player's points as recorded now, shown
   beside the new ones ("Ann: 15 → 20 points"). Nothing is saved by a preview.
   A question asked only once another is answered (the game's "asked_if", its box's
   data-asked-if: docs/games.md) is hidden while that one is unanswered or answered "nobody"
   (or "none");
   its answer is then moot, and sent as it stands.
   A refusal of the answers themselves (the page's [data-entry-error][data-about-answers], and
   the questions it marked) goes once the answers differ from those refused and the preview has
   answered for them: it said what was wrong with answers no longer there, and the preview says
   what is wrong with these, if anything. Any other refusal ("Ann sent the result first") stays. */
(function () {
  "use strict";
  var sentenceInto = window.sentenceInto;   // static/js/sentence.js: its names as <bdi>s
  var form = document.querySelector("form[data-preview]");
  if (!form) return;
  var box = form.querySelector("[data-preview-box]");
  var timer = null, asked = 0;

  // The answers chosen ("dealer=2&seat0_sets=1…": the checked choices only, not a reason
  // being typed); entry.js uses it too (its draft, the answers a refusal was of).
  function answersOf(f) {
    return Array.prototype.map.call(f.querySelectorAll("input[type=radio]:checked"), function (i) {
      return encodeURIComponent(i.name) + "=" + encodeURIComponent(i.value);
    }).join("&");
  }
  window.resultAnswers = answersOf;
  var shownWith = answersOf(form);  // as the page came: a refusal it shows was of these
  function paragraph(text, className) {
    var p = document.createElement("p");
    p.className = className;
    sentenceInto(p, text);
    return p;
  }
  // Who wins the hand decides who moves: a correction that changes it says so, points or not.
  function winChanged(row) { return row.recorded !== undefined && !!row.won !== !!row.was_won; }
  function changed(row) { return row.recorded !== undefined && (row.recorded !== row.points || winChanged(row)); }
  function winText(row) {
    var moves = row.moves ? "; " + row.moves : "";   // nobody won: who moves all the same
    if (winChanged(row)) return row.won ? "; now wins the hand" : "; no longer wins the hand" + moves;
    return row.won ? "; won the hand" : moves;
  }
  function pointsText(row) {
    if (row.recorded === undefined) return ": " + row.points + " points" + winText(row);
    if (row.recorded === row.points) return ": " + row.points + " points, unchanged" + winText(row);
    return ": " + row.recorded + " → " + row.points + " points" + winText(row);
  }
  function show(data) {
    box.textContent = "";
    var now = answersOf(form);
    document.querySelectorAll("[data-entry-error][data-about-answers]").forEach(function (e) {
      if (now === (e.dataset.answers === undefined ? shownWith : e.dataset.answers)) return;  // still those refused
      e.hidden = true;
      form.querySelectorAll("fieldset.invalid").forEach(function (f) { f.classList.remove("invalid"); });
    });
    if (!data.ok) {
      // Not answered yet is no error: a hint, not red. A contradiction in the answers is one.
      box.appendChild(data.incomplete
        ? paragraph("The points show here once every question is answered.", "muted")
        : paragraph(data.message, "error"));
      return;
    }
    var recorded = data.points.some(function (row) { return row.recorded !== undefined; });
    box.appendChild(paragraph(recorded ? "Points as recorded → with these answers" : "Points with these answers",
                              "small muted"));
    var ul = document.createElement("ul");
    data.points.forEach(function (row) {
      var li = document.createElement("li");
      var name = document.createElement("bdi");  // isolated: docs/architecture.md
      name.textContent = row.name;  // textContent: names are never HTML
      li.append(name, pointsText(row));
      if (changed(row)) li.className = "changed";
      ul.appendChild(li);
    });
    box.appendChild(ul);
    if (data.note) box.appendChild(paragraph(data.note, "small muted"));  // e.g. a correction moves nobody
  }
  function preview() {
    var mine = ++asked;
    var body = new URLSearchParams(new FormData(form));
    fetch(form.dataset.preview, {method: "POST", body: body, credentials: "same-origin"})
      .then(function (r) { return r.json(); })
      .then(function (data) { if (mine === asked) show(data); })  // an older answer arriving late is dropped
      .catch(function () {   // no connection (or no JSON): say so; the entry itself waits and is sent later
        if (mine !== asked) return;
        box.textContent = "";
        box.appendChild(paragraph("No connection just now: the points show when the phone is back online.", "muted"));
      });
  }
  function askOnlyWhenMeaningful() {
    form.querySelectorAll("[data-asked-if]").forEach(function (fieldset) {
      var answer = form.querySelector('input[name="' + fieldset.dataset.askedIf + '"]:checked');
      fieldset.hidden = !answer || answer.value === "none";
    });
  }
  form.addEventListener("change", function () {
    askOnlyWhenMeaningful();
    clearTimeout(timer);
    timer = setTimeout(preview, 200);
  });
  askOnlyWhenMeaningful();
  preview();
})();
