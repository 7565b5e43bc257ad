// The lobby: Quick game, the New table form, open tables and recent matches.

import { $, el } from "./dom.js";
import { getJSON, postJSON, storeName, storeToken, storedName } from "./api.js";
import { levelName, setupLang, t } from "./i18n.js";

const TIMERS = [0, 15, 30, 60];

let variants = [];
let levels = ["random", "greedy", "expert", "master"];
let tables = [];
let records = [];

function showError(message) {
  $("alert").textContent = message;
}

function clearError() {
  $("alert").textContent = "";
}

function playerName() {
  const name = $("player-name").value.trim();
  storeName(name);
  return name;
}

function enter(answer) {
  if (answer.token) storeToken(answer.code, answer.seat, answer.token);
  location.assign(answer.url || `/t/${answer.code}`);
}

async function quickGame() {
  clearError();
  const button = $("quick");
  button.disabled = true;
  try {
    const name = playerName();
    enter(await postJSON("/api/quick", name ? { name } : {}));
  } catch (error) {
    showError(error.message);
    button.disabled = false;
  }
}

// The New table form.

function currentVariant() {
  return variants.find((v) => v.name === $("variant").value) ?? variants[0];
}

function fillSelect(select, items, selected) {
  select.replaceChildren(...items.map(([value, label]) => el("option", { value, text: label })));
  if (selected !== undefined && items.some(([value]) => String(value) === String(selected))) {
    select.value = String(selected);
  }
}

function renderVariant() {
  const variant = currentVariant();
  if (!variant) return;
  $("variant-description").textContent = variant.description ?? "";
  const previous = $("players").value;
  fillSelect($("players"), variant.players.map((n) => [n, String(n)]), previous || variant.players[0]);
  $("basra-points").value = variant.rules?.basra_points ?? 10;
  $("target").value = variant.rules?.target ?? 101;
  renderPlayers();
}

function renderPlayers() {
  const variant = currentVariant();
  const players = Number($("players").value);
  const canPartner = players === 4;
  $("partnership-field").hidden = !canPartner;
  $("partnership").checked = canPartner && (variant.partnership_players ?? []).includes(players);
  renderSeats();
}

function renderSeats() {
  const players = Number($("players").value);
  const rows = $("seat-rows");
  const old = [...rows.children].map((row) => ({
    kind: row.querySelector(".seat-kind").value,
    level: row.querySelector(".seat-level").value,
  }));
  rows.replaceChildren();
  for (let seat = 0; seat < players; seat++) {
    const kind = el("select", { id: `seat-${seat}-kind`, class: "seat-kind" });
    fillSelect(kind, [["human", t("human")], ["bot", t("computer")]], old[seat]?.kind ?? (seat === 0 ? "human" : "bot"));
    const level = el("select", { id: `seat-${seat}-level`, class: "seat-level", "aria-label": `${t("seat_n", { n: seat + 1 })} ${t("level")}` });
    fillSelect(level, levels.map((l) => [l, levelName(l)]), old[seat]?.level ?? "expert");
    const sync = () => {
      level.disabled = kind.value !== "bot";
    };
    kind.addEventListener("change", sync);
    sync();
    rows.append(el("li", { class: "seat-row" },
      el("label", { for: kind.id, text: t("seat_n", { n: seat + 1 }) }),
      kind,
      level));
  }
}

function parseMoreRules(text) {
  const rules = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const at = line.indexOf("=");
    if (at < 1) throw new Error(`bad rule line ${JSON.stringify(line)}: expected name=value`);
    rules[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return rules;
}

function tableRequest() {
  const variant = currentVariant();
  const players = Number($("players").value);
  const rules = parseMoreRules($("more-rules").value);
  const basraPoints = Number($("basra-points").value);
  const target = Number($("target").value);
  if ($("basra-points").value !== "" && basraPoints !== variant.rules?.basra_points) rules.basra_points = basraPoints;
  if ($("target").value !== "" && target !== variant.rules?.target) rules.target = target;
  if (players === 4) rules.partnership = $("partnership").checked;
  const seats = [...$("seat-rows").children].map((row) => {
    const kind = row.querySelector(".seat-kind").value;
    return kind === "bot" ? { kind, level: row.querySelector(".seat-level").value } : { kind };
  });
  const body = {
    variant: variant.name,
    players,
    rules,
    seats,
    turn_seconds: Number($("turn-seconds").value),
    takeover_level: $("takeover-level").value,
  };
  const name = playerName();
  if (name) body.name = name;
  return body;
}

async function createTable(event) {
  event.preventDefault();
  clearError();
  const submit = event.submitter ?? $("new-table").querySelector("[type=submit]");
  let body;
  try {
    body = tableRequest();
  } catch (error) {
    showError(error.message);
    return;
  }
  submit.disabled = true;
  try {
    const answer = await postJSON("/api/tables", body);
    const link = `${location.origin}${answer.url || `/t/${answer.code}`}`;
    $("created").replaceChildren(`${t("share_link")}: `, el("a", { href: link, text: link }));
    enter(answer);
  } catch (error) {
    showError(error.message);
    submit.disabled = false;
  }
}

// Lists.

function seatLabel(seat) {
  if (seat.kind === "bot") return t("computer_level", { level: levelName(seat.level ?? seat.name) });
  return seat.taken ? seat.name || "?" : t("free_seat");
}

function renderTables() {
  const list = $("tables");
  if (!tables.length) {
    list.replaceChildren(el("li", { class: "empty", text: t("no_tables") }));
    return;
  }
  list.replaceChildren(...tables.map((table) => {
    const free = (table.seats ?? []).some((s) => s.kind === "human" && !s.taken);
    const actions = el("span", { class: "actions" });
    if (free) actions.append(el("a", { class: "btn btn-small btn-primary", href: `/t/${table.code}`, text: t("join") }));
    actions.append(el("a", { class: "btn btn-small", href: `/t/${table.code}`, text: t("watch") }));
    return el("li", { class: "list-item" },
      el("span", { class: "item-main" },
        el("strong", { text: table.code }),
        ` · ${table.variant} · ${table.players} · ${t(`status_${table.status}`)}`,
        el("span", { class: "item-sub" }, ...(table.seats ?? []).flatMap((seat, i) =>
          [i ? " · " : "", el("bdi", { text: seatLabel(seat) })]))),
      actions);
  }));
}

function renderRecords() {
  const list = $("records");
  if (!records.length) {
    list.replaceChildren(el("li", { class: "empty", text: t("no_matches") }));
    return;
  }
  list.replaceChildren(...records.map((record) => {
    const names = record.players ?? [];
    const totals = record.totals ?? [];
    const sides = totals.length || names.length;
    const sideNames = (side) => names.filter((_, seat) => seat % sides === side).join(" & ");
    const score = el("strong", { class: "record-score" });
    totals.forEach((total, side) => {
      if (side) score.append(" – ");
      score.append(el("bdi", { text: `${sideNames(side)} ${total}` }));
    });
    const sub = el("span", { class: "item-sub" });
    if (record.winner !== null && record.winner !== undefined) {
      sub.append(t("winner_is", { name: "" }), el("bdi", { text: sideNames(record.winner) }));
    }
    if (record.finished_at) {
      const when = new Date(record.finished_at).toLocaleString(document.documentElement.lang);
      sub.append(sub.childNodes.length ? " · " : "", el("bdi", { text: when }));
    }
    return el("li", { class: "list-item" },
      el("span", { class: "item-main" }, score, ` · ${record.variant ?? ""}`, sub),
      el("span", { class: "actions" },
        el("a", { class: "btn btn-small", href: `/api/records/${record.id}?download=1`, download: `basra-${record.id}.json`, text: t("download") }),
        el("a", { class: "btn btn-small btn-primary", href: `/replay/${record.id}`, text: t("replay") })));
  }));
}

async function loadLists() {
  try {
    [tables, records] = await Promise.all([getJSON("/api/tables"), getJSON("/api/records")]);
  } catch (error) {
    showError(error.message);
  }
  renderTables();
  renderRecords();
}

function redraw() {
  fillSelect($("turn-seconds"), TIMERS.map((n) => [n, n ? t("seconds", { n }) : t("no_timer")]), $("turn-seconds").value || 0);
  fillSelect($("takeover-level"), levels.map((l) => [l, levelName(l)]), $("takeover-level").value || "expert");
  const players = $("players").value;
  renderSeats();
  $("players").value = players;
  renderTables();
  renderRecords();
}

async function init() {
  setupLang(redraw);
  $("player-name").value = storedName();
  $("player-name").addEventListener("change", playerName);
  $("quick").addEventListener("click", quickGame);
  $("new-table").addEventListener("submit", createTable);
  $("variant").addEventListener("change", renderVariant);
  $("players").addEventListener("change", renderPlayers);
  redraw();
  try {
    const [variantList, options] = await Promise.all([getJSON("/api/variants"), getJSON("/api/options")]);
    variants = variantList;
    if (options?.levels?.length) levels = options.levels;
    fillSelect($("variant"), variants.map((v) => [v.name, v.name]), "egyptian");
    fillSelect($("takeover-level"), levels.map((l) => [l, levelName(l)]), "expert");
    renderVariant();
  } catch (error) {
    showError(error.message);
  }
  await loadLists();
  setInterval(loadLists, 10000);
}

init();
