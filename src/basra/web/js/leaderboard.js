// The leaderboard (/leaderboard): the top players of every pool (a variant with a number
// of players), the computer levels among them at their fixed ratings, marked as such; then
// the bot accounts' own list, each marked BOT.
// Data: GET /api/leaderboard, GET /api/leaderboard?bots=1.

import { $, el } from "./dom.js";
import { getJSON } from "./api.js";
import { profileUrl, redrawAccount, setupAccount } from "./account.js";
import { levelName, setupLang, t } from "./i18n.js";
import { poolName, ratingText } from "./matches.js";

const COMPUTER = /^Computer \((\w+)\)$/;

let pools = null;
let botPools = null; // the bot accounts' own list (GET /api/leaderboard?bots=1)

/** A leaderboard entry's name: a person's links to their page; a computer level is named. */
function playerCell(player) {
  if (player.computer) {
    const level = COMPUTER.exec(player.name ?? "");
    const cell = el("td", { class: "player computer" }, el("span", { class: "computer-mark", "aria-hidden": "true", text: "⚙" }), " ");
    if (level) cell.append(t("computer_level", { level: levelName(level[1]) }));
    else cell.append(el("bdi", { text: player.name }), ` (${t("computer_player")})`);
    return cell;
  }
  const link = el("a", { href: profileUrl(player.name) }, el("bdi", { text: player.name }));
  if (!player.bot) return el("td", { class: "player" }, link);
  return el("td", { class: "player" }, link, " ", el("span", { class: "bot-mark", text: t("bot_mark") }));
}

function table(pool, players, bots = false) {
  const head = el("tr", {}, ...["rank", "player", "rating", "games"].map((key) => el("th", { scope: "col", text: t(key) })));
  const rows = players.map((player, i) => el("tr", { class: player.computer ? "computer-row" : "" },
    el("td", { class: "rank", text: String(i + 1) }),
    playerCell(player),
    el("td", { class: "rating", text: ratingText(player.rating, player.provisional) }),
    el("td", { class: "games", text: player.computer ? "–" : String(player.games ?? 0) })));
  const id = `${bots ? "bots" : "pool"}-${pool}`;
  return el("section", { class: "panel pool", "data-pool": pool, "data-bots": String(bots), "aria-labelledby": id },
    el("h2", { id, text: poolName(pool) }),
    el("table", { class: "board" }, el("thead", {}, head), el("tbody", {}, ...rows)));
}

function render() {
  if (!pools) return;
  const entries = Object.entries(pools).filter(([, players]) => players.length);
  $("pools").replaceChildren(...(entries.length ? entries.map(([pool, players]) => table(pool, players))
    : [el("p", { class: "panel empty", text: t("no_players_yet") })]));
  const botEntries = Object.entries(botPools ?? {}).filter(([, players]) => players.length);
  $("bot-section").hidden = !botEntries.length;
  $("bot-pools").replaceChildren(...botEntries.map(([pool, players]) => table(pool, players, true)));
}

async function init() {
  setupLang(() => {
    render();
    redrawAccount();
  });
  setupAccount();
  try {
    pools = (await getJSON("/api/leaderboard")).pools ?? {};
    botPools = (await getJSON("/api/leaderboard?bots=1")).pools ?? {};
  } catch (error) {
    $("alert").textContent = error.message;
  }
  render();
  document.body.dataset.loaded = "true"; // (tests wait for it: a logged-in page's notifications keep the network busy)
}

init();
