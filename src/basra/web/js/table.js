// The table page: joins or watches a table over its WebSocket and draws every state.

import { $, el } from "./dom.js";
import { redrawAccount, setupAccount } from "./account.js";
import { TableSocket, dropToken, getJSON, postJSON, storeName, storeToken, storedName, storedToken } from "./api.js";
import { renderCoach, setupCoach } from "./coach.js";
import { backElement, cardElement, miniCard } from "./cards.js";
import { cardList, cardName, errorKey, errorText, familyKey, formatNumber, hasKey, initial, isRtl, lang, levelName, sentence, setupLang, t } from "./i18n.js";
import { guestName, playerName } from "./names.js";
import { moveInHand } from "./hand_keys.js";
import { scoreNotes, scoreTable } from "./score.js";
import { playSound, setSound, soundOn } from "./sound.js";
import { receiveChat, renderChat, setupChat } from "./chat.js";
import { leavingNotice, renderLeaving, setupLeaving } from "./leaving.js";
import { renderTournamentReturn, tournamentOf } from "./tournament_return.js";

// The table's code: from the page's address (/t/CODE), or as Basra TV gives it (tv.js).
const code = document.body.dataset.tableCode || decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] ?? "");
const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");
const narrowScreen = matchMedia("(max-width: 640px)"); // as the style sheet's small screens
const POSITIONS = { 2: ["bottom", "top"], 3: ["bottom", "end", "start"], 4: ["bottom", "end", "top", "start"] };
const OFFSETS = { bottom: [0, 1], top: [0, -1], start: [-1, 0], end: [1, 0] };

let socket = null;
let state = null;
let pendingPlay = false;
let seenDeals = null; // number of deal scores already shown, per match
let matchNumber = null;
let alertTimer = null;
let ended = null; // why the socket closed for good: [i18n key, params], or null
let banners = []; // announcements waiting for their turn on screen
let bannerShowing = false;
let pileSide = null; // the side whose pile the pile dialog shows
let celebrated = null; // the match number whose result was celebrated
let liveResult = false; // the result arrived while the page was open (not on loading)

const BANNER_MS = 1400;
const BANNERS_KEPT = 3;

// Small helpers.

/** The rule family the table plays: "basra" or "pasur". */
function family() {
  return state?.table?.family ?? state?.table?.rules?.family ?? "basra";
}

/**
 * A text as the table's game words it: "Pişti!" at a Pişti table and "Xeri!" at a Xeri
 * one (the variant's own key), "Sur!" at a Pasur table (the family's), "Basra!" else.
 */
function word(key, params = {}) {
  const own = `${key}_${state?.table?.variant}`;
  return t(hasKey(own) ? own : familyKey(key, family()), params);
}

/** Whether the table plays a pile game (Pişti, Xeri): one pile, only its top card counts. */
function pileGame() {
  return family() === "pisti";
}

/** Whether this seat may look through its side's captured cards (closed in pile games). */
function storesOpen() {
  return !pileGame() || Boolean(state?.table?.open_stores);
}

function showAlert(message) {
  $("alert").textContent = message;
  clearTimeout(alertTimer);
  alertTimer = setTimeout(() => {
    $("alert").textContent = "";
  }, 5000);
}

function announce(text) {
  $("announce").textContent = text;
}

function motion() {
  return !reducedMotion.matches;
}

/**
 * Shows a short announcement in the last play's place (never over the hand or the floor),
 * after the ones before it: each stays BANNER_MS, and a backlog keeps only the newest few.
 */
function banner(text, kind = "") {
  banners.push({ text, kind });
  if (banners.length > BANNERS_KEPT) banners = banners.slice(-BANNERS_KEPT);
  if (!bannerShowing) nextBanner();
}

function nextBanner() {
  const box = $("toast");
  const item = banners.shift();
  box.parentElement.classList.toggle("announcing", Boolean(item));
  bannerShowing = Boolean(item);
  box.className = "toast";
  if (!item) {
    box.textContent = "";
    return;
  }
  box.textContent = item.text;
  if (item.kind) box.classList.add(item.kind);
  if (motion()) {
    void box.offsetWidth; // a new start for the animation of the one before
    box.classList.add("pop");
  }
  setTimeout(nextBanner, BANNER_MS);
}

function dialogOpen() {
  return document.querySelector("dialog[open]") !== null;
}

// Seats and sides.

function seats() {
  return state?.table?.seats ?? [];
}

function mySeat() {
  return state?.you?.seat ?? null;
}

function seatName(seat) {
  return playerName(seats()[seat], seat);
}

function sideCount() {
  const table = state.table;
  return table.partnership ? 2 : table.players;
}

function sideOf(seat) {
  return seats()[seat]?.side ?? seat % sideCount();
}

function sideLabel(side) {
  const names = seats().filter((s) => sideOf(s.seat) === side).map((s) => seatName(s.seat));
  return names.join(t("and_joiner"));
}

/** A side in one word: "Team 2" in a partnership, else its player's name. */
function sideName(side) {
  return state.table.partnership ? t("team_n", { n: side + 1 }) : sideLabel(side);
}

/** Whether a seat sits the current deal out (an extra deal between tied sides). */
function sitsOut(seat) {
  const playing = state?.deal?.seats;
  return Boolean(playing && state.table.status === "playing" && !playing.includes(seat));
}

function isMySide(side) {
  return mySeat() !== null && state.you.side === side;
}

/** The table by its variant and players: "Egyptian · 2 players". */
function tableTitle(table) {
  const key = `variant_${table.variant}`;
  const variant = hasKey(key) ? t(key) : table.variant;
  const players = table.players === 2 ? t("players_2") : t("players_n", { n: table.players });
  let title = t("table_title", { variant, players });
  // Pasur chosen as a house rule under another variant's name.
  if (table.family === "pasur" && table.variant !== "pasur") title += ` · ${t("rule_family_pasur")}`;
  return table.partnership ? `${title} · ${t("with_partners")}` : title;
}

/** Whether the table is rated (made by pairing players who asked for a rated game). */
function isRated() {
  return Boolean(state?.rated ?? state?.table?.rated);
}

function showTitle(table) {
  const title = table ? tableTitle(table) : "";
  $("table-title").textContent = title;
  const news = tabNews();
  document.title = [news, title, t("basra")].filter(Boolean).join(" · ");
}

/** What the browser's tab says before the table's name: "Your turn", the result, or nothing. */
function tabNews() {
  const result = state?.result;
  if (result) {
    if (result.winner === null || result.winner === undefined) return t("draw");
    if (mySeat() === null) return winnerTitle(result.winner);
    return t(result.winner === state.you.side ? "you_won" : "you_lost");
  }
  return state && myTurn() ? t("your_turn") : "";
}

function positionOf(seat) {
  const n = state.table.players;
  const base = mySeat() ?? 0;
  return POSITIONS[n][(seat - base + n) % n];
}

/** Where a card flies from or to for a seat, in pixels. */
function offsetOf(seat) {
  const [x, y] = OFFSETS[positionOf(seat)];
  return [(isRtl() ? -x : x) * 220, y * 180];
}

// The socket.

function connect(token) {
  if (socket) socket.close();
  socket = new TableSocket(code, token, {
    onMessage: receive,
    onStatus: (status) => {
      $("conn").hidden = status !== "reconnecting";
    },
    onClosed: async (closeCode, errorCode) => {
      $("conn").hidden = true;
      if (closeCode === 4404) return showGone();
      if (closeCode !== 4401) {  // no such table, it expired, is lost, or is open elsewhere
        // The page stops following the table: it keeps saying why and offers no play.
        ended = closeCode === 4404 ? ["no_table", { code }]
          : [errorKey({ code: errorCode }) ?? "error.server_error", {}];
        showAlert(t(...ended));
        redraw();
        return;
      }
      dropToken(code);
      showAlert(t("token_lost"));
      await offerSeat();
    },
  });
}

function send(message) {
  if (!socket || !socket.send(message)) {
    showAlert(ended ? t(...ended) : t("reconnecting"));
    return false;
  }
  return true;
}

function receive(message) {
  if (message.type === "state") {
    const previous = state;
    state = message;
    pendingPlay = false;
    render(previous);
  } else if (message.type === "error") {
    pendingPlay = false;
    showAlert(errorText(message));
  } else if (message.type === "chat") {
    receiveChat(message);
  } else if (message.type === "notice") {
    const key = `notice_${message.code}`;
    const text = leavingNotice(message) ?? (t(key) !== key ? t(key) : null);
    if (text) {
      announce(text);
      banner(text, "notice");
    }
  }
}

// Joining.

async function offerSeat() {
  let table;
  try {
    table = await getJSON(`/api/tables/${encodeURIComponent(code)}`);
  } catch (error) {
    if (error.status === 404) return showGone();
    showAlert(error.message);
    $("turn").textContent = error.message;
    return;
  }
  showTitle(table);
  const free = (table.seats ?? []).some((s) => s.kind === "human" && !s.taken);
  if (!free) {
    connect(null);
    return;
  }
  showJoinPanel(table.seats ?? []);
}

function showJoinPanel(seatList) {
  const taken = seatList.filter((s) => s.taken && s.kind === "human").map((s) => playerName(s));
  $("join-seats").textContent = taken.length
    ? `${t("join_hint")} ${t("at_table", { names: taken.join(" · ") })}` : t("join_hint");
  const free = seatList.find((s) => s.kind === "human" && !s.taken);
  $("join-name").dataset.seat = String(free ? free.seat : 0);
  $("join-name").placeholder = guestName(free ? free.seat : 0);
  $("join-name").value = storedName();
  $("join-panel").hidden = false;
  $("open-join").hidden = true;
  $("join-name").focus();
}

async function join(event) {
  event.preventDefault();
  const name = $("join-name").value.trim();
  storeName(name);
  const button = $("join-button");
  button.disabled = true;
  try {
    const answer = await postJSON(`/api/tables/${encodeURIComponent(code)}/join`, name ? { name } : {});
    storeToken(code, answer.seat, answer.token);
    $("join-panel").hidden = true;
    connect(answer.token);
  } catch (error) {
    showAlert(error.message);
  } finally {
    button.disabled = false;
  }
}

function watch() {
  $("join-panel").hidden = true;
  connect(null);
}

// Drawing.

function render(previous) {
  const body = document.body;
  const deal = state.deal;
  body.dataset.seq = String(state.seq);
  body.dataset.status = state.table.status;
  body.dataset.toPlay = String(deal ? deal.to_play : -1);
  body.dataset.mySeat = mySeat() === null ? "" : String(mySeat());
  body.dataset.deal = String(deal ? deal.number : 0);
  body.dataset.players = String(state.table.players);

  const newMatch = matchNumber !== state.table.match_number;
  if (newMatch) {
    matchNumber = state.table.match_number;
    seenDeals = state.deal_scores.length;
    liveResult = false;
  }
  const newPlay = Boolean(previous && !newMatch && state.last_play && state.seq !== previous.seq);
  if (previous && !newMatch && state.result && !previous.result) liveResult = true;

  showTitle(state.table);
  $("rated-badge").hidden = !isRated();
  renderConduct(newMatch ? null : previous);
  renderChat(state);
  $("paused").hidden = state.paused !== "storage";
  renderScores();
  renderSeats(previous);
  renderTurn();
  renderFloor(previous, newPlay);
  renderHand(previous);
  renderLastPlay(newPlay);
  if (newPlay) playEffects();
  const capture = $("capture-dialog");
  if (capture.open && (!myTurn() || capture.dataset.seq !== String(state.seq))) capture.close();
  if ($("pile-dialog").open) fillPileDialog();

  // The score of a deal comes first; at a match's end the result waits until it is closed.
  if (state.deal_scores.length > seenDeals) {
    seenDeals = state.deal_scores.length;
    showDealScore(state.deal_scores[state.deal_scores.length - 1]);
  }
  renderPanels();
  renderLeaving(state);
  renderCoach(previous);
  if (previous && myTurn() && !wasMyTurn(previous)) playSound("turn");
  focusHandOnTurn(previous);
}

function renderScores() {
  const deal = state.deal;
  const info = [t("target_n", { n: state.target })];
  if (deal) info.push(t("deal_n", { n: deal.number }));
  if (state.carry) info.push(t("carry_n", { n: state.carry }));
  // A pile game's table setting: whether the captured cards may be looked through.
  if (pileGame()) info.push(t(storesOpen() ? "stores_open" : "stores_closed"));
  $("score-info").textContent = info.join(" · ");
  const list = $("score-sides");
  list.replaceChildren();
  for (let side = 0; side < sideCount(); side++) {
    const mine = mySeat() !== null && state.you.side === side;
    const label = teamLabel(side);
    list.append(el("li", { class: `score-side side-${side}${mine ? " mine" : ""}` },
      el("span", { class: "side-name", text: label }),
      el("span", { class: "side-stats" },
        el("span", { class: "stat stat-cards" }, el("span", { class: "stat-label", text: t("cards") }), ` ${formatNumber(deal ? deal.pile_counts[side] : 0)}`),
        el("span", { class: "stat" }, el("span", { class: "stat-label", text: word("basras") }), ` ${formatNumber(deal ? deal.basras[side] : 0)}`),
        el("span", { class: "stat stat-total" }, el("span", { class: "stat-label", text: t("total") }), ` ${formatNumber(state.totals[side] ?? 0)}`))));
  }
}

/** A side with its players: "Team 1: Amira & Nadia", or the player's name alone. */
function teamLabel(side) {
  return state.table.partnership ? `${t("team_n", { n: side + 1 })}: ${sideLabel(side)}` : sideLabel(side);
}

function presence(info) {
  if (info.kind === "bot") return null;
  if (info.away) return el("span", { class: "presence away", text: t("away") });
  const online = info.connected;
  return el("span", { class: `presence ${online ? "online" : "offline"}`, title: t(online ? "connected" : "offline") },
    el("span", { class: "dot", "aria-hidden": "true" }),
    el("span", { class: "visually-hidden", text: t(online ? "connected" : "offline") }));
}

function plate(seat) {
  const info = seats()[seat];
  const deal = state.deal;
  const active = deal && deal.to_play === seat && state.table.status === "playing";
  const out = sitsOut(seat);
  const name = seatName(seat);
  const bot = info?.kind === "bot";
  const node = el("div", { class: `plate side-${sideOf(seat)}${active ? " active" : ""}${bot ? " bot" : ""}${out ? " sitting-out" : ""}` },
    el("span", { class: "avatar", "aria-hidden": "true", text: initial(name) }),
    el("span", { class: "plate-name", text: seat === mySeat() ? `${name} (${t("you")})` : name }));
  if (bot && info.level) node.append(el("span", { class: "level-badge", text: levelName(info.level) }));
  if (!bot && info?.rating !== null && info?.rating !== undefined) {
    node.append(el("span", { class: "rating-badge", "data-testid": `rating-${seat}`, title: t("rating_of", { n: info.rating }), text: String(info.rating) }));
  }
  const dot = info && !out && presence(info);
  if (dot) node.append(dot);
  if (out) node.append(el("span", { class: "presence sitting-out-badge", text: t("sitting_out") }));
  if (deal && deal.dealer === seat) node.append(el("span", { class: "dealer-chip", title: t("dealer"), text: t("dealer_mark") }));
  return node;
}

function renderSeats(previous) {
  const n = state.table.players;
  const used = new Set(POSITIONS[n]);
  for (const pos of ["top", "start", "end"]) $(`pos-${pos}`).hidden = !used.has(pos);
  $("felt").dataset.players = String(n);
  const grown = pilesGrown(previous);
  // Two players leave the felt's sides empty: each side's pile, last capture and points go
  // there (a phone has no room to spare beside the floor: the piles go by the name plates).
  const trays = n === 2 && state.deal && !narrowScreen.matches;
  $("tray-start").hidden = !trays;
  $("tray-end").hidden = !trays;
  if (trays) {
    const mine = sideOf(mySeat() ?? 0);
    $("tray-end").replaceChildren(tray(mine, grown));
    $("tray-start").replaceChildren(tray(1 - mine, grown));
  }
  for (let seat = 0; seat < n; seat++) {
    const pos = positionOf(seat);
    const box = pos === "bottom" ? $("bottom-seat") : $(`pos-${pos}`);
    const side = sideOf(seat);
    const parts = [plate(seat)];
    if (seat !== mySeat() && state.table.status === "playing" && !sitsOut(seat)) {
      const count = state.deal ? state.deal.hand_counts[seat] : 0;
      const backs = el("div", { class: "backs", role: "img", "aria-label": `${t("hand_of", { name: seatName(seat) })}: ${t("cards_count", { n: count })}` });
      for (let i = 0; i < Math.min(count, 8); i++) backs.append(backElement());
      parts.push(el("div", { class: "backs-row" }, backs, el("span", { class: "count-badge", "aria-hidden": "true", text: formatNumber(count) })));
    }
    if (!trays && state.deal && pileSeat(side) === seat) parts.push(pileGroup(side, grown));
    // Beside the floor a seat is a column; above and below it, a row that wraps.
    if (pos === "start" || pos === "end") box.replaceChildren(...parts);
    else box.replaceChildren(el("div", { class: "plate-row" }, ...parts));
    box.dataset.seat = String(seat);
  }
}

// Captured piles: a face-down stack per side with its count; a player may open their own
// side's pile, and everyone may look at each side's last capture.

/** The seat whose place shows a side's pile: the side's first seat from the bottom on. */
function pileSeat(side) {
  const n = state.table.players;
  const base = mySeat() ?? 0;
  for (let i = 0; i < n; i++) {
    if (sideOf((base + i) % n) === side) return (base + i) % n;
  }
  return base;
}

/** The sides whose piles grew since `previous` (in the same deal). */
function pilesGrown(previous) {
  const before = previous?.deal;
  const now = state.deal;
  if (!before || !now || before.number !== now.number) return new Set();
  return new Set(now.pile_counts.map((count, side) => (count > before.pile_counts[side] ? side : -1)));
}

function pileTitle(side) {
  if (isMySide(side)) return t(state.table.partnership ? "pile_team" : "pile_mine");
  return t("pile_of", { name: sideName(side) });
}

function pileButton(side, grown) {
  const count = state.deal ? state.deal.pile_counts[side] : 0;
  const stack = el("span", { class: "pile-stack", "aria-hidden": "true" });
  const layers = count ? Math.min(6, 1 + Math.floor(count / 6)) : 0;
  for (let i = 0; i < layers; i++) stack.append(el("span", { class: "pile-layer" }));
  stack.dataset.layers = String(layers);
  const button = el("button", {
    type: "button", class: `pile side-${side}${isMySide(side) ? " mine" : ""}`,
    "data-testid": `pile-${side}`, "data-side": String(side), "data-count": String(count), "aria-haspopup": "dialog",
  }, stack, el("span", { class: "pile-text" },
    el("span", { class: "visually-hidden", text: `${pileTitle(side)}: ` }),
    el("span", { class: "pile-count", text: t("cards_n", { n: count }) })));
  const basras = state.deal ? state.deal.basras[side] : 0;
  if (basras) {
    button.append(el("span", { class: "pile-basras", title: word("basras") },
      el("span", { class: "visually-hidden", text: ` · ${word("basras")} ` }), `★${basras > 1 ? ` ${basras}` : ""}`));
  }
  if (grown.has(side) && motion()) animateOnce(stack, "bump");
  return button;
}

/** A side's last capture of the deal as small cards: the card played, then what it took. */
function lastCaptureView(side) {
  const capture = state.deal?.last_captures?.[side];
  const box = el("div", { class: "last-capture", "data-testid": `last-capture-${side}` },
    el("span", { class: "last-capture-label", text: t("last_capture") }));
  if (!capture) {
    box.append(el("span", { class: "last-capture-none", text: "–" }));
    return box;
  }
  const played = miniCard(capture.card);
  played.classList.add("played");
  box.append(el("span", { class: "last-capture-cards" }, played,
    el("span", { class: "took", "aria-hidden": "true", text: isRtl() ? "←" : "→" }),
    ...capture.captured.map((card) => miniCard(card))));
  return box;
}

function pileGroup(side, grown) {
  return el("div", { class: `pile-group side-${side}` }, pileButton(side, grown), lastCaptureView(side));
}

function tray(side, grown) {
  return el("div", { class: `tray-inner side-${side}${isMySide(side) ? " mine" : ""}` },
    el("p", { class: "tray-name", text: sideName(side) }),
    pileButton(side, grown),
    lastCaptureView(side),
    el("p", { class: "tray-points" }, el("span", { class: "stat-label", text: t("points") }), " ",
      el("strong", { text: formatNumber(state.totals[side] ?? 0) })));
}

function openPile(side) {
  pileSide = side;
  fillPileDialog();
  const dialog = $("pile-dialog");
  if (!dialog.open) dialog.showModal();
  $("pile-close").focus();
}

function captureCards(capture) {
  const row = el("div", { class: "pile-cards capture-cards" });
  const played = cardElement(capture.card, { className: "small played" });
  row.append(played, el("span", { class: "took", "aria-hidden": "true", text: isRtl() ? "←" : "→" }),
    ...capture.captured.map((card) => cardElement(card, { className: "small" })));
  return row;
}

function fillPileDialog() {
  const side = pileSide;
  const deal = state.deal;
  const count = deal ? deal.pile_counts[side] : 0;
  $("pile-title").textContent = `${pileTitle(side)} · ${t("cards_n", { n: count })}`;
  const capture = deal?.last_captures?.[side];
  const parts = [el("h3", { text: t("last_capture") })];
  if (capture) {
    const name = capture.seat === mySeat() ? t("you") : seatName(capture.seat);
    parts.push(el("p", { class: "hint", text: t("capture_line", { name, card: cardName(capture.card), cards: cardList(capture.captured) }) }),
      captureCards(capture));
  } else {
    parts.push(el("p", { class: "hint", text: t("no_capture_yet") }));
  }
  const pile = isMySide(side) ? deal?.pile : null;
  if (pile) {
    parts.push(el("h3", { text: t("all_captured", { n: pile.length }) }),
      el("div", { class: "pile-cards all-captured", "data-testid": "pile-cards" },
        ...pile.map((card) => cardElement(card, { className: "small" }))));
  } else {
    parts.push(el("p", { class: "hint", text: t(pileGame() && isMySide(side) && !storesOpen() ? "stores_closed_hint" : "pile_face_down") }));
  }
  $("pile-body").replaceChildren(...parts);
}

function renderTurn() {
  const status = state.table.status;
  const deal = state.deal;
  let text;
  if (ended) text = t(...ended);
  else if (status === "waiting" || !deal) text = t("waiting_players");
  else if (status === "finished" || state.result) text = t("match_over");
  else if (state.paused) text = t("paused_turn");
  else if (deal.to_play === mySeat()) text = t("your_turn");
  else if (mySeat() !== null && sitsOut(mySeat())) text = t("you_sit_out");
  else text = t("someones_turn", { name: seatName(deal.to_play) });
  const turn = $("turn");
  turn.textContent = text;
  turn.classList.toggle("mine", myTurn());
  const stock = $("stock");
  stock.replaceChildren(deal ? t("stock", { n: deal.stock_count }) : "");
  // A pile game's stock may show its bottom card (it goes to the dealer last): public.
  if (deal?.bottom_card && deal.stock_count > 0) {
    stock.append(" · ", el("span", { class: "bottom-card", "data-testid": "bottom-card" },
      sentence("bottom_card_shown", { card: miniCard(deal.bottom_card) })));
  }
  // The bury cards that came up on the first floor went back into the stock: everyone saw them.
  if (deal?.buried?.length) {
    const cards = document.createDocumentFragment();
    deal.buried.forEach((card, i) => cards.append(i ? " " : "", miniCard(card)));
    stock.append(" · ", el("span", { class: "buried", "data-testid": "buried" }, sentence("buried_n", { cards })));
  }
  tickTimer();
}

function tickTimer() {
  const deadline = state?.deadline;
  const timer = $("timer");
  if (!deadline || state.table.status !== "playing" || ended) {
    timer.hidden = true;
    return;
  }
  const left = Math.max(0, deadline - Date.now());
  const seconds = Math.ceil(left / 1000);
  timer.hidden = false;
  $("timer-text").textContent = t("seconds_left", { n: seconds });
  timer.classList.toggle("low", seconds <= 5);
  const total = (state.table.turn_seconds || 30) * 1000;
  $("timer-fill").style.inlineSize = `${Math.min(100, (left / total) * 100)}%`;
}

function animateOnce(node, className) {
  if (!motion()) return;
  node.classList.add(className);
  node.addEventListener("animationend", () => node.classList.remove(className), { once: true });
}

function animateFrom(node, seat, className) {
  const [x, y] = offsetOf(seat);
  node.style.setProperty("--from-x", `${x}px`);
  node.style.setProperty("--from-y", `${y}px`);
  animateOnce(node, className);
}

function ghost(node, seat, className) {
  const [x, y] = offsetOf(seat);
  node.removeAttribute("data-card");
  node.removeAttribute("role");
  node.removeAttribute("aria-label");
  node.setAttribute("aria-hidden", "true");
  node.style.setProperty("--to-x", `${x}px`);
  node.style.setProperty("--to-y", `${y}px`);
  node.style.setProperty("--from-x", `${offsetOf(state.last_play.seat)[0]}px`);
  node.style.setProperty("--from-y", `${offsetOf(state.last_play.seat)[1]}px`);
  node.classList.remove("enter", "deal-in");
  node.classList.add("ghost", className);
  setTimeout(() => node.remove(), 750);
  return node;
}

/**
 * A pile game's centre: one stack, its top card face up and the cards under it as edges
 * of an offset stack (what they are is for the players to remember), the face-down cards
 * of the first pile as backs, and a count.
 */
function renderStack(previous, newPlay) {
  const box = $("floor");
  const stack = state.deal?.stack ?? [];
  box.classList.add("pile-centre");
  box.querySelectorAll(".ghost").forEach((n) => n.remove());
  const play = newPlay ? state.last_play : null;
  const shown = Math.min(stack.length, 10); // older layers are drawn as one
  const layers = stack.slice(stack.length - shown).map((card, i) => {
    const top = i === shown - 1;
    const node = card === null ? backElement("stack-card stack-down")
      : top ? cardElement(card, { className: "stack-card stack-top" })
        : el("span", { class: "card stack-card stack-under", "aria-hidden": "true" });
    node.style.setProperty("--i", String(i));
    if (top) {
      node.dataset.testid = "pile-top";
      if (card !== null && play && play.card === card && !play.captured?.length) animateFrom(node, play.seat, "enter");
    }
    return node;
  });
  const pile = el("div", { class: "stack", "data-testid": "pile-stack", "data-count": String(stack.length), "data-down": String(state.deal?.down_count ?? 0) }, ...layers);
  pile.style.setProperty("--layers", String(shown));
  const nodes = [];
  if (stack.length) {
    // The floor's label says it too; a phone shows the number alone, beside the stack.
    nodes.push(pile, el("span", { class: "stack-count", "data-testid": "pile-count", "aria-hidden": "true" },
      el("span", { class: "stack-count-long", text: t("pile_cards_n", { n: stack.length }) }),
      el("span", { class: "stack-count-short", text: formatNumber(stack.length) })));
  }
  if (play && play.captured?.length && motion()) nodes.push(ghost(cardElement(play.card), play.seat, "swoop"));
  box.replaceChildren(...nodes);
  box.classList.toggle("empty", stack.length === 0);
  box.dataset.empty = t("empty_pile");
  const top = stack.length ? stack[stack.length - 1] : null;
  box.setAttribute("aria-label", stack.length
    ? `${t("centre_pile")}: ${t("pile_cards_n", { n: stack.length })}${top ? ` · ${t("pile_top", { card: cardName(top) })}` : ""}`
    : `${t("centre_pile")}: ${t("empty_pile")}`);
}

function renderFloor(previous, newPlay) {
  if (pileGame()) {
    renderStack(previous, newPlay);
    return;
  }
  const box = $("floor");
  box.classList.remove("pile-centre");
  const floor = state.deal ? state.deal.floor : [];
  const sameDeal = previous?.deal && state.deal && previous.deal.number === state.deal.number;
  box.querySelectorAll(".ghost").forEach((n) => n.remove());
  const old = new Map([...box.querySelectorAll("[data-card]")].map((n) => [n.dataset.card, n]));
  const play = newPlay ? state.last_play : null;
  const captured = new Set(play?.captured ?? []);
  const nodes = floor.map((card) => {
    const reuse = old.get(card);
    if (reuse && reuse.dataset.lang === lang()) {
      old.delete(card);
      return reuse;
    }
    const node = cardElement(card);
    node.dataset.lang = lang();
    if (play && play.card === card && !captured.size) animateFrom(node, play.seat, "enter");
    else if (!sameDeal && previous) animateOnce(node, "deal-in");
    return node;
  });
  if (play && captured.size && motion()) {
    const previousFloor = previous?.deal?.floor ?? [];
    for (const card of previousFloor) {
      const node = old.get(card);
      if (!node || !captured.has(card)) continue;
      const at = Math.min(previousFloor.indexOf(card), nodes.length);
      nodes.splice(at, 0, ghost(node, play.seat, "leave"));
    }
    nodes.push(ghost(cardElement(play.card), play.seat, "swoop"));
  }
  box.replaceChildren(...nodes);
  box.classList.toggle("empty", floor.length === 0);
  box.dataset.empty = t("empty_floor");
  box.setAttribute("aria-label", floor.length ? t("floor") : `${t("floor")}: ${t("empty_floor")}`);
}

function legalFor(card) {
  return (state.legal ?? []).filter((entry) => entry.card === card);
}

function myTurn() {
  return Boolean(!ended && state?.deal && state.table.status === "playing" && !state.result &&
    !state.paused && mySeat() !== null && state.deal.to_play === mySeat());
}

function renderHand(previous) {
  const box = $("hand");
  const seated = mySeat() !== null;
  box.hidden = !seated;
  document.querySelector(".keys-hint").hidden = !seated || !state.deal || Boolean(state.result);
  $("watching").hidden = seated;
  if (!seated) {
    box.replaceChildren();
    return;
  }
  const hand = state.deal ? state.deal.hand : [];
  box.hidden = Boolean(state.result) && !hand.length;
  const focused = box.contains(document.activeElement) ? [...box.children].indexOf(document.activeElement) : -1;
  const old = new Map([...box.children].map((n) => [n.dataset.card, n]));
  const turn = myTurn();
  const nodes = hand.map((card, index) => {
    let node = old.get(card);
    if (!node || node.dataset.lang !== lang()) {
      node = cardElement(card, { tag: "button", className: "hand-card" });
      node.dataset.lang = lang();
      if (previous && !old.has(card)) animateOnce(node, "deal-in");
    }
    const playable = turn && legalFor(card).length > 0;
    node.setAttribute("aria-disabled", String(!playable));
    node.classList.toggle("playable", playable);
    node.dataset.index = String(index + 1);
    return node;
  });
  box.replaceChildren(...nodes);
  box.dataset.count = String(nodes.length);
  box.classList.toggle("my-turn", turn);
  if (focused >= 0 && !box.contains(document.activeElement) && nodes.length) {
    nodes[Math.min(focused, nodes.length - 1)].focus();
  }
}

function wasMyTurn(previous) {
  return Boolean(previous && previous.deal && previous.deal.to_play === previous.you?.seat &&
    previous.table.status === "playing");
}

function focusHandOnTurn(previous) {
  if (!myTurn() || wasMyTurn(previous) || dialogOpen()) return;
  const active = document.activeElement;
  if (active && active !== document.body && !$("hand").contains(active)) return;
  const first = $("hand").querySelector(".playable");
  if (first && !$("hand").contains(active)) first.focus();
}

function playText(play, withNodes) {
  const you = play.seat === mySeat();
  const name = seatName(play.seat);
  const taken = play.captured ?? [];
  const key = you ? (taken.length ? "you_played_captured" : "you_played") : (taken.length ? "played_captured" : "played");
  if (!withNodes) return t(key, { name, card: cardName(play.card), cards: cardList(taken) });
  const cards = document.createDocumentFragment();
  taken.forEach((card, i) => cards.append(i ? " " : "", miniCard(card)));
  return sentence(key, { name, card: miniCard(play.card), cards });
}

function renderLastPlay(newPlay) {
  const box = $("last-play");
  const play = state.last_play;
  if (!play) {
    box.replaceChildren(el("span", { class: "hint", text: state.deal ? t("no_play_yet") : "" }));
    return;
  }
  const line = el("p", { class: "last-line" }, playText(play, true));
  if (play.basra) line.append(" ", el("span", { class: "basra-badge", text: play.pisti ? `${word("basra_toast")} +${formatNumber(play.pisti)}` : word("basra_toast") }));
  box.replaceChildren(el("span", { class: "visually-hidden", text: `${t("last_play")}: ` }), line);
  box.dataset.seat = String(play.seat);
  if (newPlay && motion()) {
    box.classList.remove("flash");
    void box.offsetWidth;
    box.classList.add("flash");
  }
}

function playEffects() {
  const play = state.last_play;
  let text = playText(play, false);
  if (play.pisti) {
    // A pişti (a xeri): the game's own word, and its points (10, or 20 for a Jack on a Jack).
    const said = play.seat === mySeat() ? word("pisti_you", { n: play.pisti }) : word("pisti_by", { name: seatName(play.seat), n: play.pisti });
    banner(said, "pisti");
    text += `. ${said}`;
  } else if (play.basra) {
    banner(play.seat === mySeat() ? word("look_basra_you") : word("basra_by", { name: seatName(play.seat) }), "basra");
    text += `. ${word("basra_toast")}`;
  }
  announce(text);
  playSound(play.basra ? "basra" : play.captured?.length ? "capture" : "play");
}

function renderPanels() {
  const status = state.table.status;
  const seated = mySeat() !== null;
  const freeSeat = seats().some((s) => s.kind === "human" && !s.taken);

  const share = $("share-panel");
  share.hidden = status !== "waiting";
  if (!share.hidden) {
    $("share-link").value = `${location.origin}/t/${code}`;
    $("table-code").textContent = t("code_n", { code });
    $("share-seats").replaceChildren(...seats().map((s) => {
      const what = s.kind === "bot" ? `${t("computer")} (${levelName(s.level)})` : s.taken ? t("joined") : t("waiting_for");
      return el("li", { class: `side-${sideOf(s.seat)}${s.taken ? " taken" : ""}` },
        el("span", { class: "swatch", "aria-hidden": "true" }),
        `${s.kind === "human" && !s.taken ? t("seat_n", { n: s.seat + 1 }) : seatName(s.seat)}: ${what}`);
    }));
    $("open-join").hidden = seated || !freeSeat || !$("join-panel").hidden;
  }

  $("away-panel").hidden = !(seated && state.you.away);

  // At a match's end the last deal's score shows first; the result waits until it is closed.
  const result = state.result;
  const panel = $("result");
  const showing = Boolean(result) && !$("score-dialog").open;
  panel.hidden = !showing;
  $("felt").classList.toggle("over", showing);
  if (!showing) $("confetti").replaceChildren();
  if (showing) {
    const noWinner = result.winner === null || result.winner === undefined;
    const outcome = noWinner ? "draw" : !seated ? "watched" : result.winner === state.you.side ? "won" : "lost";
    let title;
    if (outcome === "draw") title = t("draw");
    else if (outcome === "watched") title = winnerTitle(result.winner);
    else title = t(outcome === "won" ? "you_won" : "you_lost");
    $("result-title").textContent = title;
    const lostSub = state.tournament ? "lost_sub_tournament" : "lost_sub";
    $("result-sub").textContent = outcome === "won" ? t("won_sub") : outcome === "lost" ? t(lostSub) : "";
    $("result-sub").hidden = !$("result-sub").textContent;
    panel.classList.remove("won", "lost", "watched", "draw", ...[0, 1, 2, 3].map((side) => `side-${side}`));
    panel.classList.add(outcome);
    if (!noWinner) panel.classList.add(`side-${result.winner}`);
    $("result-totals").replaceChildren(...result.totals.map((total, side) =>
      el("li", { class: `side-${side}${side === result.winner ? " winner" : ""}` },
        el("span", { class: "side-name", text: teamLabel(side) }),
        el("strong", { text: formatNumber(total) }))));
    renderRatingChanges();
    if (celebrated !== matchNumber) {
      celebrated = matchNumber;
      if (liveResult) celebrate(outcome);
    }
    const hasRecord = result.record_id !== null && result.record_id !== undefined;
    $("download-record").hidden = !hasRecord;
    $("replay-record").hidden = !hasRecord;
    if (hasRecord) {
      $("download-record").href = `/api/records/${result.record_id}?download=1`;
      $("download-record").setAttribute("download", `basra-${result.record_id}.json`);
      $("replay-record").href = `/replay/${result.record_id}`;
    }
    $("rematch").hidden = !seated || Boolean(tournamentOf(state));
  }
  renderTournamentReturn(state, seated);
}

/** A rated match's conduct in words: why it is not rated, who forfeited it. */
function conductLines(from) {
  const conduct = from?.conduct;
  if (!conduct) return [];
  const lines = [];
  if (conduct.unrated === "aborted" && from.aborted == null) lines.push(t("conduct_aborted", { name: seatName(conduct.aborted_by) }));
  else if (conduct.unrated === "same_pair") lines.push(t("conduct_same_pair"));
  for (const seat of conduct.forfeits ?? []) lines.push(t("conduct_forfeit", { name: seatName(seat) }));
  return lines;
}

/**
 * The conduct note of a rated table (in the result panel): an abort, forfeits, who asked
 * for a rematch. What changed since `previous` is announced as it happens.
 */
function renderConduct(previous) {
  const lines = conductLines(state);
  if (previous) {
    const before = conductLines(previous);
    for (const line of lines) if (!before.includes(line)) banner(line, "notice");
  }
  const asks = state.conduct?.rematch_asks ?? [];
  if (asks.includes(mySeat())) lines.push(t("conduct_rematch_waiting"));
  else if (asks.length) lines.push(t("conduct_rematch_asked", { name: asks.map(seatName).join(t("list_comma")) }));
  $("conduct-note").textContent = lines.join(" ");
  $("conduct-note").hidden = !lines.length;
}

/** The rated result: each seat's rating before and after the match. */
function renderRatingChanges() {
  const changes = state.rating_changes ?? state.result?.rating_changes ?? [];
  $("rating-changes").hidden = !changes.length;
  $("rating-change-list").replaceChildren(...changes.map((change) => {
    const delta = change.after - change.before;
    const mine = change.seat === mySeat();
    return el("li", { class: `rating-change${delta > 0 ? " up" : delta < 0 ? " down" : ""}${mine ? " mine" : ""}`, "data-seat": String(change.seat) },
      t("rating_change", { name: seatName(change.seat), before: change.before, after: change.after, change: `${delta > 0 ? "+" : delta < 0 ? "−" : "±"}${Math.abs(delta)}` }));
  }));
}

/** Who won, for a watcher: "Team 2 won" in a partnership, else the player's name. */
function winnerTitle(side) {
  if (state.table.partnership) return t("team_won", { n: side + 1 });
  return t("name_won", { name: sideLabel(side) });
}

const CONFETTI_COLORS = ["#f2c14e", "#c0262d", "#5cc8ff", "#ff8fab", "#9be564", "#fffdf8"];

/** A moment for the result: confetti and a fanfare for a win, a softer sound for a loss. */
function celebrate(outcome) {
  const panel = $("result");
  animateOnce(panel, outcome === "won" ? "cheer" : "settle");
  if (outcome === "won" || outcome === "lost") playSound(outcome === "won" ? "win" : "lose");
  if (outcome !== "won" || !motion()) return;
  const pieces = [];
  for (let i = 0; i < 48; i++) {
    const piece = el("span", { class: `confetti-piece${i % 3 === 0 ? " round" : ""}` });
    piece.style.setProperty("--x", `${Math.random() * 100}%`);
    piece.style.setProperty("--delay", `${Math.random() * 600}ms`);
    piece.style.setProperty("--drift", `${(Math.random() - 0.5) * 160}px`);
    piece.style.setProperty("--spin", `${(Math.random() - 0.5) * 1080}deg`);
    piece.style.setProperty("--fall", `${1700 + Math.random() * 900}ms`);
    piece.style.setProperty("--color", CONFETTI_COLORS[i % CONFETTI_COLORS.length]);
    pieces.push(piece);
  }
  $("confetti").replaceChildren(...pieces);
  setTimeout(() => $("confetti").replaceChildren(), 3400);
}

// Playing.

function playCard(card) {
  if (!myTurn() || pendingPlay) return;
  const options = legalFor(card);
  if (options.length === 0) return;
  if (options.length === 1 || pileGame()) {
    // In a pile game a move is a card: what it takes follows from the pile.
    sendPlay(card, pileGame() ? undefined : options[0].captured);
    return;
  }
  chooseCapture(card, options);
}

function sendPlay(card, captured) {
  if (send({ type: "play", seq: state.seq, card, captured })) pendingPlay = true;
}

function chooseCapture(card, options) {
  const dialog = $("capture-dialog");
  $("capture-for").replaceChildren(sentence("choose_capture_for", { card: miniCard(card) }));
  $("capture-options").replaceChildren(...options.map((option) => {
    const label = option.captured.length ? option.captured.map(cardName).join(" + ") : t("take_nothing");
    const button = el("button", { type: "button", class: "btn capture-option", "aria-label": label });
    if (!option.captured.length) button.append(el("span", { text: label }));
    option.captured.forEach((c, i) => {
      if (i) button.append(el("span", { class: "plus", "aria-hidden": "true", text: "+" }));
      button.append(cardElement(c, { className: "small" }));
    });
    button.addEventListener("click", () => {
      dialog.close();
      sendPlay(card, option.captured);
    });
    return button;
  }));
  dialog.dataset.card = card;
  dialog.dataset.seq = String(state.seq);
  dialog.showModal();
  dialog.querySelector(".capture-option").focus();
}

/**
 * Gives the hand the focus back when a dialog closes: the card named, else the first
 * playable one. A dialog's close event comes a moment after it closes, so a key pressed
 * in between (a number key that focused a card) has the last word: a focus already in
 * the hand stays where it is.
 */
function returnFocusToHand(card) {
  const hand = $("hand");
  if (hand.contains(document.activeElement)) return;
  const target = (card && hand.querySelector(`[data-card="${card}"]`)) ||
    hand.querySelector(".playable") || hand.querySelector("button");
  if (target) target.focus();
}

function showDealScore(score) {
  const dialog = $("score-dialog");
  $("score-title").textContent = t("deal_score", { n: score.deal });
  const header = (side) => (state.table.partnership ? t("team_n", { n: side + 1 }) : sideLabel(side));
  const notes = scoreNotes(score, { seatName, sideName, players: state.table.players });
  $("score-body").replaceChildren(scoreTable(score, state.table.rules, header, state.table.variant),
    ...notes.map((note) => el("p", { class: "hint" }, note)));
  if ($("capture-dialog").open) $("capture-dialog").close();
  if ($("pile-dialog").open) $("pile-dialog").close();
  if (!dialog.open) dialog.showModal();
  $("score-continue").focus();
}

function onHandClick(event) {
  const button = event.target.closest("button.hand-card");
  if (button) playCard(button.dataset.card);
}

function onKey(event) {
  if (dialogOpen() || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest("input, textarea, select")) return;
  moveInHand(event, [...$("hand").querySelectorAll("button.hand-card")]);
}

async function copyLink() {
  const input = $("share-link");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  const button = $("copy-link");
  button.textContent = t("copied");
  setTimeout(() => {
    button.textContent = t("copy_link");
  }, 1500);
}

/** The page of a table that does not exist: one message and the way back, nothing else. */
function showGone() {
  document.body.classList.add("gone");
  if (!$("gone")) {
    document.querySelector("main").prepend(el("section", { id: "gone", class: "panel gone-panel", "aria-labelledby": "gone-title" },
      el("h2", { id: "gone-title" }),
      el("a", { class: "btn btn-primary", href: "/", "data-i18n": "back_to_lobby", text: t("back_to_lobby") })));
  }
  $("gone-title").textContent = t("no_table", { code });
}

function redraw() {
  if ($("gone")) showGone();
  showSound();
  if (!state) {
    if (ended) $("turn").textContent = t(...ended);
    return;
  }
  render(null);
}

function showSound() {
  const button = $("sound-toggle");
  button.setAttribute("aria-pressed", String(soundOn()));
  button.title = t("sound");
}

function onFeltClick(event) {
  const pile = event.target.closest("button.pile");
  if (pile && state) openPile(Number(pile.dataset.side));
}

function init() {
  setupLang(() => {
    redraw();
    redrawAccount();
  });
  setupAccount();
  showSound();
  $("turn").textContent = t("loading");
  $("hand").addEventListener("click", onHandClick);
  $("felt").addEventListener("click", onFeltClick);
  narrowScreen.addEventListener("change", () => state && renderSeats(null));
  $("sound-toggle").addEventListener("click", () => {
    setSound(!soundOn());
    showSound();
  });
  $("pile-close").addEventListener("click", () => $("pile-dialog").close());
  $("pile-dialog").addEventListener("close", () => {
    $("pile-body").replaceChildren();
    const button = document.querySelector(`button.pile[data-side="${pileSide}"]`);
    if (button) button.focus();
  });
  document.addEventListener("keydown", onKey);
  $("join-form").addEventListener("submit", join);
  $("watch-button").addEventListener("click", watch);
  $("open-join").addEventListener("click", () => showJoinPanel(seats()));
  $("copy-link").addEventListener("click", copyLink);
  $("back").addEventListener("click", () => send({ type: "back" }));
  $("rematch").addEventListener("click", () => send({ type: "rematch" }));
  $("capture-cancel").addEventListener("click", () => $("capture-dialog").close());
  $("capture-dialog").addEventListener("close", () => returnFocusToHand($("capture-dialog").dataset.card));
  $("score-continue").addEventListener("click", () => $("score-dialog").close());
  $("score-dialog").addEventListener("close", () => {
    if (state) renderPanels();
    if (!$("result").hidden) $(tournamentOf(state) ? "back-to-tournament" : mySeat() === null ? "replay-record" : "rematch").focus();
    else returnFocusToHand(null);
  });
  setInterval(() => state && tickTimer(), 250);
  setupChat(code, (message) => send(message), seatName);

  setupLeaving({ send, state: () => state, mySeat, seatName, showAlert });
  setupCoach({ code, token: () => storedToken(code)?.token, state: () => state, mySeat, myTurn,
    rated: isRated });
  const stored = storedToken(code);
  if (stored) connect(stored.token);
  else offerSeat();
}

init();
