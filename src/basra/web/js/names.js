// How players are named on the pages, as src/basra/players/names.py names them: a computer seat
// by its first name (Karim, Layla, Nadia, Sami, by seat) with its level beside it, a person
// who gave no name as "Guest N". Arabic pages write these names in Arabic script.

import { t } from "./i18n.js";

export const COMPUTER_NAMES = ["Karim", "Layla", "Nadia", "Sami"];

const GUEST = /^Guest (\d+)$/;

/**
 * The name of a seat (an entry of the state's table.seats, or of /api/tables/{code}) in
 * the page's language; `seat` names an empty seat.
 */
export function playerName(info, seat = info?.seat ?? 0) {
  if (info?.kind === "bot") {
    const known = COMPUTER_NAMES.includes(info.name) ? info.name : COMPUTER_NAMES[seat % COMPUTER_NAMES.length];
    return t(`name_${known.toLowerCase()}`);
  }
  const name = info?.account || info?.name; // a logged-in player by their account's name
  if (!name) return t("seat_n", { n: seat + 1 });
  if (info?.bot) return t("bot_named", { name }); // a bot account is marked BOT
  const guest = GUEST.exec(name);
  return guest ? t("guest_n", { n: Number(guest[1]) }) : name;
}

/** The placeholder of a name field for a person about to take `seat`: what they will be called. */
export function guestName(seat) {
  return t("guest_n", { n: seat + 1 });
}
