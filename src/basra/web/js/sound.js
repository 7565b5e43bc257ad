// Sound effects of the table and of notifications, made with the Web Audio API (no files to fetch).
// Off until the player turns them on; the choice is remembered in localStorage.

const STORE_KEY = "basra.sound";

let context = null;

/** Whether sounds are on (off on a first visit). */
export function soundOn() {
  return localStorage.getItem(STORE_KEY) === "on";
}

/** Turns sounds on or off and remembers it; call from a click, so the browser lets audio start. */
export function setSound(on) {
  localStorage.setItem(STORE_KEY, on ? "on" : "off");
  if (on) audio();
}

function audio() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!context) context = new Context();
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

// A browser starts audio only after a gesture: wake the context on the first one.
for (const type of ["pointerdown", "keydown"]) {
  window.addEventListener(type, () => {
    if (soundOn()) audio();
  }, { capture: true, passive: true });
}

/** A note: an oscillator of `type` at `freq` Hz from `at` seconds, fading out over `length`. */
function note(ctx, { freq, at = 0, length = 0.2, type = "sine", gain = 0.18, slide = 0 }) {
  const start = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const amp = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, start);
  if (slide) osc.frequency.exponentialRampToValueAtTime(freq * slide, start + length);
  amp.gain.setValueAtTime(0.0001, start);
  amp.gain.exponentialRampToValueAtTime(gain, start + 0.012);
  amp.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(amp).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.05);
}

/** A soft card slap: a short burst of filtered noise. */
function slap(ctx, { at = 0, gain = 0.35, tone = 1800 } = {}) {
  const start = ctx.currentTime + at;
  const length = 0.09;
  const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * length), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const source = ctx.createBufferSource();
  source.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = tone;
  filter.Q.value = 0.8;
  const amp = ctx.createGain();
  amp.gain.value = gain;
  source.connect(filter).connect(amp).connect(ctx.destination);
  source.start(start);
}

const SOUNDS = {
  play: (ctx) => slap(ctx),
  capture: (ctx) => {
    slap(ctx, { tone: 1400 });
    note(ctx, { freq: 660, at: 0.05, length: 0.12, type: "triangle", gain: 0.12 });
    note(ctx, { freq: 880, at: 0.13, length: 0.16, type: "triangle", gain: 0.12 });
  },
  basra: (ctx) => {
    slap(ctx, { tone: 1200 });
    [523.25, 659.25, 783.99, 1046.5].forEach((freq, i) =>
      note(ctx, { freq, at: 0.06 + i * 0.08, length: 0.3, type: "triangle", gain: 0.14 }));
    note(ctx, { freq: 2093, at: 0.4, length: 0.5, gain: 0.05 });
  },
  turn: (ctx) => { // after the other player's card has landed
    note(ctx, { freq: 987.77, at: 0.25, length: 0.35, gain: 0.08 });
    note(ctx, { freq: 1318.5, at: 0.34, length: 0.45, gain: 0.06 });
  },
  win: (ctx) => {
    [523.25, 659.25, 783.99, 1046.5, 1318.5].forEach((freq, i) =>
      note(ctx, { freq, at: i * 0.11, length: i === 4 ? 0.8 : 0.25, type: "triangle", gain: 0.13 }));
  },
  lose: (ctx) => {
    note(ctx, { freq: 523.25, length: 0.4, type: "triangle", gain: 0.1 });
    note(ctx, { freq: 440, at: 0.3, length: 0.6, type: "triangle", gain: 0.09 });
  },
  notify: (ctx) => { // a notification: a challenge, a table waiting
    note(ctx, { freq: 783.99, length: 0.3, gain: 0.1 });
    note(ctx, { freq: 1174.66, at: 0.12, length: 0.5, gain: 0.08 });
  },
};

/**
 * Plays the sound `name` (play, capture, basra, turn, win, lose, notify) when sounds are on.
 * The body's data-sounds lists the latest sounds played, oldest first (a testing hook).
 */
export function playSound(name) {
  if (!soundOn() || !(name in SOUNDS)) return;
  const body = document.body;
  body.dataset.sounds = `${body.dataset.sounds ?? ""} ${name}`.trim().split(" ").slice(-12).join(" ");
  // Before the page's first gesture the browser would refuse to start audio: stay quiet.
  if (!context && navigator.userActivation && !navigator.userActivation.hasBeenActive) return;
  const ctx = audio();
  if (!ctx || ctx.state === "closed") return;
  try {
    SOUNDS[name](ctx);
  } catch {
    // A sound that cannot play is no reason to stop the game.
  }
}
