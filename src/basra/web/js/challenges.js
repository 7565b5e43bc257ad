// What the pages share about challenges (docs/api.md, "Challenges"): a challenge's game
// in words, the reasons to decline one, and the answers that lead to a table.
//
// Accepting (POST /api/challenge/{id}/accept) answers the accepter's seat and its token:
// the token is stored as after joining a table, and the page goes there. The challenger's
// own token comes in its "challenge_accepted" notification (keepSeat stores it).

import { el } from "./dom.js";
import { postJSON, storeToken } from "./api.js";
import { t } from "./i18n.js";
import { variantName } from "./matches.js";

/** Why a challenge is declined, as the server takes them (the pages word each). */
export const DECLINE_REASONS = ["generic", "later", "too_fast", "too_slow", "casual", "rated", "variant", "not_bots"];

/** The turn timers a challenge offers, in seconds (0: none). */
export const TURN_CHOICES = [0, 15, 30, 60, 120, 300];

const path = (id) => `/api/challenge/${encodeURIComponent(id)}`;

/** A turn timer in words: "No timer", "30 s a turn", "2 min a turn". */
export function timerText(seconds) {
  if (!seconds) return t("challenge_no_timer");
  if (seconds % 60 === 0) return t("challenge_timer_minutes", { n: seconds / 60 });
  return t("challenge_timer_seconds", { n: seconds });
}

/** A challenge's game in one line: "Egyptian · 2 players · Casual · 1 min a turn". */
export function gameText(challenge) {
  const players = challenge.players === 2 ? t("players_2") : t("players_n", { n: challenge.players });
  return [variantName(challenge.variant), players, t(challenge.rated ? "rated" : "casual"), timerText(challenge.turn_seconds)]
    .join(" · ");
}

/** The reason a challenge was declined, in words. */
export function reasonText(reason) {
  return DECLINE_REASONS.includes(reason) ? t(`challenge_reason_${reason}`) : t("challenge_reason_generic");
}

/** A <select> of the reasons to decline, "generic" first. */
export function reasonSelect(id, chosen = "generic") {
  const select = el("select", { id, class: "reason-select" });
  select.append(...DECLINE_REASONS.map((reason) => el("option", { value: reason, text: reasonText(reason) })));
  select.value = chosen;
  return select;
}

/** Stores the seat a notification or an answer gives ({table, seat, token}). */
export function keepSeat(seat) {
  if (seat && typeof seat.table === "string" && typeof seat.token === "string") {
    storeToken(seat.table, seat.seat, seat.token);
  }
}

/** The table's page of a seat kept. */
export function tableUrl(seat) {
  return seat.url || `/t/${encodeURIComponent(seat.table)}`;
}

/** Accepts a challenge, keeps the seat and goes to the table (an ApiError when refused). */
export async function acceptChallenge(id) {
  const seat = await postJSON(`${path(id)}/accept`);
  keepSeat(seat);
  location.assign(tableUrl(seat));
  return seat;
}

/** Declines a challenge made to you, with a reason the challenger is told. */
export function declineChallenge(id, reason = "generic") {
  return postJSON(`${path(id)}/decline`, { reason });
}

/** Takes back a challenge you made. */
export function cancelChallenge(id) {
  return postJSON(`${path(id)}/cancel`);
}

/** Marks notifications read ({ids}, or all without them); the unread count left. */
export async function markRead(ids = null) {
  const answer = await postJSON("/api/notifications/read", ids ? { ids } : {});
  return answer?.unread ?? 0;
}
