// A tournament (/tournament/{id}): its rules, the countdown to its start or end (or its
// round), Join / Withdraw / Pause / Resume for a logged-in player, the live standings with
// each entrant's results, the games in progress to watch and the finished ones to replay,
// the podium at the end and the whole tournament's records as one download.
//
// Data: GET /api/tournaments/{id}, polled every 2 s while the tournament is not finished
// and the tab is in sight; the POST routes join, withdraw and pause answer the tournament
// as the GET does (docs/web-protocol.md). When the player's next game starts (`you.game`),
// the page keeps the seat's token as the lobby does and goes to the table, once a table.

import { $, el } from "./dom.js";
import { getJSON, postJSON, storeToken } from "./api.js";
import { accountName, profileUrl, redrawAccount, setupAccount } from "./account.js";
import { errorKey, formatMoment, formatNumber, hasKey, setupLang, t } from "./i18n.js";
import { nameElement, variantName } from "./matches.js";
import { badges, clockLine, icon, joined, kindName, lengthText, scoreText, tournamentName } from "./tournament_texts.js";

const id = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] ?? "");
const POLL_MS = 2000;
const FOLLOWED_KEY = "basra.tournament.games";
const FOLLOWED_KEPT = 50;
const COMPUTER_NAME = /^\S+ \(\w+\)$/;

let tournament = null;
let offset = 0; // the server's clock minus this browser's, in ms
let missing = false;
let failed = null;
let actionError = null; // [key, params] or { text }
let partnerError = null;
let pollTimer = null;
let fetching = false;
let busy = false;

function now() {
  return Date.now() + offset;
}

// Going to the player's games.

function followed() {
  try {
    const list = JSON.parse(localStorage.getItem(FOLLOWED_KEY));
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Takes the player to their game that just started: once a table, so that coming back
 * here during the game does not send them off again (the page offers a link instead). */
function followGame() {
  const game = tournament?.you?.game;
  if (!game?.table || !game.token) return;
  const seen = followed();
  if (seen.includes(game.table)) return;
  try {
    localStorage.setItem(FOLLOWED_KEY, JSON.stringify([...seen, game.table].slice(-FOLLOWED_KEPT)));
  } catch {
    // (storage refused: the page still goes to the game once now)
  }
  storeToken(game.table, game.seat, game.token);
  location.assign(game.url || `/t/${encodeURIComponent(game.table)}`);
}

// Drawing.

function computers() {
  return new Set((tournament?.standings ?? []).filter((s) => s.computer).map((s) => s.name));
}

/** A name as the tournament shows it: a computer's in the page's language and marked
 * (a computer is named "Layla (expert)", which no account's name can be). */
function entrantName(name, computer) {
  if (!computer && !COMPUTER_NAME.test(name)) return nameElement(name, { kind: "human" });
  return el("span", { class: "computer-name" },
    el("span", { class: "computer-mark", title: t("computer_player"), "aria-label": t("computer_player"), role: "img", text: "⚙" }), " ", nameElement(name));
}

/** An entrant's name: a team's members, a person's linked to their page, a computer's marked. */
function standingName(standing) {
  if (standing.members?.length) {
    const names = standing.members.flatMap((name, i) => [i ? t("and_joiner") : "", el("a", { href: profileUrl(name) }, el("bdi", { text: name }))]);
    return el("span", { class: "team-name" }, ...names);
  }
  if (standing.computer) return entrantName(standing.name, true);
  return el("a", { href: profileUrl(standing.name) }, el("bdi", { text: standing.name }));
}

function isMe(standing) {
  const me = accountName();
  return Boolean(me) && (standing.name === me || (standing.members ?? []).includes(me));
}

/**
 * Which arena games scored double: after two wins in a row every game does, until one
 * that is not a win (players/tournaments.py). A win is 2 points before doubling.
 */
function doubledGames(results) {
  let fire = false;
  let streak = 0;
  return results.map((points) => {
    const doubled = fire;
    const base = typeof points === "number" ? (doubled ? points / 2 : points) : 0;
    if (base >= 2) {
      streak += 1;
      if (streak >= 2) fire = true;
    } else {
      streak = 0;
      fire = false;
    }
    return doubled;
  });
}

function resultCells(results) {
  const arena = tournament.kind === "arena";
  const doubled = arena ? doubledGames(results) : [];
  return el("ol", { class: "results", "aria-label": t("tournament_results") }, ...results.map((points, i) => {
    if (points === "bye") return el("li", { class: "result bye", title: t("tournament_result_bye", { n: i + 1 }), text: t("tournament_bye_short") });
    if (points === null || points === undefined) return el("li", { class: "result missed", title: t("tournament_result_missed", { n: i + 1 }), text: "–" });
    const base = doubled[i] ? points / 2 : points;
    const kind = base >= 2 ? "win" : base <= 0 ? "loss" : "draw";
    return el("li", { class: `result ${kind}${doubled[i] ? " doubled" : ""}`, title: t(doubled[i] ? "tournament_result_doubled" : "tournament_result", { n: i + 1, points: scoreText(points) }), text: scoreText(points) });
  }));
}

function marks(standing) {
  const out = [];
  if (standing.fire) out.push(el("span", { class: "fire-mark", role: "img", title: t("tournament_on_fire"), "aria-label": t("tournament_on_fire"), "data-testid": "fire" }, icon("flame")));
  if (standing.withdrawn) out.push(el("span", { class: "state-mark withdrawn", text: t("tournament_withdrawn_mark") }));
  else if (standing.paused) out.push(el("span", { class: "state-mark paused", text: t("tournament_paused_mark") }));
  if (standing.playing) {
    out.push(el("a", { class: "playing-link", href: `/t/${encodeURIComponent(standing.playing)}`, "data-testid": "playing", "aria-label": t("tournament_watch_label", { name: standing.name }), text: t("tournament_playing") }));
  }
  return out;
}

function renderStandings() {
  const standings = tournament.standings ?? [];
  const swiss = tournament.kind === "swiss";
  $("standings-none").hidden = standings.length > 0;
  $("standings").hidden = !standings.length;
  $("standings").classList.toggle("swiss", swiss);
  const columns = ["rank", "player", "tournament_score", "games", "tournament_results",
    ...(swiss ? ["tournament_buchholz", "tournament_sb"] : [])];
  $("standings-head").replaceChildren(el("tr", {}, ...columns.map((key) =>
    el("th", { scope: "col", class: `col-${key}`, ...(hasKey(`${key}_title`) ? { title: t(`${key}_title`) } : {}), text: t(key) }))));
  $("standings-body").replaceChildren(...standings.map((standing) => {
    const row = el("tr", {
      class: [standing.computer ? "computer-row" : "", isMe(standing) ? "you-row" : "", standing.withdrawn ? "withdrawn-row" : ""].filter(Boolean).join(" "),
      "data-key": standing.key, "data-testid": "standing",
    },
    el("td", { class: "rank", text: formatNumber(standing.rank) }),
    el("td", { class: "player" }, el("span", { class: "player-line" }, standingName(standing), ...marks(standing))),
    el("td", { class: "score", "data-testid": "score", text: scoreText(standing.score) }),
    el("td", { class: "games", text: formatNumber(standing.games ?? 0) }),
    el("td", { class: "results-cell" }, resultCells(standing.results ?? [])));
    if (swiss) {
      row.append(el("td", { class: "tiebreak", text: scoreText(standing.buchholz ?? 0) }),
        el("td", { class: "tiebreak", text: scoreText(standing.sonneborn_berger ?? 0) }));
    }
    return row;
  }));
  $("fire-note").hidden = tournament.kind !== "arena" || !standings.length;
}

/** A game's entrants, each with their points once it is over: "Amira 2 – 0 Layla". */
function gameSides(game) {
  const machine = computers();
  const result = game.result;
  const best = result ? Math.max(...result) : null;
  const sides = game.players.map((name, i) => {
    const side = el("span", { class: `game-side${result && result[i] === best && result.some((p) => p !== best) ? " winner" : ""}` },
      entrantName(name, machine.has(name)));
    if (result) side.append(" ", el("strong", { class: "game-points", text: scoreText(result[i]) }));
    return side;
  });
  return el("span", { class: "game-sides" }, ...sides.flatMap((side, i) => (i ? [el("span", { class: "versus", text: result ? " – " : ` ${t("tournament_versus")} ` }), side] : [side])));
}

function gameItem(game) {
  const live = !game.result && game.table;
  const item = el("li", { class: `list-item game-item${live ? " live" : ""}`, "data-testid": live ? "live-game" : "done-game", ...(game.table ? { "data-table": game.table } : {}) });
  const main = el("span", { class: "item-main" });
  if (!game.table) {
    main.append(t("tournament_bye_game", { name: "" }), entrantName(game.players[0], computers().has(game.players[0])));
  } else {
    main.append(gameSides(game));
  }
  if (tournament.kind === "swiss" && game.round) main.append(el("span", { class: "item-sub", text: t("tournament_round_n", { n: game.round }) }));
  item.append(main);
  if (live) {
    item.append(el("span", { class: "actions" }, el("a", { class: "btn btn-small btn-primary", href: game.url || `/t/${encodeURIComponent(game.table)}`, text: t("watch_open") })));
  } else if (game.record !== null && game.record !== undefined) {
    item.append(el("span", { class: "actions" }, el("a", { class: "btn btn-small", href: `/replay/${encodeURIComponent(game.record)}`, "data-testid": "replay", text: t("replay") })));
  }
  return item;
}

function renderGames() {
  const games = tournament.games ?? [];
  const live = games.filter((game) => !game.result && game.table);
  const done = games.filter((game) => game.result || !game.table);
  $("live-none").hidden = live.length > 0;
  $("live-games").replaceChildren(...live.map(gameItem));
  $("done-none").hidden = done.length > 0;
  $("done-games").replaceChildren(...done.map(gameItem));
  const download = $("download-games");
  download.hidden = !done.some((game) => game.record !== null && game.record !== undefined);
  download.href = `/api/tournaments/${encodeURIComponent(id)}/records`;
  download.setAttribute("download", `tournament-${id}.ndjson`);
}

/** The first three, the winner on the highest step; each named by their rank in the
 * standings (two tied for first are both first). */
function renderPodium() {
  const podium = tournament.podium ?? [];
  $("podium").hidden = !podium.length;
  const machine = computers();
  const ranks = new Map((tournament.standings ?? []).map((standing) => [standing.name, standing.rank]));
  $("podium-places").replaceChildren(...podium.slice(0, 3).map((name, i) => {
    const rank = ranks.get(name) ?? i + 1;
    return el("li", { class: `podium-place place-${i + 1}`, "data-testid": `place-${i + 1}` },
      el("span", { class: "podium-medal", "aria-hidden": "true", text: formatNumber(rank) }),
      el("span", { class: "podium-rank", text: rank <= 3 ? t(`tournament_place_${rank}`) : formatNumber(rank) }),
      el("span", { class: "podium-name" }, entrantName(name, machine.has(name))),
      el("span", { class: "podium-step", "aria-hidden": "true" }));
  }));
}

/** The rules in a few sentences: the format and length, the points, byes and tie-breaks. */
function rulesText() {
  const swiss = tournament.kind === "swiss";
  const parts = [swiss
    ? t("tournament_rules_swiss", { rounds: lengthText(tournament) })
    : t("tournament_rules_arena", { minutes: lengthText(tournament) })];
  parts.push(t(tournament.players === 3 ? "tournament_points_three" : "tournament_points_two"));
  if (swiss) parts.push(t("tournament_points_bye"), t("tournament_tiebreaks"));
  else parts.push(t("tournament_points_fire"));
  if (tournament.teams) parts.push(t("tournament_rules_teams"));
  if (tournament.allow_bots) parts.push(t("tournament_bots_allowed"));
  return parts.join(" ");
}

function fact(key, ...value) {
  return el("div", { class: "fact" }, el("dt", { class: "fact-label", text: t(key) }), el("dd", { class: "fact-value" }, ...value));
}

function renderHead() {
  const name = tournamentName(tournament);
  $("t-title").replaceChildren(el("bdi", { text: name }));
  document.title = `${name} · ${t("basra")}`;
  $("t-badges").replaceChildren(...badges(tournament));
  $("t-clock").textContent = clockLine(tournament, now());
  const players = tournament.players === 2 ? t("players_2") : t("players_n", { n: tournament.players });
  $("t-facts").replaceChildren(
    fact("tournament_format", joined(kindName(tournament.kind), lengthText(tournament))),
    fact("variant", el("a", { href: `/rules/${encodeURIComponent(tournament.variant)}`, "data-testid": "variant-rules", text: variantName(tournament.variant) })),
    fact("players", tournament.teams ? t("tournament_teams_of", { players }) : players),
    fact("turn_timer", t("seconds", { n: tournament.turn_seconds ?? 30 })),
    fact("tournament_start", formatMoment(tournament.starts_at)),
    fact("tournament_entrants_label", formatNumber(tournament.entrants ?? (tournament.standings ?? []).length)),
    fact("tournament_created_by", tournament.created_by ? el("bdi", { text: tournament.created_by }) : t("tournament_by_server")));
  $("t-rules").textContent = rulesText();
}

function message(error) {
  if (!error) return "";
  return Array.isArray(error) ? t(error[0], error[1]) : error.text;
}

function renderEntry() {
  const you = tournament.you;
  const finished = tournament.status === "finished";
  $("t-guest").hidden = Boolean(you) || finished;
  const status = you?.status ?? null;
  const inIt = Boolean(you?.entered) && status !== "withdrawn";
  const join = $("t-join");
  join.hidden = !you || finished || (inIt && status !== "invited") || (status === "invited" && !you.can_join);
  join.disabled = busy || !you?.can_join;
  $("t-withdraw").hidden = !you?.can_withdraw;
  $("t-withdraw").disabled = busy;
  $("t-pause").hidden = !(you?.can_pause && status === "active");
  $("t-resume").hidden = !(status === "paused" && !finished);
  $("t-pause").disabled = busy;
  $("t-resume").disabled = busy;
  const partner = Boolean(tournament.teams) && !join.hidden;
  $("t-partner-field").hidden = !partner;
  $("t-partner-error").textContent = message(partnerError);
  $("t-partner-error").hidden = !partnerError;
  $("t-partner-field").classList.toggle("invalid", Boolean(partnerError));
  const invitedBy = you?.invited_by;
  if (partner && invitedBy && !$("t-partner").value) $("t-partner").value = invitedBy;
  let line = you && status && !finished ? t(`tournament_you_${status}`) : "";
  if (invitedBy && !finished) line = t("tournament_you_invited_by", { name: invitedBy });
  $("t-you").textContent = line;
  $("t-you").hidden = !line;
  const game = you?.game;
  $("t-your-game").hidden = !game;
  if (game) $("t-game-link").href = game.url || `/t/${encodeURIComponent(game.table)}`;
  $("t-error").textContent = message(actionError);
  $("t-error").hidden = !actionError;
  document.body.dataset.you = status ?? "";
  // Nothing to say or do (a finished tournament): no empty box.
  const parts = ["t-join", "t-pause", "t-resume", "t-withdraw", "t-you", "t-your-game", "t-partner-field", "t-guest", "t-error"];
  $("t-entry").hidden = parts.every((part) => $(part).hidden);
}

function renderMissing() {
  $("t-title").textContent = t("error.unknown_tournament");
  document.title = `${t("tournament_title")} · ${t("basra")}`;
  for (const node of document.querySelectorAll("main > section:not(#head)")) node.hidden = true;
  for (const node of ["t-badges", "t-clock", "t-facts", "t-entry"]) $(node).hidden = true;
  document.querySelector(".tournament-rules").hidden = true;
}

let drawn = null; // what the lists were last drawn from: redrawn only when it changes

/** Draws the page; the podium, standings and games only when they changed (or `all`), so
 * that a poll does not take the focus from a link in them. */
function render(all = false) {
  $("alert").textContent = failed ?? "";
  if (missing) {
    renderMissing();
    return;
  }
  if (!tournament) return;
  document.body.dataset.status = tournament.status;
  renderHead();
  renderEntry();
  const lists = JSON.stringify([tournament.podium, tournament.standings, tournament.games, accountName()]);
  if (!all && lists === drawn) return;
  drawn = lists;
  renderPodium();
  renderStandings();
  renderGames();
}

// The data.

function take(answer) {
  tournament = answer;
  if (typeof answer.now === "number") offset = answer.now - Date.now();
  render();
  followGame();
}

async function refresh() {
  clearTimeout(pollTimer);
  pollTimer = null;
  fetching = true;
  try {
    take(await getJSON(`/api/tournaments/${encodeURIComponent(id)}`));
    failed = null;
  } catch (error) {
    if (error.code === "unknown_tournament" || error.status === 404) missing = true;
    else failed = error.message;
    render();
  }
  fetching = false;
  schedule();
}

function schedule() {
  clearTimeout(pollTimer);
  pollTimer = null;
  if (missing || tournament?.status === "finished" || document.visibilityState === "hidden") return;
  pollTimer = setTimeout(refresh, POLL_MS);
}

async function act(path, body = {}) {
  busy = true;
  actionError = null;
  partnerError = null;
  render();
  try {
    take(await postJSON(`/api/tournaments/${encodeURIComponent(id)}/${path}`, body));
  } catch (error) {
    if (error.code === "bad_tournament" && error.params?.field === "partner") {
      partnerError = ["tournament_bad_partner", {}];
    } else {
      const key = errorKey(error);
      actionError = key ? [key, error.params ?? {}] : { text: error.message };
    }
  }
  busy = false;
  render();
  if (partnerError) $("t-partner").focus();
  else if (actionError) $("t-error").focus();
}

function join() {
  const partner = $("t-partner").value.trim();
  if (tournament?.teams && !partner) {
    partnerError = ["tournament_partner_needed", {}];
    render();
    $("t-partner").focus();
    return;
  }
  act("join", tournament?.teams ? { partner } : {});
}

function init() {
  setupLang(() => {
    render(true);
    redrawAccount();
  });
  setupAccount(() => {
    if (tournament) refresh();
  });
  $("t-join").addEventListener("click", join);
  $("t-withdraw").addEventListener("click", () => act("withdraw"));
  $("t-pause").addEventListener("click", () => act("pause", { paused: true }));
  $("t-resume").addEventListener("click", () => act("pause", { paused: false }));
  $("t-partner").addEventListener("input", () => {
    partnerError = null;
    if (tournament) renderEntry();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && !pollTimer && !fetching && !missing && tournament?.status !== "finished") refresh();
  });
  setInterval(() => {
    if (tournament && !missing) $("t-clock").textContent = clockLine(tournament, now());
  }, 1000);
  refresh();
}

init();
