// Delve's plugin for macroquad's JS loader (mq_js_bundle.js): the browser's WebSocket,
// localStorage, the page's address, a status object, whether the screen is a touch screen, and a
// real text field (so a phone's keyboard comes up), for client/web-js (the Rust side, which must
// change with this file: same function names, same VERSION).
//
// Rust polls every frame (the browser gives wasm no threads), so socket events are queued here
// and handed over one at a time. Strings go back to Rust in two steps: a call says how long the
// next string is, then delve_take copies it into memory Rust allocated.
"use strict";
(function () {
  const VERSION = 2;
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
        if (typeof e.data === "string") entry.queue.push({ kind: 1, text: e.data });
      };
      // A failed socket raises error then close; the close says it all.
      ws.onclose = (e) => entry.queue.push({ kind: 2, text: e.code + " " + e.reason });
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
    },
  });
})();
