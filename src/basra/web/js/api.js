// HTTP and WebSocket helpers, and what the browser remembers (name, seat tokens).

import { t } from "./i18n.js";

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
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
  if (!response.ok) {
    const message = body && typeof body.error === "string" ? body.error : `${response.status} ${response.statusText}`;
    throw new ApiError(message, response.status);
  }
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

/**
 * A table's WebSocket that reconnects with backoff. Calls onMessage(message) for every
 * message, onStatus("open" | "reconnecting") and onClosed(code) when it gives up
 * (close codes 4404 and 4401).
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
      this.handlers.onStatus("open");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), 25000);
    });
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.handlers.onMessage(message);
    });
    ws.addEventListener("close", (event) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws || this.stopped) return;
      if (event.code === 4404 || event.code === 4401) {
        this.stopped = true;
        this.handlers.onClosed(event.code);
        return;
      }
      this.handlers.onStatus("reconnecting");
      setTimeout(() => {
        if (!this.stopped) this.open();
      }, this.delay);
      this.delay = Math.min(this.delay * 2, 10000);
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
    if (this.ws) this.ws.close();
  }
}
