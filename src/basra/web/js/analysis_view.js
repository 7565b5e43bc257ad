// The replay page's analysis: ask the server to analyse a stored match, then show the
// evaluation chart, each move's label, the better move and each player's summary.

import { $, el } from "./dom.js";
import { ApiError, getJSON, postJSON } from "./api.js";
import { sentence, t } from "./i18n.js";
import { moveWords } from "./moves.js";

const SVG = "http://www.w3.org/2000/svg";
const POLL_MS = 1500;

let analysis = null;
let recordId = "";
let hooks = null; // { go(index), frames(), playerName(seat), family() }
let byKey = new Map(); // "deal:play" -> decision
let frameOf = new Map(); // "deal:play" -> frame index

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

function indexFrames() {
  frameOf = new Map();
  const counts = new Map();
  hooks.frames().forEach((frame, i) => {
    if (!frame.play) return;
    const n = (counts.get(frame.deal) ?? 0) + 1;
    counts.set(frame.deal, n);
    frameOf.set(`${frame.deal}:${n}`, i);
  });
}

/** The decision analysed at a frame (the play that led to it), or null. */
function decisionAt(index) {
  for (const [key, i] of frameOf) if (i === index) return byKey.get(key) ?? null;
  return null;
}

function familyWord(key) {
  const own = `${key}_${hooks.family()}`;
  return hooks.family() !== "basra" && t(own) !== own ? own : key;
}

function factNode(fact) {
  if (fact.kind === "missed_basra") return sentence(familyWord("note_missed_basra"), { move: moveWords(fact.move) });
  if (fact.kind === "left_capture") {
    return sentence("note_left_capture", { move: moveWords(fact.move), cards: fact.cards, points: fact.points });
  }
  return document.createTextNode(t(familyWord("note_basra_risk"), { chance: Math.round(100 * fact.chance) }));
}

function renderChart(current) {
  const chart = $("eval-chart");
  const width = 600;
  const height = 160;
  const decisions = analysis.decisions;
  const values = decisions.map((d) => (d.eval ?? d.value));
  const top = Math.max(10, ...values.map((v) => Math.abs(v)));
  const x = (i) => 10 + (i * (width - 20)) / Math.max(1, decisions.length - 1);
  const y = (v) => height / 2 - (v / top) * (height / 2 - 10);
  chart.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const nodes = [svg("line", { class: "axis", x1: 0, x2: width, y1: height / 2, y2: height / 2 })];
  const twoSides = decisions.every((d) => d.eval !== null && d.eval !== undefined);
  const series = twoSides ? [decisions.map((d, i) => [i, d.eval])]
    : [...new Set(decisions.map((d) => d.seat))].map((seat) =>
      decisions.map((d, i) => [i, d.value, d.seat]).filter((p) => p[2] === seat));
  series.forEach((points, s) => {
    nodes.push(svg("polyline", {
      class: `line side-${s}`,
      points: points.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
    }));
  });
  decisions.forEach((d, i) => {
    const point = svg("circle", {
      class: "point", cx: x(i).toFixed(1), cy: y(values[i]).toFixed(1), r: d.label === "best" || d.label === "good" ? 2.5 : 4.5,
      "data-label": d.label, "data-deal": d.deal, "data-play": d.play,
    });
    const title = svg("title");
    title.textContent = `${t(`label_${d.label}`)} · ${d.played}`;
    point.append(title);
    point.addEventListener("click", () => {
      const frame = frameOf.get(`${d.deal}:${d.play}`);
      if (frame !== undefined) hooks.go(frame);
    });
    nodes.push(point);
    if (current && current === d) {
      nodes.push(svg("line", { class: "cursor", x1: x(i), x2: x(i), y1: 0, y2: height }));
    }
  });
  chart.replaceChildren(...nodes);
  const first = hooks.frames()[0]?.hands.map((_, seat) => seat).filter((seat) => seat % 2 === 0) ?? [0];
  $("eval-caption").textContent = twoSides ? t("eval_chart", { name: first.map(hooks.playerName).join(t("and_joiner")) }) : "";
}

function renderSummary() {
  const head = el("tr", {}, el("th", { text: "" }), el("th", { text: t("accuracy") }), el("th", { text: t("moves_judged") }),
    ...["best", "good", "inaccuracy", "mistake", "blunder"].map((label) => el("th", { text: t(`label_${label}`) })));
  const rows = analysis.players.map((p) => el("tr", { "data-seat": p.seat },
    el("th", {}, el("bdi", { text: hooks.playerName(p.seat) })),
    el("td", { class: "accuracy", text: p.accuracy === null ? "–" : p.accuracy.toFixed(1) }),
    el("td", { text: String(p.decisions) }),
    ...["best", "good", "inaccuracy", "mistake", "blunder"].map((label) => el("td", { text: String(p.labels[label]) }))));
  $("analysis-summary").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
}

/** Draws what the analysis says of the frame shown (call on every render). */
export function renderAnalysisFrame(index) {
  const verdict = $("move-verdict");
  if (!analysis) {
    verdict.replaceChildren();
    return;
  }
  const decision = decisionAt(index);
  renderSampled();
  renderChart(decision);
  renderSummary();
  for (const node of document.querySelectorAll(".better-move")) node.classList.remove("better-move");
  if (!decision) {
    verdict.replaceChildren();
    return;
  }
  const parts = [el("span", { class: "move-label", "data-label": decision.label, "data-testid": "move-label", text: t(`label_${decision.label}`) })];
  if (decision.best !== decision.played) {
    parts.push(el("span", { class: "better" }, sentence("better_move", { move: moveWords(decision.best) })));
    const digits = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
    const loss = el("span", { class: "loss", "data-testid": "move-loss", text: t("points_lost", { n: decision.loss }, digits) });
    // A sampled loss is uncertain: its label is that of the loss less one standard error.
    if (decision.loss_error > 0) loss.append(" ", t("analysis_loss_error", { error: decision.loss_error }, digits));
    parts.push(loss);
    const card = decision.best.split(":")[0];
    const hands = document.querySelectorAll("#hands .replay-hand");
    hands[decision.seat]?.querySelector(`[data-card="${card}"]`)?.classList.add("better-move");
  }
  const facts = decision.facts ?? [];
  if (facts.length) parts.push(el("ul", { class: "move-notes" }, ...facts.map((f) => el("li", {}, factNode(f)))));
  verdict.replaceChildren(...parts);
}

/** Says so when a long match had only some of its decisions analysed. */
function renderSampled() {
  const sampled = analysis?.sampled ?? null;
  $("analysis-sampled").hidden = sampled === null;
  $("analysis-sampled").textContent = sampled === null ? ""
    : t("limit_analysis_sampled", { analysed: sampled.analysed, decisions: sampled.decisions });
}

function show(document_) {
  analysis = document_;
  byKey = new Map(analysis.decisions.map((d) => [`${d.deal}:${d.play}`, d]));
  indexFrames();
  $("analyze").hidden = true;
  $("analysis-status").textContent = "";
  $("analysis-body").hidden = false;
  renderSampled();
  document.body.dataset.analysis = "done";
  hooks.render();
}

async function start() {
  $("analyze").disabled = true;
  try {
    const answer = await postJSON(`/api/records/${encodeURIComponent(recordId)}/analysis`);
    if (answer?.status === "done") {
      show(answer.analysis);
      return;
    }
    waiting();
  } catch (error) {
    $("analyze").disabled = false;
    // A refusal for now (the queue is full, too many asked for) is no failure: it says why.
    const later = error instanceof ApiError && (error.status === 429 || error.status === 503);
    $("analysis-status").textContent = later ? error.message : t("analysis_failed", { error: error.message });
  }
}

function waiting() {
  $("analyze").hidden = true;
  $("analysis-status").textContent = t("analyzing");
  document.body.dataset.analysis = "running";
  setTimeout(check, POLL_MS);
}

/** Reads the analysis's status: shows it when done, waits while it runs. */
async function check() {
  let answer;
  try {
    answer = await getJSON(`/api/records/${encodeURIComponent(recordId)}/analysis`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 0) {
      setTimeout(check, POLL_MS * 2); // the network: try again
      return;
    }
    $("analysis-status").textContent = t("analysis_failed", { error: error.message });
    return;
  }
  if (answer.status === "done") show(answer.analysis);
  else if (answer.status === "running") waiting();
  else if (answer.status === "failed") {
    $("analyze").hidden = false;
    $("analyze").disabled = false;
    $("analysis-status").textContent = t("analysis_failed", { error: answer.error });
  } else {
    $("analyze").hidden = false;
  }
}

/** Sets the panel up for a stored record: shows a stored analysis, or offers one. */
export async function setupAnalysis(id, pageHooks) {
  recordId = id;
  hooks = pageHooks;
  $("analysis").hidden = false;
  $("analyze").addEventListener("click", start);
  await check();
}
