// How the lobby and the replay page name the players of a finished match and its variant,
// in the page's language. A record names a computer player "Layla (expert)" (its first
// name by seat and its level), an older one only "expert"; a person who gave no name is
// "Guest N". Arabic pages write these in Arabic script; names people chose stay as typed.

import { el } from "./dom.js";
import { hasKey, levelName, t } from "./i18n.js";

const COMPUTER = /^(\S+) \((\w+)\)$/;
const GUEST = /^Guest (\d+)$/;

/** A computer's first name ("Layla") in the page's language, or null if it is none. */
function computerName(name) {
  const key = `name_${name.toLowerCase()}`;
  return hasKey(key) ? t(key) : null;
}

/** A player's name as a record or a seat gives it, in the page's language. */
export function shownName(name, { kind = null, level = null } = {}) {
  if (typeof name !== "string" || !name) return "";
  if (kind === "bot" && level && computerName(name)) {
    return t("bot_label", { name: computerName(name), level: levelName(level) });
  }
  const label = COMPUTER.exec(name);
  if (label && kind !== "human" && computerName(label[1]) && hasKey(`level_${label[2]}`)) {
    return t("bot_label", { name: computerName(label[1]), level: levelName(label[2]) });
  }
  if (kind !== "human" && hasKey(`level_${name}`)) return t("computer_level", { level: levelName(name) });
  const guest = GUEST.exec(name);
  if (guest && hasKey("guest_n")) return t("guest_n", { n: guest[1] });
  return name;
}

/** A name in a <bdi>, so that a name in one script keeps its order in a line of the other. */
export function nameElement(name, options = {}) {
  return el("bdi", { class: "player-name", text: shownName(name, options) });
}

/** A variant's name in the page's language ("egyptian" -> "Egyptian"). */
export function variantName(name) {
  const key = `variant_${name}`;
  return hasKey(key) ? t(key) : name;
}

/** A variant's description in the page's language, or `fallback`. */
export function variantDescription(name, fallback = "") {
  const key = `variant_${name}_desc`;
  return hasKey(key) ? t(key) : fallback;
}

/** A rating pool's name: "egyptian-2" -> "Egyptian · 2 players". */
export function poolName(pool) {
  const cut = pool.lastIndexOf("-");
  const variant = cut > 0 ? pool.slice(0, cut) : pool;
  const players = Number(pool.slice(cut + 1));
  if (!Number.isInteger(players) || cut < 0) return variantName(pool);
  const count = players === 2 ? t("players_2") : t("players_n", { n: players });
  return t("table_title", { variant: variantName(variant), players: count });
}

/** A rating as shown: "1532", with the provisional mark "1532?" while provisional. */
export function ratingText(rating, provisional = false) {
  return `${Math.round(rating)}${provisional ? t("provisional_mark") : ""}`;
}
