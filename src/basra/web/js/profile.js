// A player's page (/u/{name}): their rating in every pool they played (provisional ones
// marked), a chart of each rating over time, games played, win rate, basras per deal and
// their recent matches, each linking to its replay. Data: GET /api/users/{name}.
// Another player's page, logged in: Follow / Unfollow (POST /api/follow|unfollow/{name};
// GET /api/follow/{name} says whether and how many follow) and Challenge (the challenge
// form), besides Report and Block; a block hides Follow and Challenge.

import { $, el } from "./dom.js";
import { getJSON, postJSON } from "./api.js";
import { redrawAccount, setupAccount } from "./account.js";
import { openChallengeForm, redrawChallengeForm } from "./challenge_form.js";
import { formatNumber, lang, setupLang, t } from "./i18n.js";
import { nameElement, poolName, ratingText, variantName } from "./matches.js";
import { block, blockedList, openReport, unblock, when } from "./report.js";

const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#1f6e44", "#c0262d", "#2b6cb0", "#b7791f", "#6b46c1", "#2c7a7b"];
const name = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] ?? "");

let user = null;
let missing = false;
let me = null; // the logged-in name, or null
let blocked = []; // [{ name, since }] the logged-in player blocked
let follow = null; // { following, followers } from GET /api/follow/{name}

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  node.append(...children);
  return node;
}

/** `node` with its pool's colour (set through the CSSOM: the pages allow no inline styles). */
function colored(node, color) {
  node.style.setProperty("--pool-color", color);
  return node;
}

function poolColor(pool) {
  const index = Object.keys(user.ratings ?? {}).indexOf(pool);
  return COLORS[(index < 0 ? Object.keys(user.history ?? {}).indexOf(pool) : index) % COLORS.length];
}

function number(value, digits = 0) {
  return formatNumber(value, { maximumFractionDigits: digits, minimumFractionDigits: digits, useGrouping: true });
}

function renderStats() {
  const stats = user.stats ?? {};
  const games = stats.games ?? 0;
  const items = [
    ["games_played", number(games)],
    ["win_rate", games ? `${number((100 * (stats.wins ?? 0)) / games)}%` : "–"],
    ["basras_per_deal", stats.basras_per_deal === undefined || stats.basras_per_deal === null ? "–" : number(stats.basras_per_deal, 2)],
  ];
  $("player-stats").replaceChildren(...items.map(([key, value]) =>
    el("div", { class: "stat-box", "data-stat": key }, el("dt", { text: t(key) }), el("dd", { text: value }))));
}

function renderRatings() {
  const pools = Object.entries(user.ratings ?? {});
  $("ratings").replaceChildren(...(pools.length ? pools.map(([pool, rating]) =>
    colored(el("li", { class: `rating-card${rating.provisional ? " provisional" : ""}`, "data-pool": pool },
      el("span", { class: "pool-name", text: poolName(pool) }),
      el("strong", { class: "pool-rating", text: ratingText(rating.rating, rating.provisional) }),
      el("span", { class: "pool-games", text: `${t("games")}: ${number(rating.games ?? 0)}${rating.provisional ? ` · ${t("provisional")}` : ""}` })), poolColor(pool)))
    : [el("li", { class: "empty", text: t("no_rated_games") })]));
}

/** Every pool's rating over time as lines on one chart (time left to right). */
function chart(history) {
  const series = Object.entries(history).filter(([, points]) => points.length);
  if (!series.length) return el("p", { class: "hint", text: t("no_rated_games") });
  const all = series.flatMap(([, points]) => points);
  const times = all.map(([time]) => time);
  const ratings = all.map(([, rating]) => rating);
  let [t0, t1] = [Math.min(...times), Math.max(...times)];
  let [r0, r1] = [Math.min(...ratings), Math.max(...ratings)];
  if (t1 === t0) t1 = t0 + 1;
  const pad = Math.max(20, (r1 - r0) * 0.1);
  r0 = Math.floor((r0 - pad) / 10) * 10;
  r1 = Math.ceil((r1 + pad) / 10) * 10;
  const [width, height, left, right, top, bottom] = [640, 240, 48, 12, 12, 28];
  const x = (time) => left + ((time - t0) / (t1 - t0)) * (width - left - right);
  const y = (rating) => top + ((r1 - rating) / (r1 - r0)) * (height - top - bottom);
  const graph = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "history-chart", role: "img", "aria-label": t("rating_history"), dir: "ltr" });
  for (const level of [r0, Math.round((r0 + r1) / 2), r1]) {
    graph.append(svg("line", { x1: left, x2: width - right, y1: y(level), y2: y(level), class: "grid" }),
      svg("text", { x: left - 6, y: y(level) + 4, "text-anchor": "end", class: "axis" }, number(level)));
  }
  const day = (time) => new Date(time * 1000).toLocaleDateString(lang(), { month: "short", day: "numeric" });
  graph.append(svg("text", { x: left, y: height - 8, class: "axis" }, day(t0)),
    svg("text", { x: width - right, y: height - 8, "text-anchor": "end", class: "axis" }, day(t1)));
  series.forEach(([pool, points]) => {
    const color = poolColor(pool);
    const path = points.map(([time, rating]) => `${x(time).toFixed(1)},${y(rating).toFixed(1)}`).join(" ");
    graph.append(svg("polyline", { points: path, fill: "none", stroke: color, "stroke-width": 2.5, "data-pool": pool }));
    for (const [time, rating] of points) {
      graph.append(svg("circle", { cx: x(time), cy: y(rating), r: 3.2, fill: color },
        svg("title", {}, `${poolName(pool)}: ${number(rating)}`)));
    }
  });
  const legend = el("ul", { class: "legend" }, ...series.map(([pool]) =>
    colored(el("li", {}, el("span", { class: "swatch", "aria-hidden": "true" }), poolName(pool)), poolColor(pool))));
  return el("div", {}, graph, legend);
}

function renderMatches() {
  const matches = user.matches ?? [];
  $("matches").replaceChildren(...(matches.length ? matches.map((match) => {
    const names = match.names ?? [];
    const totals = match.totals ?? [];
    const players = [];
    names.forEach((player, i) => {
      if (i) players.push(" · ");
      players.push(nameElement(player));
      if (totals[i] !== undefined && totals.length === names.length) players.push(" ", el("strong", { text: String(totals[i]) }));
    });
    const sub = [variantName(match.variant ?? ""), match.players === 2 ? t("players_2") : t("players_n", { n: match.players }),
      t(match.rated ? "rated" : "casual")];
    if (match.finished_at) sub.push(new Date(match.finished_at * 1000).toLocaleString(lang()));
    const change = match.change;
    const item = el("li", { class: `list-item match-item${match.won ? " won" : " lost"}` },
      el("span", { class: `outcome ${match.won ? "won" : "lost"}`, text: t(match.won ? "match_won" : "match_lost") }),
      el("span", { class: "item-main" }, el("span", { class: "match-players" }, ...players),
        el("span", { class: "item-sub", text: sub.join(" · ") })));
    if (match.rated && change !== null && change !== undefined) {
      item.append(el("span", { class: `rating-delta${change > 0 ? " up" : change < 0 ? " down" : ""}`,
        text: `${change > 0 ? "+" : change < 0 ? "−" : "±"}${Math.abs(change)}` }));
    }
    if (match.record !== null && match.record !== undefined) {
      item.append(el("a", { class: "btn btn-small btn-primary", href: `/replay/${encodeURIComponent(match.record)}`, text: t("replay") }));
    }
    return item;
  }) : [el("li", { class: "empty", text: t("no_matches_yet") })]));
}

const same = (a, b) => Boolean(a && b) && a.toLocaleLowerCase() === b.toLocaleLowerCase();

/** Report and block buttons on another player's page; your blocks on your own. */
function renderActions() {
  const box = $("player-actions");
  const other = user && me && !same(me, user.name);
  box.hidden = !user || same(me, user.name);
  if (!box.hidden) {
    const isBlocked = blocked.some((b) => same(b.name, user.name));
    const buttons = [];
    if (other && !isBlocked) {
      const following = Boolean(follow?.following);
      buttons.push(el("button", { id: "follow-player", type: "button", class: `btn btn-small${following ? "" : " btn-primary"}`, "aria-pressed": String(following), text: t(following ? "friends_unfollow" : "friends_follow") }),
        el("button", { id: "challenge-player", type: "button", class: "btn btn-small btn-primary", text: t("challenge_button") }));
    }
    buttons.push(el("button", { id: "report-player", type: "button", class: "btn btn-small", text: t("mod_report") }));
    if (other) buttons.push(el("button", { id: "block-player", type: "button", class: "btn btn-small", "aria-pressed": String(isBlocked), text: t(isBlocked ? "mod_unblock" : "mod_block") }));
    box.replaceChildren(...buttons);
    $("follow-player")?.addEventListener("click", () => toggleFollow(user.name, !follow?.following));
    $("challenge-player")?.addEventListener("click", () => openChallengeForm(user.name));
    $("report-player").addEventListener("click", () => openReport({ name: user.name }));
    $("block-player")?.addEventListener("click", () => toggleBlock(user.name, !isBlocked));
  }
  const followers = $("player-followers");
  followers.hidden = !follow;
  if (follow) followers.textContent = t("friends_followers_n", { n: follow.followers });
  const own = Boolean(user) && same(me, user.name);
  $("blocks-panel").hidden = !own;
  if (own) {
    $("blocks").replaceChildren(...(blocked.length ? blocked.map((b) => el("li", { class: "list-item" },
      el("span", { class: "item-main" }, el("bdi", { text: b.name }), el("span", { class: "item-sub", text: when(b.since) })),
      el("button", { type: "button", class: "btn btn-small", "data-unblock": b.name, text: t("mod_unblock") })))
      : [el("li", { class: "empty", text: t("mod_no_blocks") })]));
  }
}

async function toggleBlock(who, on) {
  try {
    blocked = on ? await block(who) : await unblock(who);
    $("player-action-status").textContent = t(on ? "mod_blocked_name" : "mod_unblocked_name", { name: who });
  } catch (error) {
    $("player-action-status").textContent = error.message;
  }
  await loadFollow(); // a block ends the follows both ways
  renderActions();
}

async function toggleFollow(who, on) {
  try {
    follow = await postJSON(`/api/${on ? "follow" : "unfollow"}/${encodeURIComponent(who)}`);
    $("player-action-status").textContent = t(on ? "friends_followed_name" : "friends_unfollowed_name", { name: who });
  } catch (error) {
    $("player-action-status").textContent = error.message;
  }
  renderActions();
  $("follow-player")?.focus();
}

async function loadFollow() {
  try {
    follow = await getJSON(`/api/follow/${encodeURIComponent(name)}`);
  } catch {
    follow = null;
  }
}

async function loggedIn(account) {
  me = account;
  blocked = [];
  if (me) {
    try {
      blocked = await blockedList();
    } catch {
      blocked = [];
    }
  }
  await loadFollow();
  renderActions();
}

function render() {
  renderActions();
  $("player-name").textContent = user?.name ?? name;
  $("player-bot").hidden = !user?.bot;
  document.title = `${user?.name ?? name} · ${t("basra")}`;
  if (missing) {
    $("alert").textContent = t("no_such_player", { name });
    for (const section of document.querySelectorAll("main > .panel:not(.profile-head)")) section.hidden = true;
    return;
  }
  if (!user) return;
  renderStats();
  renderRatings();
  $("history").replaceChildren(chart(user.history ?? {}));
  renderMatches();
}

async function init() {
  setupLang(() => {
    render();
    redrawAccount();
    redrawChallengeForm();
  });
  setupAccount(loggedIn);
  $("blocks").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-unblock]");
    if (button) toggleBlock(button.dataset.unblock, false);
  });
  render();
  try {
    user = await getJSON(`/api/users/${encodeURIComponent(name)}`);
  } catch (error) {
    if (error.status === 404) missing = true;
    else $("alert").textContent = error.message;
  }
  render();
  document.body.dataset.loaded = "true"; // (tests wait for it: a logged-in page's notifications keep the network busy)
}

init();
