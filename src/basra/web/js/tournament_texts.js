// What the tournaments' pages (/tournaments and /tournament/{id}) both say about a
// tournament: its format (Arena or Swiss), its variant and players, rated or casual, its
// clock (a countdown to the start or the end, or the round), its score in the page's digits.
// The tournament's summary is the server's (GET /api/tournaments, docs/web-protocol.md):
// {id, name, kind, status, variant, players, rated, minutes, rounds, round, starts_at,
// ends_at, entrants, winner, turn_seconds}, times in Unix milliseconds.

import { el } from "./dom.js";
import { formatMoment, formatNumber, t } from "./i18n.js";
import { variantName } from "./matches.js";

const DAY_MS = 24 * 3600 * 1000;

/**
 * The tournament's name: as its creator wrote it, or, when the server named it ("Egyptian
 * Arena", "Six card Swiss": the variant and the format, as players/events.py does), that
 * name in the page's language.
 */
export function tournamentName(summary) {
  const variant = String(summary.variant ?? "").replaceAll("-", " ");
  const kind = String(summary.kind ?? "");
  const given = `${variant.charAt(0).toUpperCase()}${variant.slice(1)} ${kind.charAt(0).toUpperCase()}${kind.slice(1)}`;
  if (summary.name && summary.name !== given) return summary.name;
  return t("tournament_default_name", { variant: variantName(summary.variant), kind: kindName(summary.kind) });
}

/** "Arena" or "Swiss" in the page's language. */
export function kindName(kind) {
  return t(kind === "swiss" ? "kind_swiss" : "kind_arena");
}

/** A score as the page writes it: 4, 1.5, in its own digits. */
export function scoreText(score) {
  return formatNumber(Number(score) || 0, { maximumFractionDigits: 1 });
}

/** A span of time as a clock: "4:05", "1:02:09", in the page's digits. */
export function clockText(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const two = (n) => formatNumber(n, { minimumIntegerDigits: 2 });
  return hours ? `${formatNumber(hours)}:${two(minutes)}:${two(seconds)}` : `${formatNumber(minutes)}:${two(seconds)}`;
}

/** The tournament's length: "30 minutes" (an arena) or "5 rounds" (a Swiss event). */
export function lengthText(summary) {
  return summary.kind === "swiss"
    ? t("tournament_rounds", { n: summary.rounds ?? 0 })
    : t("duration_minute", { n: summary.minutes ?? 0 });
}

/** Facts in one line: "Egyptian · 2 players" (in Arabic and Persian with their comma: a
 * middle dot beside their digits reads as a zero). */
export function joined(...facts) {
  return facts.join(t("tournament_joiner"));
}

/** "Egyptian · 2 players". */
export function gameText(summary) {
  const players = summary.players === 2 ? t("players_2") : t("players_n", { n: summary.players });
  return joined(variantName(summary.variant), players);
}

/**
 * Where the tournament stands in time, as of `now` (Unix ms): "Starts in 4:05", "Ends in
 * 12:30", "Round 2 of 5", "Finished 12 May 2025, 18:00". A start more than a day away is
 * given as a moment.
 */
export function clockLine(summary, now) {
  if (summary.status === "finished") {
    return summary.ends_at ? t("tournament_finished_at", { when: formatMoment(summary.ends_at) }) : t("tournaments_finished");
  }
  if (summary.status === "created") {
    const left = summary.starts_at - now;
    if (left <= 0) return t("tournament_starting");
    if (left > DAY_MS) return t("tournament_starts_at", { when: formatMoment(summary.starts_at) });
    return t("tournament_starts_in", { time: clockText(left) });
  }
  if (summary.kind === "swiss") {
    return t("tournament_round_of", { round: summary.round || 1, rounds: summary.rounds ?? 0 });
  }
  if (!summary.ends_at) return t("tournament_running");
  const left = summary.ends_at - now;
  return left > 0 ? t("tournament_ends_in", { time: clockText(left) }) : t("tournament_ending");
}

/** The badges of a tournament: its format, and rated or casual. */
export function badges(summary) {
  return [
    el("span", { class: `badge kind-badge kind-${summary.kind}`, "data-testid": "kind", text: kindName(summary.kind) }),
    el("span", { class: `badge ${summary.rated ? "rated-badge" : "casual-badge"}`, "data-testid": "rated", text: t(summary.rated ? "rated" : "casual") }),
  ];
}

const SVG = "http://www.w3.org/2000/svg";
const ICONS = {
  flame: [["path", { d: "M12 1.5c.9 3.4-1.2 5.4-2.9 7.4C7.7 10.6 6.5 12.3 6.5 14.8a5.5 5.5 0 0 0 11 0c0-2.3-1-4.1-2.3-5.5-.2 1.6-.9 2.6-2 3.2.6-4-.2-7.6-1.2-11z", fill: "#e4572e" }],
    ["path", { d: "M12 12.5c.3 1.5-.8 2.4-1.5 3.3-.4.5-.7 1-.7 1.7a2.2 2.2 0 0 0 4.4 0c0-1.3-.9-2.3-1.5-3 0 .6-.3 1-.7 1.2.3-1.1.3-2.1 0-3.2z", fill: "#ffc94a" }]],
  trophy: [["path", { d: "M7 3h10v2h3.5v2.5A4.5 4.5 0 0 1 16.3 12a5 5 0 0 1-3.3 2.8V17h3v3.5H8V17h3v-2.2A5 5 0 0 1 7.7 12 4.5 4.5 0 0 1 3.5 7.5V5H7zm0 4H5.5v.5A2.5 2.5 0 0 0 7 9.8zm10 0v2.8a2.5 2.5 0 0 0 1.5-2.3V7z", fill: "#c99a25" }]],
};

/** A small drawn icon ("flame", "trophy"), hidden from screen readers: its text says it. */
export function icon(name) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", `icon icon-${name}`);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const [tag, attributes] of ICONS[name]) {
    const part = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) part.setAttribute(key, value);
    svg.append(part);
  }
  return svg;
}
