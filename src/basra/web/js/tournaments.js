// Tournaments (/tournaments): the upcoming, running and finished tournaments (GET
// /api/tournaments, refreshed every few seconds, the countdowns every second), each linking
// to its page, and for a logged-in player the New tournament form (POST /api/tournaments:
// its format, variant, players, rated or casual, length, start, turn timer, computer
// players and whether bot accounts may join). A refused field is shown beside its control
// (the server names it in params.field), which takes the focus; on 201 the page goes to
// the new tournament's page.

import { $, el } from "./dom.js";
import { getJSON, postJSON } from "./api.js";
import { redrawAccount, setupAccount } from "./account.js";
import { errorKey, formatNumber, hasKey, levelName, setupLang, t } from "./i18n.js";
import { nameElement, variantName } from "./matches.js";
import { badges, clockLine, gameText, icon, joined, lengthText, tournamentName } from "./tournament_texts.js";

const SECTIONS = ["upcoming", "running", "finished"];
const REFRESH_MS = 5000;
const TIMERS = [15, 30, 60, 120];
const DEFAULT_TIMER = 30;
const MOST_COMPUTERS = 16;
/** The form's number fields: their control and bounds (as the server checks them). */
const NUMBERS = {
  minutes: ["t-minutes", 5, 720],
  rounds: ["t-rounds", 1, 20],
  starts_in: ["t-starts-in", 0, 7 * 24 * 60],
};
/** The control that shows a refusal of each field the server may name. */
const CONTROLS = {
  name: "t-name", kind: "t-kind", variant: "t-variant", players: "t-players", minutes: "t-minutes",
  rounds: "t-rounds", starts_in: "t-starts-in", turn_seconds: "t-turn-seconds", computers: "t-computers",
};

let listing = null;
let failed = null;
let variants = [];
let levels = ["random", "greedy", "neural", "expert", "master"];
const errors = new Map(); // field -> [key, params]
let formError = null; // [key, params] or { text }

// The lists.

function row(summary) {
  const facts = el("span", { class: "item-sub tournament-facts" },
    ...badges(summary), " ", joined(gameText(summary), lengthText(summary),
      t("tournament_entrants", { n: summary.entrants ?? 0 })));
  const when = el("span", { class: "tournament-when", "data-testid": "clock", "data-clock": summary.id, text: clockLine(summary, Date.now()) });
  const main = el("span", { class: "item-main" },
    el("a", { class: "tournament-name", href: `/tournament/${encodeURIComponent(summary.id)}` }, el("bdi", { text: tournamentName(summary) })),
    facts);
  const item = el("li", { class: `list-item tournament-item status-${summary.status}`, "data-id": summary.id, "data-testid": "tournament" }, main, when);
  if (summary.status === "finished" && summary.winner) {
    item.append(el("span", { class: "tournament-winner", "data-testid": "winner" },
      icon("trophy"), " ", t("winner_is", { name: "" }), nameElement(summary.winner)));
  }
  return item;
}

function renderLists() {
  $("alert").textContent = failed ?? "";
  if (!listing) return;
  const focused = document.activeElement?.closest?.(".tournament-item")?.dataset.id;
  for (const section of SECTIONS) {
    const items = listing[section] ?? [];
    $(`${section}-none`).hidden = items.length > 0;
    $(`${section}-list`).replaceChildren(...items.map(row));
  }
  if (focused) document.querySelector(`.tournament-item[data-id="${CSS.escape(focused)}"] a`)?.focus();
}

/** The countdowns, every second, between two refreshes of the lists. */
function tick() {
  if (!listing) return;
  const now = Date.now();
  for (const section of SECTIONS) {
    for (const summary of listing[section] ?? []) {
      const node = document.querySelector(`[data-clock="${CSS.escape(summary.id)}"]`);
      if (node) node.textContent = clockLine(summary, now);
    }
  }
}

async function refresh() {
  try {
    listing = await getJSON("/api/tournaments");
    failed = null;
  } catch (error) {
    failed = error.message;
  }
  renderLists();
}

// The New tournament form.

function currentVariant() {
  return variants.find((v) => v.name === $("t-variant").value) ?? variants[0];
}

function fill(select, items, chosen) {
  select.replaceChildren(...items.map(([value, text]) => el("option", { value: String(value), text })));
  if (items.some(([value]) => String(value) === String(chosen))) select.value = String(chosen);
}

function renderChoices() {
  fill($("t-variant"), variants.map((v) => [v.name, variantName(v.name)]), $("t-variant").value || "egyptian");
  const variant = currentVariant();
  fill($("t-players"), (variant?.players ?? [2]).map((n) => [n, formatNumber(n)]), $("t-players").value || variant?.players?.[0]);
  fill($("t-turn-seconds"), TIMERS.map((n) => [n, t("seconds", { n })]), $("t-turn-seconds").value || DEFAULT_TIMER);
  renderKind();
}

/** The length field of the chosen format (minutes of an arena, rounds of a Swiss), and the
 * note on partnerships when the variant's four play as two teams. */
function renderKind() {
  const swiss = $("t-kind").value === "swiss";
  document.querySelector('[data-field="minutes"]').hidden = swiss;
  document.querySelector('[data-field="rounds"]').hidden = !swiss;
  $("t-kind-hint").textContent = t(swiss ? "tournament_swiss_hint" : "tournament_arena_hint");
  const variant = currentVariant();
  const teams = (variant?.partnership_players ?? []).includes(Number($("t-players").value));
  $("t-players-hint").hidden = !teams;
}

function renderComputers() {
  const old = new Map([...document.querySelectorAll("#t-computers input")].map((input) => [input.dataset.level, input.value]));
  $("t-computers").replaceChildren(...levels.map((level) => {
    const id = `t-computers-${level}`;
    const input = el("input", { id, type: "number", inputmode: "numeric", min: "0", max: String(MOST_COMPUTERS), step: "1", value: old.get(level) ?? "0", "data-level": level });
    input.addEventListener("input", () => clearError("computers"));
    return el("div", { class: "field computer-count" }, el("label", { for: id, text: levelName(level) }), input);
  }));
}

/** A number field's value, or an error beside it. */
function readNumber(field) {
  const [id, min, max] = NUMBERS[field];
  const text = $(id).value.trim();
  if ($(id).validity?.badInput || !/^\d+$/.test(text)) return { error: ["err_whole", {}] };
  const value = Number(text);
  if (value < min || value > max) return { error: ["err_range", { min, max }] };
  return { value };
}

/** The request's body, or the problems found before sending it: { body } or { problems }. */
function tournamentRequest() {
  const kind = $("t-kind").value;
  const problems = [];
  const numbers = {};
  for (const field of [kind === "swiss" ? "rounds" : "minutes", "starts_in"]) {
    const read = readNumber(field);
    if (read.error) problems.push([field, read.error]);
    else numbers[field] = read.value;
  }
  const computers = [];
  for (const input of document.querySelectorAll("#t-computers input")) {
    const count = Number(input.value.trim() || "0");
    if (!Number.isInteger(count) || count < 0) {
      problems.push(["computers", ["err_whole", {}]]);
      break;
    }
    for (let i = 0; i < count; i++) computers.push(input.dataset.level);
  }
  if (computers.length > MOST_COMPUTERS) problems.push(["computers", ["tournament_bad_computers", { most: MOST_COMPUTERS }]]);
  if (problems.length) return { problems };
  const body = {
    kind,
    variant: $("t-variant").value,
    players: Number($("t-players").value),
    rated: $("t-rated").checked,
    starts_in: numbers.starts_in * 60,
    turn_seconds: Number($("t-turn-seconds").value),
    computers,
    allow_bots: $("t-allow-bots").checked,
  };
  if (kind === "swiss") body.rounds = numbers.rounds;
  else body.minutes = numbers.minutes;
  const name = $("t-name").value.trim();
  if (name) body.name = name;
  return { body };
}

function message(error) {
  if (!error) return "";
  return Array.isArray(error) ? t(error[0], error[1]) : error.text;
}

function renderErrors() {
  for (const [field, id] of Object.entries(CONTROLS)) {
    const error = errors.get(field);
    const box = $(`${id}-error`);
    box.textContent = message(error);
    box.hidden = !error;
    box.closest("[data-field]")?.classList.toggle("invalid", Boolean(error));
    const control = $(id);
    if (control.matches("input, select")) {
      if (error) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    }
  }
  $("t-form-error").textContent = message(formError);
  $("t-form-error").hidden = !formError;
}

function clearError(field) {
  if (errors.delete(field)) renderErrors();
}

function showErrors(problems) {
  for (const [field, error] of problems) errors.set(field, error);
  renderErrors();
  const [first] = problems[0];
  const control = $(CONTROLS[first]);
  const focused = control.matches("input, select") ? control : control.querySelector("input");
  focused?.focus();
  focused?.scrollIntoView({ block: "center" });
}

/** A refusal of the server: beside the field it names, else under the form. */
function showRefusal(error) {
  const field = error.params?.field;
  if (error.code === "bad_tournament" && field in CONTROLS) {
    const own = `tournament_bad_${field}`;
    showErrors([[field, hasKey(own) ? [own, { most: MOST_COMPUTERS }] : ["error.bad_tournament", error.params]]]);
    return;
  }
  const key = errorKey(error);
  formError = key ? [key, error.params ?? {}] : { text: error.message };
  renderErrors();
  $("t-form-error").focus();
}

async function create(event) {
  event.preventDefault();
  errors.clear();
  formError = null;
  renderErrors();
  const request = tournamentRequest();
  if (request.problems) {
    showErrors(request.problems);
    return;
  }
  const button = $("t-create");
  button.disabled = true;
  try {
    const created = await postJSON("/api/tournaments", request.body);
    location.assign(`/tournament/${encodeURIComponent(created.id)}`);
  } catch (error) {
    button.disabled = false;
    showRefusal(error);
  }
}

/** The form for a logged-in player; a guest is asked to log in. */
function showForm(name) {
  $("tournament-form").hidden = !name;
  $("new-tournament-guest").hidden = Boolean(name);
}

function redraw() {
  renderLists();
  renderChoices();
  renderComputers();
  renderErrors();
  redrawAccount();
}

async function init() {
  setupLang(redraw);
  setupAccount(showForm);
  for (const field of Object.keys(NUMBERS)) $(NUMBERS[field][0]).addEventListener("input", () => clearError(field));
  $("t-name").addEventListener("input", () => clearError("name"));
  $("t-kind").addEventListener("change", () => {
    clearError("kind");
    renderKind();
  });
  $("t-variant").addEventListener("change", () => {
    clearError("variant");
    renderChoices();
  });
  $("t-players").addEventListener("change", () => {
    clearError("players");
    renderKind();
  });
  $("tournament-form").addEventListener("submit", create);
  refresh();
  setInterval(refresh, REFRESH_MS);
  setInterval(tick, 1000);
  renderChoices();
  renderComputers();
  try {
    const [variantList, options] = await Promise.all([getJSON("/api/variants"), getJSON("/api/options")]);
    variants = variantList;
    if (options?.levels?.length) levels = options.levels;
    renderChoices();
    renderComputers();
  } catch (error) {
    formError = { text: error.message };
    renderErrors();
  }
}

init();
