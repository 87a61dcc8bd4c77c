/* A sentence from the server as the page shows it. The server marks each name in a sentence
   with the isolate characters (U+2068 ... U+2069, common/bidi.py), so that a right-to-left name
   cannot reorder the words around it; here each name becomes a <bdi> element instead, so the
   text shown holds no invisible mark. Used by the game screens (play_client.js), the points
   preview (preview.js) and the entry form's refusals (entry.js); load it before them. */
(function () {
  "use strict";
  // The sentence's parts: strings, and a <bdi> for each name.
  function sentenceParts(text) {
    return String(text || "").split(/\u2068([^\u2068\u2069]*)\u2069/).map(function (part, i) {
      if (!(i % 2)) return part;
      var b = document.createElement("bdi");
      b.textContent = part;
      return b;
    });
  }
  window.sentenceParts = sentenceParts;
  // ``el`` holding the sentence, and nothing else.
  window.sentenceInto = function (el, text) {
    el.textContent = "";
    sentenceParts(text).forEach(function (part) { el.append(part); });
  };
})();
