// HTTP and WebSocket helpers, and what the browser remembers (name, seat tokens).

import { errorText, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(message, status, code = null, serverMessage = null, retryAfter = null, params = {}) {
    super(message); // in the page's language
    this.status = status;
    this.code = code; // the refusal's code ("name_taken"...), when the server gave one
    this.serverMessage = serverMessage; // the server's own one line (English)
    this.retryAfter = retryAfter; // seconds to wait, from a 429's Retry-After
    this.params = params; // what the refusal's text says besides its code
  }
}

/** A refusal of the server ({code, message, params}) as an
 * ApiError whose message is in the page's language. */
function refusal(response, body) {
  const code = typeof body?.code === "string" ? body.code : null;
  const said = typeof body?.message === "string" ? body.message : null;
  const params = body?.params && typeof body.params === "object" ? { ...body.params } : {};
  const retryAfter = response.headers.get("Retry-After");
  if (!("n" in params) && retryAfter) params.n = Number(retryAfter);
  const message = errorText({ code, params, message: said }, `${response.status} ${response.statusText}`);
  return new ApiError(message, response.status, code, said, retryAfter, params);
}

async function request(url, options = {}) {
  let response;
  try {
    response = await fetch(url, options);
  } catch {
    throw new ApiError(t("err_network"), 0);
  }
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!response.ok) throw refusal(response, body);
  return body;
}

export function getJSON(url) {
  return request(url, { headers: { Accept: "application/json" } });
}

/** POSTs `body` (an object, sent as JSON, or a string sent as it is). */
export function postJSON(url, body = {}) {
  return request(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** DELETEs `url` (a token...); the answer's JSON. */
export function deleteJSON(url) {
  return request(url, { method: "DELETE", headers: { Accept: "application/json" } });
}

export function storedName() {
  return localStorage.getItem("basra.name") || "";
}

export function storeName(name) {
  localStorage.setItem("basra.name", name.trim());
}

const tokenKey = (code) => `basra.token.${code}`;

/** The {seat, token} this browser holds for a table, or null. */
export function storedToken(code) {
  try {
    const value = JSON.parse(localStorage.getItem(tokenKey(code)));
    return value && typeof value.token === "string" ? value : null;
  } catch {
    return null;
  }
}

export function storeToken(code, seat, token) {
  localStorage.setItem(tokenKey(code), JSON.stringify({ seat, token }));
}

export function dropToken(code) {
  localStorage.removeItem(tokenKey(code));
}

/** Close codes after which reconnecting cannot help: no table, no seat, expired, not
 * restorable, too many sockets from this address. */
const FINAL_CLOSES = new Set([4404, 4401, 4410, 4500, 4429]);

/** The close code of a server that stops to restart (SIGTERM): the socket reconnects at
 * once (to another server, or to this one once it is back), without a word unless that
 * takes a few seconds. */
export const RESTART_CLOSE = 1012;
const QUIET_MS = 5000;

/**
 * A table's WebSocket that reconnects with backoff. Calls onMessage(message) for every
 * message, onStatus("open" | "reconnecting") and onClosed(code, errorCode) when it gives
 * up: after a close code of FINAL_CLOSES, or when the seat was opened elsewhere (the
 * server's last error says "replaced").
 */
export class TableSocket {
  constructor(code, token, { onMessage, onStatus = () => {}, onClosed = () => {} }) {
    this.code = code;
    this.token = token;
    this.handlers = { onMessage, onStatus, onClosed };
    this.delay = 500;
    this.stopped = false;
    this.ws = null;
    this.pingTimer = null;
    this.quietTimer = null;
    this.restarting = false;
    this.open();
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const query = this.token ? `?token=${encodeURIComponent(this.token)}` : "";
    return `${scheme}://${location.host}/ws/${encodeURIComponent(this.code)}${query}`;
  }

  open() {
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.delay = 500;
      clearTimeout(this.quietTimer);
      this.restarting = false;
      this.handlers.onStatus("open");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), 25000);
    });
    let lastError = null;
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "error") lastError = message.code;
      this.handlers.onMessage(message);
    });
    ws.addEventListener("close", (event) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws || this.stopped) return;
      if (FINAL_CLOSES.has(event.code) || lastError === "replaced") {
        this.stopped = true;
        this.handlers.onClosed(event.code, lastError);
        return;
      }
      if (event.code === RESTART_CLOSE && !this.restarting) {
        // A restart: reconnect soon, and say so only if it takes a while (the attempts
        // that fail meanwhile stay quiet too).
        this.restarting = true;
        this.quietTimer = setTimeout(() => {
          if (!this.stopped && this.restarting) this.handlers.onStatus("reconnecting");
        }, QUIET_MS);
        this.delay = 250;
      } else if (!this.restarting) {
        this.handlers.onStatus("reconnecting");
      }
      // With jitter, so that the sockets of a server that died do not all come back at
      // the same instant.
      setTimeout(() => {
        if (!this.stopped) this.open();
      }, this.delay * (0.75 + Math.random() / 2));
      // While a server restarts, try every second or so: it is back in a moment.
      this.delay = Math.min(this.delay * 2, this.restarting ? 1000 : 10000);
    });
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  close() {
    this.stopped = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.quietTimer);
    if (this.ws) this.ws.close();
  }
}
