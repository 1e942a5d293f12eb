// The cards, drawn by the project's own code as SVG: large indices, red and black.
// A card is a code like "10H": its rank, then S C D H (spades, clubs, diamonds, hearts).
"use strict";
(function () {
  var SUIT = { S: "\u2660", C: "\u2663", D: "\u2666", H: "\u2665" };
  var RED = { D: true, H: true };

  function parse(code) {
    return { rank: code.slice(0, -1), suit: code.slice(-1) };
  }

  function face(code) {
    var c = parse(code);
    var colour = "var(--suit-" + c.suit + ")"; // red and black; four colours as a setting
    var s = SUIT[c.suit];
    var wide = c.rank.length > 1;
    var rankSize = wide ? 34 : 40;
    return (
      '<svg class="card-svg" viewBox="0 0 100 140" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="' +
      c.rank + s + '">' +
      '<rect x="1.5" y="1.5" width="97" height="137" rx="10" fill="var(--card-face)" stroke="var(--card-edge)" stroke-width="3"/>' +
      '<g fill="' + colour + '" font-family="Arial, Helvetica, sans-serif" font-weight="700">' +
      '<text x="' + (wide ? 5 : 9) + '" y="40" font-size="' + rankSize + '" letter-spacing="' + (wide ? -3 : 0) + '">' + c.rank + "</text>" +
      '<text x="10" y="74" font-size="32">' + s + "</text>" +
      '<text x="92" y="128" font-size="58" text-anchor="end">' + s + "</text>" +
      "</g></svg>"
    );
  }

  function back() {
    return (
      '<svg class="card-svg" viewBox="0 0 100 140" xmlns="http://www.w3.org/2000/svg">' +
      '<defs><pattern id="bk" width="12" height="12" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
      '<rect width="12" height="12" fill="var(--back-a)"/><rect width="6" height="12" fill="var(--back-b)"/></pattern></defs>' +
      '<rect x="1.5" y="1.5" width="97" height="137" rx="10" fill="var(--card-face)" stroke="var(--card-edge)" stroke-width="3"/>' +
      '<rect x="9" y="9" width="82" height="122" rx="6" fill="url(#bk)"/></svg>'
    );
  }

  window.Cards = { face: face, back: back, suit: function (letter) { return SUIT[letter] || ""; },
                   red: function (letter) { return !!RED[letter]; } };
})();
