// A finished deal's score, as the table page's dialog and the replay page show it: a row per
// part of the score with a column per side, and notes for what the rows do not say (the
// floor left at the end, who sat out, the majority prize carried).
//
// The words follow the game: Pasur's surs are "Surs" where Basra says "Basras", and a pile
// game's bonuses are its own ("Piştis", "Xeris"), plain and on a Jack, row by row.

import { el } from "./dom.js";
import { cardList, familyKey, hasKey, sentence, t } from "./i18n.js";

/**
 * The score table of `score` (a deal score of the state message). `sideHeader(side)` is a
 * side's column heading (text or a node); `rules` the match's rules; `variant` its preset
 * (a pile game's words are its own).
 */
export function scoreTable(score, rules, sideHeader, variant = "") {
  const family = rules?.family ?? "basra";
  const word = (key) => t(hasKey(`${key}_${variant}`) ? `${key}_${variant}` : familyKey(key, family));
  const head = el("tr", {}, el("td"));
  score.total.forEach((_, side) => {
    head.append(el("th", { scope: "col", class: `side-${side}` }, sideHeader(side)));
  });
  const rows = [["cards", t("cards"), score.cards]];
  // Pasur gives no prize for most cards: the row would only ever say 0.
  if ((rules?.majority_points ?? 1) > 0 || score.carry_in > 0 || score.majority.some(Boolean)) {
    rows.push(["majority", t("majority"), score.majority]);
  }
  rows.push(["card_points", t("card_points"), score.card_points]);
  if (score.clubs?.length) rows.push(["clubs", t("clubs"), score.clubs]);
  if (score.pistis?.length) {
    rows.push(["pistis", word("basras"), score.pistis.map(([plain]) => plain)]);
    rows.push(["jack_pistis", word("jack_pistis_row"), score.pistis.map(([, jack]) => jack)]);
  } else {
    rows.push(["basras", word("basras"), score.basras]);
  }
  if (score.basras_cancelled?.some(Boolean)) {
    rows.push(["basras_cancelled", t("basras_cancelled"), score.basras_cancelled]);
  }
  rows.push(["basra_points", word("basra_points_row"), score.basra_points]);
  rows.push(["total", t("total"), score.total]);
  const body = rows.map(([key, label, values]) => el("tr", { class: key === "total" ? "total-row" : "", "data-row": key },
    el("th", { scope: "row", text: label }),
    ...values.map((value) => el("td", { text: String(value) }))));
  return el("table", { class: "score-table" }, el("thead", {}, head), el("tbody", {}, ...body));
}

/**
 * The notes under a deal's score, each a node: where the floor left at the end went, who
 * sat the deal out, the majority prize carried in and over. `seatName(seat)` and
 * `sideName(side)` name a seat and a side (text or a node); `players` is the seat count.
 */
export function scoreNotes(score, { seatName, sideName, players }) {
  const notes = [];
  const left = score.leftover;
  if (left?.cards?.length) {
    if (left.sides?.length === left.cards.length) {
      // Shared out one card at a time: each side's cards together, in the order given.
      const bySide = new Map();
      left.cards.forEach((card, i) => {
        const side = left.sides[i];
        if (!bySide.has(side)) bySide.set(side, []);
        bySide.get(side).push(card);
      });
      const shares = document.createDocumentFragment();
      [...bySide].forEach(([side, cards], i) => {
        if (i) shares.append(t("list_semicolon"));
        shares.append(sentence("leftover_share", { cards: cardList(cards), name: sideName(side) }));
      });
      notes.push(sentence("leftover_split", { shares }));
    } else if (left.seat === null || left.seat === undefined || left.seat < 0) {
      notes.push(sentence("leftover_nobody", { cards: cardList(left.cards) }));
    } else {
      notes.push(sentence("leftover", { cards: cardList(left.cards), name: seatName(left.seat) }));
    }
  }
  const playing = new Set(score.seats ?? []);
  const out = playing.size ? [...Array(players).keys()].filter((seat) => !playing.has(seat)) : [];
  if (out.length) {
    const names = document.createDocumentFragment();
    out.forEach((seat, i) => names.append(i ? t("and_joiner") : "", seatName(seat)));
    notes.push(sentence("sat_out", { names }));
  }
  if (score.carry_in) notes.push(sentence("carry_in", { n: score.carry_in }));
  if (score.carry_out) notes.push(sentence("carry_out", { n: score.carry_out }));
  return notes;
}
