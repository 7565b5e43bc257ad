// Playing cards drawn as inline SVG (viewBox 200 x 280), and their DOM wrappers.

import { cardName, splitCard } from "./i18n.js";

const W = 200;
const H = 280;
const RED = "#c0262d";
const BLACK = "#1b1b1f";

// Suit shapes in a 100 x 100 box.
const SUIT_PATHS = {
  H: "M50 92C22 68 2 50 2 28 2 12 14 2 28 2c10 0 18 6 22 15C54 8 62 2 72 2c14 0 26 10 26 26 0 22-20 40-48 64z",
  D: "M50 2 88 50 50 98 12 50z",
  S: "M50 2C78 28 98 42 98 62c0 14-10 24-23 24-9 0-16-4-20-11 1 11 5 18 13 25H32c8-7 12-14 13-25-4 7-11 11-20 11C12 86 2 76 2 62 2 42 22 28 50 2z",
  C: "M50 4a21 21 0 0 1 18 32 21 21 0 1 1-14 36c1 12 5 20 14 28H32c9-8 13-16 14-28A21 21 0 1 1 32 36 21 21 0 0 1 50 4z",
};

// Pip centres for number cards: [column 0..2, row 0..1]; rows past the middle are drawn upside down.
const PIPS = {
  2: [[1, 0], [1, 1]],
  3: [[1, 0], [1, 0.5], [1, 1]],
  4: [[0, 0], [2, 0], [0, 1], [2, 1]],
  5: [[0, 0], [2, 0], [1, 0.5], [0, 1], [2, 1]],
  6: [[0, 0], [2, 0], [0, 0.5], [2, 0.5], [0, 1], [2, 1]],
  7: [[0, 0], [2, 0], [1, 0.25], [0, 0.5], [2, 0.5], [0, 1], [2, 1]],
  8: [[0, 0], [2, 0], [1, 0.25], [0, 0.5], [2, 0.5], [1, 0.75], [0, 1], [2, 1]],
  9: [[0, 0], [2, 0], [0, 1 / 3], [2, 1 / 3], [1, 0.5], [0, 2 / 3], [2, 2 / 3], [0, 1], [2, 1]],
  10: [[0, 0], [2, 0], [1, 1 / 6], [0, 1 / 3], [2, 1 / 3], [0, 2 / 3], [2, 2 / 3], [1, 5 / 6],
    [0, 1], [2, 1]],
};

let uid = 0;

function suitColor(suit) {
  return suit === "H" || suit === "D" ? RED : BLACK;
}

function pip(suit, cx, cy, size, flip = false) {
  const s = size / 100;
  const turn = flip ? ` rotate(180 50 50)` : "";
  return `<path d="${SUIT_PATHS[suit]}" transform="translate(${cx - size / 2} ${cy - size / 2}) scale(${s})${turn}"/>`;
}

function corner(rank, suit) {
  const narrow = rank === "10" ? ` textLength="38" lengthAdjust="spacingAndGlyphs"` : "";
  return `<g class="index"><text x="25" y="45" text-anchor="middle" font-size="40" font-weight="700"
    font-family="Georgia, 'DejaVu Serif', serif"${narrow}>${rank}</text>${pip(suit, 25, 68, 24)}</g>`;
}

function numberFace(rank, suit) {
  if (rank === "A") {
    const size = suit === "D" ? 90 : 80;
    return pip(suit, W / 2, H / 2, size);
  }
  const size = Number(rank) >= 9 ? 36 : 40;
  const xs = [64, 100, 136];
  const top = 58;
  const bottom = 222;
  return PIPS[rank]
    .map(([col, row]) => pip(suit, xs[col], top + row * (bottom - top), size, row > 0.5))
    .join("");
}

// One half of a court figure, drawn in the top half of the frame and mirrored below.
function courtHalf(rank, suit, color) {
  const robe = suit === "H" || suit === "D" ? RED : "#1f3b73";
  const gold = "#e9b824";
  const line = `stroke="${BLACK}" stroke-width="1.6"`;
  const hats = {
    K: `<path d="M83 70 84 46 92 57 100 41 108 57 116 46 117 70z" fill="${gold}" ${line}/>
        <circle cx="100" cy="43" r="3.5" fill="${RED}"/>`,
    Q: `<path d="M85 70c3-16 27-16 30 0z" fill="${gold}" ${line}/>
        <circle cx="92" cy="58" r="3" fill="${RED}"/><circle cx="100" cy="54" r="3.5" fill="#2a6bc2"/>
        <circle cx="108" cy="58" r="3" fill="${RED}"/>`,
    J: `<path d="M83 72c1-17 33-19 36-3z" fill="${robe}" ${line}/>
        <path d="M115 64c9-11 18-13 24-11-7 2-12 7-18 15z" fill="${gold}" ${line}/>`,
  };
  const extra = {
    K: `<path d="M82 90c4 11 32 11 36 0-6 5-30 5-36 0z" fill="#7a4a22"/>
        <path d="M134 136 140 94" stroke="${gold}" stroke-width="4"/><circle cx="140" cy="92" r="5" fill="${gold}" ${line}/>`,
    Q: `<path d="M86 74c-6 10-5 20 0 28M114 74c6 10 5 20 0 28" fill="none" stroke="#7a4a22" stroke-width="4"/>
        <path d="M62 134 66 110" stroke="#3c7a3a" stroke-width="3"/>
        <circle cx="66" cy="106" r="6" fill="${RED}" ${line}/><circle cx="66" cy="106" r="2" fill="${gold}"/>`,
    J: `<path d="M138 138 138 86" stroke="#7a4a22" stroke-width="3.5"/>
        <path d="M138 80l-7 10h14z" fill="${gold}" ${line}/>`,
  };
  return `<g>
    <path d="M58 140 64 112Q100 94 136 112L142 140z" fill="${robe}" ${line}/>
    <path d="M92 100h16l-3 40h-10z" fill="${gold}" ${line}/>
    <path d="M88 98 100 112 112 98" fill="#f3e3b5" ${line}/>
    <circle cx="100" cy="80" r="14" fill="#f6d7b0" ${line}/>
    <circle cx="95" cy="79" r="1.7" fill="${BLACK}"/><circle cx="105" cy="79" r="1.7" fill="${BLACK}"/>
    <path d="M96 86q4 3 8 0" fill="none" stroke="${BLACK}" stroke-width="1.2"/>
    ${extra[rank]}${hats[rank]}
    <g fill="${color}">${pip(suit, 64, 70, 18)}</g>
    <text x="64" y="56" text-anchor="middle" font-size="20" font-weight="700"
      font-family="Georgia, 'DejaVu Serif', serif" fill="${color}">${rank}</text>
  </g>`;
}

function courtFace(rank, suit, color) {
  const half = courtHalf(rank, suit, color);
  return `<rect x="46" y="36" width="108" height="208" rx="6" fill="#fbf3dc" stroke="${color}" stroke-width="3"/>
    <rect x="51" y="41" width="98" height="198" rx="4" fill="none" stroke="#e9b824" stroke-width="1.5"/>
    <svg x="46" y="36" width="108" height="104" viewBox="46 36 108 104" overflow="hidden">${half}</svg>
    <svg x="46" y="140" width="108" height="104" viewBox="46 36 108 104" overflow="hidden">
      <g transform="rotate(180 100 88)">${half}</g></svg>
    <path d="M46 140h108" stroke="${color}" stroke-width="1.5"/>`;
}

/** The markup of a card face, e.g. cardMarkup("10H"). */
export function cardMarkup(code) {
  const [rank, suit] = splitCard(code);
  const color = suitColor(suit);
  const face = "JQK".includes(rank) ? courtFace(rank, suit, color) : numberFace(rank, suit);
  return `<svg class="card-svg" viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg"
    aria-hidden="true" focusable="false">
    <rect x="2" y="2" width="196" height="276" rx="16" fill="#fffdf8" stroke="#9a9488" stroke-width="3"/>
    <g fill="${color}">${corner(rank, suit)}
      <g transform="rotate(180 100 140)">${corner(rank, suit)}</g>
      ${face}</g>
  </svg>`;
}

/** The markup of the card back. */
export function backMarkup() {
  const id = `back${++uid}`;
  return `<svg class="card-svg" viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg"
    aria-hidden="true" focusable="false">
    <defs><pattern id="${id}" width="20" height="20" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
      <rect width="20" height="20" fill="#8e1b2c"/>
      <path d="M0 10h20M10 0v20" stroke="#c9a13b" stroke-width="2" opacity="0.55"/>
      <circle cx="10" cy="10" r="2.6" fill="#f2d27a"/></pattern></defs>
    <rect x="2" y="2" width="196" height="276" rx="16" fill="#fffdf8" stroke="#9a9488" stroke-width="3"/>
    <rect x="14" y="14" width="172" height="252" rx="10" fill="url(#${id})" stroke="#6d1322" stroke-width="3"/>
    <rect x="24" y="24" width="152" height="232" rx="7" fill="none" stroke="#f2d27a" stroke-width="2"/>
    <g transform="translate(100 140)"><path d="M0-34 26 0 0 34-26 0z" fill="#6d1322" stroke="#f2d27a" stroke-width="3"/>
      <circle r="8" fill="#f2d27a"/></g>
  </svg>`;
}

function fromMarkup(markup) {
  const tpl = document.createElement("template");
  tpl.innerHTML = markup.trim();
  return tpl.content.firstElementChild;
}

/** A card face as an element: a labelled image, or (tag "button") a button named by the card. */
export function cardElement(code, { tag = "div", className = "" } = {}) {
  const el = document.createElement(tag);
  el.className = `card ${className}`.trim();
  el.dataset.card = code;
  if (tag === "button") {
    el.type = "button";
  } else {
    el.setAttribute("role", "img");
  }
  el.setAttribute("aria-label", cardName(code));
  el.append(fromMarkup(cardMarkup(code)));
  return el;
}

/** A face-down card (decoration only). */
export function backElement(className = "") {
  const el = document.createElement("div");
  el.className = `card back ${className}`.trim();
  el.setAttribute("aria-hidden", "true");
  el.append(fromMarkup(backMarkup()));
  return el;
}

/**
 * A small inline card for text ("9♥"), named by the card: the one helper that writes a
 * card's rank and suit into a sentence. Its own left-to-right island (dir="ltr" isolates
 * it), so that in Arabic and Persian "J♠" never reads "♠J".
 */
export function miniCard(code) {
  const [rank, suit] = splitCard(code);
  const el = document.createElement("span");
  el.className = `mini-card ${suit === "H" || suit === "D" ? "red" : "black"}`;
  el.dir = "ltr";
  el.dataset.code = code;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardName(code));
  el.textContent = `${rank}${{ S: "♠", H: "♥", D: "♦", C: "♣" }[suit]}\uFE0E`;
  return el;
}
