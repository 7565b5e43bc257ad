// The replay page: steps through the frames of a stored or uploaded match record.

import { $, el } from "./dom.js";
import { redrawAccount, setupAccount } from "./account.js";
import { getJSON, postJSON } from "./api.js";
import { cardElement, miniCard } from "./cards.js";
import { familyKey, formatNumber, hasKey, initial, sentence, setupLang, t } from "./i18n.js";
import { shownName, variantName } from "./matches.js";
import { scoreNotes, scoreTable } from "./score.js";
import { renderAnalysisFrame, setupAnalysis } from "./analysis_view.js";

const recordId = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] ?? "");

let record = null;
let frames = [];
let index = 0;

function showError(message) {
  $("alert").textContent = message;
}

function playerName(seat) {
  const player = record?.players?.[seat];
  const name = typeof player === "string" ? player : player?.name;
  return shownName(name, { kind: player?.kind ?? null }) || t("seat_n", { n: seat + 1 });
}

/** A player's name isolated from the text around it (a name in one script keeps its
 * order in a line of the other). */
function nameNode(seat) {
  return el("bdi", { class: "player-name", text: playerName(seat) });
}

/** A text as the record's game words it ("Piştis" for Pişti, "Surs" for Pasur, "Basras" else). */
function word(key, params = {}) {
  const own = `${key}_${record?.variant}`;
  return t(hasKey(own) ? own : familyKey(key, record?.rules?.family ?? "basra"), params);
}

/** A translated sentence with its {name} hole filled by `node`. */
function withName(key, params, node) {
  const [before, after = ""] = t(key, { ...params, name: "\u0000" }).split("\u0000");
  const out = document.createDocumentFragment();
  out.append(before, node, after);
  return out;
}

function sideCount(frame) {
  return frame.totals.length;
}

function sideSeats(frame, side) {
  return frame.hands.map((_, seat) => seat).filter((seat) => seat % sideCount(frame) === side);
}

/** The names of a side's players, each isolated, joined by "&". */
function sideNames(frame, side) {
  const out = document.createDocumentFragment();
  sideSeats(frame, side).forEach((seat, i) => out.append(i ? t("and_joiner") : "", nameNode(seat)));
  return out;
}

function load(answer) {
  record = answer.record ?? {};
  frames = answer.frames ?? [];
  index = 0;
  $("upload").hidden = recordId !== "";
  $("viewer").hidden = frames.length === 0;
  render();
  $("next").focus();
}

function go(to) {
  if (!frames.length) return;
  index = Math.max(0, Math.min(frames.length - 1, to));
  render();
}

function cardsBox(cards, marks = {}) {
  const box = el("div", { class: "cards" });
  for (const card of cards) {
    const node = cardElement(card);
    if (marks[card]) node.classList.add(marks[card]);
    box.append(node);
  }
  return box;
}

function playSentence(play) {
  const key = play.captured.length ? "played_captured" : "played";
  const text = t(key, { name: "\u0000", card: "\u0001", cards: "\u0002" });
  const out = document.createDocumentFragment();
  for (const part of text.split(/([\u0000-\u0002])/)) {
    if (part === "\u0000") out.append(el("strong", {}, nameNode(play.seat)));
    else if (part === "\u0001") out.append(miniCard(play.card));
    else if (part === "\u0002") play.captured.forEach((c, i) => out.append(i ? " " : "", miniCard(c)));
    else if (part) out.append(part);
  }
  if (play.basra) out.append(" ", el("span", { class: "basra-badge", text: play.pisti ? `${word("basra_toast")} +${formatNumber(play.pisti)}` : word("basra_toast") }));
  return out;
}

function renderDealScore(frame) {
  const box = $("deal-score");
  const score = frame.deal_score;
  box.hidden = !score;
  if (!score) return;
  const sideName = (side) => sideNames(frame, side);
  const notes = scoreNotes(score, { seatName: nameNode, sideName, players: frame.hands.length });
  box.replaceChildren(
    el("h2", { text: t("deal_score", { n: score.deal }) }),
    scoreTable(score, record?.rules, sideName, record?.variant),
    ...notes.map((n) => el("p", { class: "hint" }, n)));
}

function renderSummary() {
  const summary = record ?? {};
  const parts = [];
  if (summary.variant) parts.push(el("strong", { text: variantName(summary.variant) }));
  const totals = summary.totals ?? [];
  if (frames.length && totals.length) {
    const sides = el("span", { class: "record-sides-inline" });
    totals.forEach((total, side) => {
      if (side) sides.append(" – ");
      sides.append(el("span", { class: `record-side${summary.winner === side ? " winner" : ""}` },
        sideNames(frames[0], side), " ", el("strong", { class: "record-total", text: formatNumber(total) })));
    });
    parts.push(sides);
  }
  $("summary").replaceChildren(...parts.flatMap((part, i) => (i ? [" · ", part] : [part])));
}

function render() {
  renderSummary();
  if (!frames.length) return;
  const frame = frames[index];
  $("counter").textContent = t("play_k_of_n", { k: index + 1, n: frames.length });
  for (const id of ["first", "previous"]) $(id).setAttribute("aria-disabled", String(index === 0));
  for (const id of ["next", "last"]) $(id).setAttribute("aria-disabled", String(index === frames.length - 1));
  document.body.dataset.frame = String(index);
  document.body.dataset.deal = String(frame.deal);

  $("info").replaceChildren(
    el("strong", { text: t("deal_n", { n: frame.deal }) }),
    el("span", {}, withName("dealer_is", {}, nameNode(frame.dealer))),
    el("span", { text: t("stock", { n: frame.stock_count }) }),
    ...(frame.bottom_card ? [el("span", { class: "bottom-card", "data-testid": "bottom-card" }, sentence("bottom_card_shown", { card: miniCard(frame.bottom_card) }))] : []));

  const play = frame.play;
  $("play").replaceChildren(play ? playSentence(play) : t("dealt"));

  const floorMarks = play && !play.captured.length ? { [play.card]: "played" } : {};
  const floor = $("replay-floor");
  if (frame.stack) {
    // A pile game's pile, open as a replay shows it, bottom to top: the cards dealt face
    // down are marked so, the top card stands out.
    const marks = { ...Object.fromEntries(frame.down.map((card) => [card, "stack-was-down"])), ...floorMarks };
    const row = cardsBox(frame.stack, marks);
    row.lastElementChild?.classList.add("stack-top");
    floor.replaceChildren(el("div", { class: "replay-stack", "data-testid": "pile-stack", "data-count": String(frame.stack.length) }, ...row.children),
      ...(frame.stack.length ? [el("span", { class: "stack-count", text: t("pile_cards_n", { n: frame.stack.length }) })] : []));
    floor.dataset.empty = t("empty_pile");
    floor.classList.toggle("empty", frame.stack.length === 0);
  } else {
    floor.replaceChildren(...cardsBox(frame.floor, floorMarks).children);
    floor.classList.toggle("empty", frame.floor.length === 0);
  }

  $("hands").replaceChildren(...frame.hands.map((hand, seat) => {
    const side = seat % sideCount(frame);
    return el("section", { class: `replay-hand side-${side}`, "aria-label": t("hand_of", { name: playerName(seat) }) },
      el("div", { class: "plate" },
        el("span", { class: "avatar", "aria-hidden": "true", text: initial(playerName(seat)) }),
        el("span", { class: "plate-name", dir: "auto", text: playerName(seat) }),
        ...(seat === frame.dealer ? [el("span", { class: "dealer-chip", title: t("dealer"), text: t("dealer_mark") })] : []),
        ...(frame.seats && !frame.seats.includes(seat) ? [el("span", { class: "presence sitting-out-badge", text: t("sitting_out") })] : [])),
      cardsBox(hand));
  }));

  const totals = frame.totals.map((total, side) => total + (frame.deal_score?.total[side] ?? 0));
  $("replay-scores").replaceChildren(el("ol", { class: "score-sides" }, ...totals.map((total, side) =>
    el("li", { class: `score-side side-${side}` },
      el("span", { class: "side-name" }, sideNames(frame, side)),
      el("span", { class: "side-stats" },
        el("span", {}, el("span", { class: "stat-label", text: t("pile") }), ` ${formatNumber(frame.pile_counts[side])}`),
        el("span", {}, el("span", { class: "stat-label", text: word("basras") }), ` ${formatNumber(frame.basras[side])}`),
        ...(frame.jack_pistis?.[side] ? [el("span", {}, el("span", { class: "stat-label", text: word("jack_pistis_row") }), ` ${formatNumber(frame.jack_pistis[side])}`)] : []),
        el("span", { class: "stat-total" }, el("span", { class: "stat-label", text: t("total") }), ` ${formatNumber(total)}`))))));

  renderDealScore(frame);
  renderAnalysisFrame(index);
}

/**
 * Why an uploaded file was refused, in the page's language: by the problem the server
 * names (params.problem of a bad_record: not_text, not_json, not_record, version, invalid,
 * too_big) and where it is (params.deal, params.play); a body over the server's cap
 * (body_too_large) is too big; any other refusal as api.js words it.
 */
function uploadError(error) {
  const params = error.params ?? {};
  if (error.code === "body_too_large" || params.problem === "too_big") {
    return t("upload_too_big", { kb: Math.floor(Number(params.most) / 1000) });
  }
  if (error.code !== "bad_record" || !hasKey(`upload_${params.problem}`)) return error.message;
  if (params.problem === "invalid" && params.deal) {
    return t(params.play ? "upload_invalid_play" : "upload_invalid_deal", params);
  }
  return t(`upload_${params.problem}`, params);
}

async function upload(event) {
  event.preventDefault();
  showError("");
  const file = $("record-file").files[0];
  if (!file) return;
  try {
    load(await postJSON("/api/replay", await file.text()));
  } catch (error) {
    showError(uploadError(error));
  }
}

function onKey(event) {
  if (event.target.closest("input, textarea, select") || $("viewer").hidden) return;
  const moves = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: frames.length - 1 };
  if (event.key in moves && !event.altKey && !event.ctrlKey && !event.metaKey) {
    go(moves[event.key]);
    event.preventDefault();
  }
}

async function init() {
  setupLang(() => {
    render();
    redrawAccount();
  });
  setupAccount();
  $("first").addEventListener("click", () => go(0));
  $("previous").addEventListener("click", () => go(index - 1));
  $("next").addEventListener("click", () => go(index + 1));
  $("last").addEventListener("click", () => go(frames.length - 1));
  document.addEventListener("keydown", onKey);
  $("upload-form").addEventListener("submit", upload);
  $("record-file").addEventListener("change", upload);
  if (!recordId) {
    $("upload").hidden = false;
    return;
  }
  try {
    load(await getJSON(`/api/records/${encodeURIComponent(recordId)}/frames`));
  } catch (error) {
    showError(error.message);
    return;
  }
  await setupAnalysis(recordId, {
    go, render, frames: () => frames, playerName, family: () => record?.rules?.family ?? "basra",
  });
}

init();
