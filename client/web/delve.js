// Delve's plugin for macroquad's JS loader (mq_js_bundle.js): the browser's WebSocket,
// localStorage, the page's address, a status object, whether the screen is a touch screen, a
// real text field (so a phone's keyboard comes up), and "Your move" in the tab's title with a
// tone when the page is not in front, for client/web-js (the Rust side, which must change with
// this file: same function names, same VERSION).
//
// Rust polls every frame (the browser gives wasm no threads), so socket events are queued here
// and handed over one at a time. Strings go back to Rust in two steps: a call says how long the
// next string is, then delve_take copies it into memory Rust allocated.
"use strict";
(function () {
  const VERSION = 3;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const sockets = new Map();
  let nextId = 1;
  let ready = new Uint8Array(0);

  function str(ptr, len) {
    return decoder.decode(new Uint8Array(wasm_memory.buffer, ptr, len));
  }
  // Readies `s` for delve_take and returns its length in bytes.
  function hand(s) {
    ready = encoder.encode(s);
    return ready.length;
  }

  function ws_open(ptr, len) {
    const id = nextId++;
    const entry = { ws: null, queue: [] };
    sockets.set(id, entry);
    try {
      const ws = new WebSocket(str(ptr, len));
      entry.ws = ws;
      ws.onopen = () => entry.queue.push({ kind: 0, text: "" });
      ws.onmessage = (e) => {
        if (typeof e.data !== "string") return;
        entry.queue.push({ kind: 1, text: e.data });
        turnNews(e.data);
      };
      // A failed socket raises error then close; the close says it all.
      ws.onclose = (e) => {
        entry.queue.push({ kind: 2, text: e.code + " " + e.reason });
        setYourMove(false); // nobody waits on a player who is not there
      };
    } catch (e) {
      entry.queue.push({ kind: 2, text: "1006 " + e.message });
    }
    return id;
  }

  function ws_send(id, ptr, len) {
    const entry = sockets.get(id);
    if (entry && entry.ws && entry.ws.readyState === WebSocket.OPEN) entry.ws.send(str(ptr, len));
  }

  // -1: nothing; else the kind (0 open, 1 text, 2 close) << 29 | the length of its string.
  function ws_next(id) {
    const entry = sockets.get(id);
    if (!entry || entry.queue.length === 0) return -1;
    const ev = entry.queue.shift();
    return (ev.kind << 29) | hand(ev.text);
  }

  function ws_close(id) {
    const entry = sockets.get(id);
    sockets.delete(id);
    if (entry && entry.ws) {
      entry.ws.onopen = entry.ws.onmessage = entry.ws.onclose = null;
      try { entry.ws.close(1000); } catch (e) { /* already closed */ }
    }
  }

  function take(ptr, len) {
    new Uint8Array(wasm_memory.buffer, ptr, len).set(ready.subarray(0, len));
    ready = new Uint8Array(0);
  }

  function page(which) {
    if (which === 0) return hand(window.location.search);
    if (which === 2) return hand(window.location.pathname);
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    return hand(scheme + window.location.host);
  }

  function storage_get(ptr, len) {
    try {
      const v = window.localStorage.getItem(str(ptr, len));
      return v === null ? -1 : hand(v);
    } catch (e) {
      return -1; // storage disabled: remember nothing
    }
  }

  function storage_set(kptr, klen, vptr, vlen) {
    try { window.localStorage.setItem(str(kptr, klen), str(vptr, vlen)); } catch (e) { /* full or disabled */ }
  }

  // The status the game publishes (screen, frame times); the first one showing a map stamps
  // how long after navigation the map was first drawn.
  function set_status(ptr, len) {
    try {
      const st = JSON.parse(str(ptr, len));
      if (window.delveFirstFrameMs === undefined) window.delveFirstFrameMs = performance.now();
      if (st.map && window.delveFirstMapMs === undefined) window.delveFirstMapMs = performance.now();
      st.first_map_ms = window.delveFirstMapMs;
      st.first_frame_ms = window.delveFirstFrameMs;
      window.delveStatus = st;
    } catch (e) { /* ignore a bad status */ }
  }

  function clock() {
    return performance.now();
  }

  // 1 on a phone or tablet: a coarse pointer and no fine one (a touch laptop with a mouse says
  // 0; the game switches to touch at its first touch anyway).
  function touch_screen() {
    try {
      const coarse = window.matchMedia("(any-pointer: coarse)").matches;
      const fine = window.matchMedia("(any-pointer: fine)").matches;
      return coarse && !fine ? 1 : 0;
    } catch (e) {
      return 0;
    }
  }

  // The text field: an <input> laid over the canvas where the game draws its line, focused so
  // that a phone shows its keyboard. Enter (or the keyboard's send key) hands the text to the
  // game; Escape or leaving the field gives up. The game polls for the outcome.
  let field = null;
  const fieldEvents = [];
  function field_open(x, y, w, h, secret, max, ptr, len) {
    field_close();
    const input = document.createElement("input");
    input.id = "delve-field";
    input.type = secret ? "password" : "text";
    input.maxLength = max;
    input.placeholder = str(ptr, len);
    input.autocomplete = "off";
    input.setAttribute("enterkeyhint", "send");
    input.setAttribute("autocapitalize", "sentences");
    const s = input.style;
    s.position = "fixed";
    s.left = x + "px";
    s.top = y + "px";
    s.width = w + "px";
    s.height = h + "px";
    s.boxSizing = "border-box";
    s.font = Math.round(h * 0.55) + "px monospace";
    s.color = "#fff";
    s.background = "#0a090f";
    s.border = "2px solid #eec454";
    s.padding = "0 8px";
    s.zIndex = 10;
    let done = false;
    input.addEventListener("keydown", (e) => {
      e.stopPropagation();
      if (e.key === "Enter") {
        done = true;
        fieldEvents.push({ kind: 0, text: input.value });
        e.preventDefault();
      } else if (e.key === "Escape") {
        done = true;
        fieldEvents.push({ kind: 1, text: "" });
        e.preventDefault();
      }
    });
    input.addEventListener("blur", () => {
      if (!done) fieldEvents.push({ kind: 1, text: "" });
      done = true;
    });
    document.body.appendChild(input);
    field = input;
    input.focus();
  }

  // -1: nothing yet; else the outcome (0 sent, 1 given up) << 29 | the length of the text.
  function field_next() {
    if (fieldEvents.length === 0) return -1;
    const ev = fieldEvents.shift();
    return (ev.kind << 29) | hand(ev.text);
  }

  function field_close() {
    if (field) {
      const f = field;
      field = null;
      f.remove();
      canvas.focus();
    }
    fieldEvents.length = 0;
  }

  // "Your move, even in another tab": while a `turn_status` names the player (the floor waits
  // for them), the tab's title says so, and if the page is not in front a short tone sounds.
  // Read here, from the socket's messages as they arrive, because a tab in the background draws
  // no frames: the game's loop sleeps until the player comes back. The game says whom to watch
  // for (nobody while watching or dead) and how loud (its volume; 0 muted) with turn_watch.
  const baseTitle = document.title;
  const YOUR_MOVE = "Your move \u2013 ";
  let turnName = "";
  let turnGain = 0;
  let statusTurn = -1;
  let yourMove = false;
  let audio = null;
  window.delveChimes = 0; // tones asked for (played if the page may sound), for the tests

  // Browsers let a page make sound only after a key or a touch: the first one unlocks it.
  function unlockAudio() {
    try {
      if (!audio) audio = new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended") audio.resume();
    } catch (e) {
      audio = null;
    }
  }
  for (const t of ["keydown", "pointerdown", "touchend"]) {
    window.addEventListener(t, unlockAudio, { capture: true });
  }

  // Two short rising notes, generated (no sound file): soft, over in a third of a second.
  function chime() {
    window.delveChimes += 1;
    if (!audio || audio.state !== "running" || turnGain <= 0) return;
    const now = audio.currentTime;
    [[660, 0], [990, 0.13]].forEach(([freq, at]) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + at);
      gain.gain.exponentialRampToValueAtTime(0.25 * turnGain, now + at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.2);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + at);
      osc.stop(now + at + 0.22);
    });
  }

  function setYourMove(on) {
    if (on === yourMove) return;
    yourMove = on;
    document.title = on ? YOUR_MOVE + baseTitle : baseTitle;
    if (on && (document.hidden || !document.hasFocus())) chime();
  }

  // A turn_status for the coming turn names whom the floor waits for; the update that resolves
  // that turn (its `turn` at least the status's) ends the wait. Other messages are not parsed.
  function turnNews(text) {
    if (!turnName || !(yourMove || text.includes('"turn_status"'))) return;
    let msg;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      return;
    }
    if (msg.type === "turn_status") {
      statusTurn = msg.turn;
      setYourMove((msg.waiting_for || []).includes(turnName));
    } else if (msg.type === "update" && msg.turn >= statusTurn) {
      setYourMove(false);
    }
  }

  function turn_watch(ptr, len, gain) {
    turnName = str(ptr, len);
    turnGain = gain;
    if (!turnName) setYourMove(false);
  }

  miniquad_add_plugin({
    name: "delve_web",
    version: VERSION,
    register_plugin: function (importObject) {
      const env = importObject.env;
      env.delve_ws_open = ws_open;
      env.delve_ws_send = ws_send;
      env.delve_ws_next = ws_next;
      env.delve_ws_close = ws_close;
      env.delve_take = take;
      env.delve_page = page;
      env.delve_storage_get = storage_get;
      env.delve_storage_set = storage_set;
      env.delve_set_status = set_status;
      env.delve_clock = clock;
      env.delve_touch_screen = touch_screen;
      env.delve_field_open = field_open;
      env.delve_field_next = field_next;
      env.delve_field_close = field_close;
      env.delve_turn_watch = turn_watch;
    },
  });
})();
