// A live game as the Watch page lists it and Basra TV names it (GET /api/watch, see
// docs/web-protocol.md): its variant, rated or casual, its players with their ratings
// (a computer with its level), the score of each side, the deal and the watchers.

import { el } from "./dom.js";
import { formatNumber, t } from "./i18n.js";
import { nameElement, poolName, shownName } from "./matches.js";

/** The live games anyone may watch, best first. */
export async function liveGames(getJSON) {
  return getJSON("/api/watch");
}

/** One seat: its name (a computer's with its level) and its rating, if any. */
function seatElement(seat) {
  const item = el("span", { class: `watch-seat${seat.kind === "bot" ? " computer" : ""}` },
    nameElement(seat.account ?? seat.name, { kind: seat.kind, level: seat.level }));
  if (seat.rating !== null && seat.rating !== undefined) {
    item.append(" ", el("span", { class: "watch-rating", text: formatNumber(Math.round(seat.rating)) }));
  }
  return item;
}

/** The sides of a game: the seats of each side with the side's points. */
function sidesElement(entry) {
  const sides = new Map();
  for (const seat of entry.seats) {
    if (!sides.has(seat.side)) sides.set(seat.side, []);
    sides.get(seat.side).push(seat);
  }
  return el("ul", { class: "watch-sides" }, ...[...sides.entries()].map(([side, seats]) =>
    el("li", { class: `watch-side side-${side}` },
      el("span", { class: "watch-side-seats" }, ...seats.flatMap((seat, i) => (i ? [" · ", seatElement(seat)] : [seatElement(seat)]))),
      el("span", { class: "watch-points", text: formatNumber(entry.totals[side] ?? 0) }))));
}

/** The game's players as one line of text: "Amira and Omar". */
export function playersText(entry) {
  const names = entry.seats.map((seat) => shownName(seat.account ?? seat.name, { kind: seat.kind, level: seat.level }));
  return names.reduce((first, second) => t("watch_and", { first, second }));
}

/** The game's caption: its pool, rated or casual, its deal and target, its watchers. */
export function gameFacts(entry) {
  return el("p", { class: "watch-facts" },
    el("span", { class: "watch-pool", text: poolName(entry.pool) }),
    el("span", { class: `badge ${entry.rated ? "rated-badge" : "casual-badge"}`, "data-testid": "rated", text: t(entry.rated ? "rated" : "casual") }),
    el("span", { class: "watch-progress", text: t("watch_progress", { deal: entry.deal, target: entry.target }) }),
    el("span", { class: "watch-watchers", text: t("watch_watchers", { n: entry.watchers }) }));
}

/** A game of the Watch list, with its Watch link. */
export function gameElement(entry) {
  return el("li", { class: "panel watch-item", "data-code": entry.code, "data-testid": "live-game" },
    gameFacts(entry),
    sidesElement(entry),
    el("a", { class: "btn btn-primary watch-open", href: entry.url, "aria-label": t("watch_open_label", { players: playersText(entry) }), text: t("watch_open") }));
}
