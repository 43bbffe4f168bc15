#!/usr/bin/env python3
"""A small Delve bot, written from docs/PROTOCOL.md with nothing but the Python standard library.

It joins a dungeon, explores, fights the monsters next to it, picks up what it sees, wears the best
weapon, armour and microchip it carries, drinks and bandages when it must, opens doors (locked ones
with a Key), spends its stat points, takes the stairs down, and starts a new character when it dies
or wins. It keeps an exact copy of its view from the server's diffs, and every 20 turns (and at the
end) checks that copy against a fresh snapshot (resync).

    python3 examples/bot.py ws://127.0.0.1:7777 mydungeon Robo 300

It exits with status 0 if it played every turn and every check matched, 1 otherwise. Its last line
says what it did:

    played 300 turns, 0 deaths, 0 wins; now level 1 on floor 1, 5 kills, 3 items, score 78; ...

The game's rules (what a move does, combat, items, effects) are in docs/RULES.md.
"""
import base64
import hashlib
import json
import os
import random
import socket
import struct
import sys
import time
from collections import deque
from urllib.parse import urlsplit

PROTOCOL_VERSION = 3
DIRS = {"n": (0, -1), "ne": (1, -1), "e": (1, 0), "se": (1, 1),
        "s": (0, 1), "sw": (-1, 1), "w": (-1, 0), "nw": (-1, -1)}
TILE_CHARS = " #.><+'*"   # unknown, wall, floor, stairs down, stairs up, closed, open, locked door
WALKABLE = ".><'"
PACK_SIZE = 26            # INVENTORY_SLOTS
PACE = 0.1                # seconds before each action: alone on a floor, a turn resolves at once,
                          # and the server allows 20 messages a second


# ---------------------------------------------------------------------------------------------
# A minimal WebSocket client (RFC 6455): text frames out (masked, as a client must), text, ping
# and close frames in. Enough for Delve, which speaks one JSON message per text frame.

class ConnectionClosed(Exception):
    """The server closed the connection (or the network did)."""


class WebSocket:
    GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    def __init__(self, url, timeout=10.0):
        parts = urlsplit(url)
        if parts.scheme != "ws":
            raise ValueError(f"only ws:// URLs are supported, not {url!r}")
        host, port = parts.hostname, parts.port or 80
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.reader = self.sock.makefile("rb")
        key = base64.b64encode(os.urandom(16)).decode()
        path = parts.path or "/"
        request = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   f"Sec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        status = self.reader.readline().decode("latin-1")
        if " 101 " not in status:
            raise ConnectionClosed(f"upgrade refused: {status.strip()!r}")
        headers = {}
        while True:
            line = self.reader.readline().decode("latin-1").strip()
            if not line:
                break
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        want = base64.b64encode(hashlib.sha1((key + self.GUID).encode()).digest()).decode()
        if headers.get("sec-websocket-accept") != want:
            raise ConnectionClosed("the server's Sec-WebSocket-Accept does not match")
        self.sock.settimeout(None)   # a dungeon may wait for other players as long as it likes

    def _exactly(self, n):
        data = self.reader.read(n)
        if data is None or len(data) < n:
            raise ConnectionClosed("the connection ended")
        return data

    def _send_frame(self, opcode, payload):
        head = bytearray([0x80 | opcode])          # FIN, one frame per message
        n = len(payload)
        if n < 126:
            head.append(0x80 | n)                   # the mask bit: clients always mask
        elif n < 1 << 16:
            head.append(0x80 | 126)
            head += struct.pack("!H", n)
        else:
            head.append(0x80 | 127)
            head += struct.pack("!Q", n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes(head) + mask + body)

    def send(self, text):
        self._send_frame(0x1, text.encode("utf-8"))

    def recv(self):
        """The next text message, as a string. Answers pings; raises ConnectionClosed on a close."""
        message, opcode = bytearray(), None
        while True:
            b0, b1 = self._exactly(2)
            op, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._exactly(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._exactly(8))[0]
            mask = self._exactly(4) if b1 & 0x80 else None
            payload = self._exactly(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if op == 0x8:                           # close: answer it, then stop
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                reason = payload[2:].decode("utf-8", "replace")
                try:
                    self._send_frame(0x8, payload[:2])
                except OSError:
                    pass
                raise ConnectionClosed(f"closed by the server: {code} {reason!r}")
            if op == 0x9:                           # ping: pong with the same payload
                self._send_frame(0xA, payload)
                continue
            if op == 0xA:                           # an unasked pong: ignore it
                continue
            if op in (0x1, 0x2):
                opcode, message = op, bytearray(payload)
            elif op == 0x0:                         # a continuation of a fragmented message
                message += payload
            if b0 & 0x80 and opcode is not None:
                if opcode != 0x1:
                    raise ConnectionClosed("the server sent a binary frame")
                return message.decode("utf-8")

    def close(self):
        try:
            self._send_frame(0x8, struct.pack("!H", 1000))
        except OSError:
            pass
        self.sock.close()


# ---------------------------------------------------------------------------------------------
# The view, kept exactly as the server's View (docs/PROTOCOL.md, "Applying an update").

# The fields a record leaves out while they hold these values (PROTOCOL.md §5 and §6).
ME_DEFAULTS = {"cause": None, "effects": [], "victory": False, "resting": False}
ENTITY_DEFAULTS = {"hp": 0, "max_hp": 0, "level": 0, "monster": None, "item": None}


def patch(record, changes, defaults):
    """Sets each field a patch holds on `record`; a field back at its default is removed, as a
    snapshot would leave it out."""
    for k, v in changes.items():
        if k in defaults and v == defaults[k]:
            record.pop(k, None)
        else:
            record[k] = v


class View:
    """One player's view, kept exactly as the server's View."""

    def __init__(self, v):
        self.turn, self.depth = v["turn"], v["depth"]
        self.width, self.height = v["map"]["width"], v["map"]["height"]
        self.cells = list("".join(v["map"]["rows"]))          # row-major, one char per tile
        if len(self.cells) != self.width * self.height:
            raise ValueError("the map's rows do not fill width x height")
        self.visible = [list(r) for r in v["visible"]]          # [[start, len], ...]
        self.entities = {e["id"]: e for e in v["entities"]}
        self.me = v["me"]
        self.party = v["party"]          # every player in the dungeon, wherever they are
        self.watchers = v["watchers"]    # who is watching whom
        self.inventory = v["inventory"]  # the pack, in pick-up order

    def apply(self, turn, diff):
        """Applies an update's diff; raises ValueError (and changes nothing) if it does not fit."""
        writes = []
        for span in diff.get("tiles", []):
            x, y, tiles = span["x"], span["y"], span["tiles"]
            if not (0 <= x and 0 <= y < self.height and x + len(tiles) <= self.width):
                raise ValueError(f"tile span {span} leaves the map")
            for k, c in enumerate(tiles):
                if c not in TILE_CHARS:
                    raise ValueError(f"unknown tile character {c!r}")
                writes.append((y * self.width + x + k, c))
        if diff.get("me", {}).get("depth", self.depth) != self.depth:
            raise ValueError("diff for another floor")
        kept = set(self.entities) - set(diff.get("removed", []))
        kept |= {e["id"] for e in diff.get("entities", [])}
        for p in diff.get("changed", []):
            if p["id"] not in kept:
                raise ValueError(f"a patch for entity {p['id']}, which is not in sight")
        members = {m["id"] for m in diff.get("party", self.party)}
        for p in diff.get("party_changed", []):
            if p["id"] not in members:
                raise ValueError(f"a patch for party member {p['id']}, who is not in the party")
        for i, c in writes:
            self.cells[i] = c
        if "visible" in diff:
            self.visible = [list(r) for r in diff["visible"]]   # replaced, never merged
        for eid in diff.get("removed", []):
            self.entities.pop(eid, None)
        for e in diff.get("entities", []):
            self.entities[e["id"]] = e                          # came into sight: whole
        for p in diff.get("changed", []):
            patch(self.entities[p["id"]], p, ENTITY_DEFAULTS)   # only the fields that changed
        patch(self.me, diff.get("me", {}), ME_DEFAULTS)
        if "party" in diff:
            self.party = diff["party"]      # someone joined or left: the whole list
        for p in diff.get("party_changed", []):
            patch(next(m for m in self.party if m["id"] == p["id"]), p, {})
        if "watchers" in diff:
            self.watchers = diff["watchers"]
        if "inventory" in diff:
            self.inventory = diff["inventory"]
        self.turn = turn

    def tile(self, x, y):
        if 0 <= x < self.width and 0 <= y < self.height:
            return self.cells[y * self.width + x]
        return " "

    def to_wire(self):
        """This view in the server's JSON shape, to compare with a snapshot."""
        w = self.width
        return {"turn": self.turn, "depth": self.depth,
                "map": {"width": w, "height": self.height,
                        "rows": ["".join(self.cells[y * w:(y + 1) * w]) for y in range(self.height)]},
                "visible": self.visible,
                "entities": [self.entities[k] for k in sorted(self.entities)],
                "me": self.me, "party": self.party, "watchers": self.watchers,
                "inventory": self.inventory}


# ---------------------------------------------------------------------------------------------
# Choosing what to do.

def first_step(view, goal, taken):
    """The first direction of a shortest walk over known tiles, around everyone in `taken`, to
    the nearest cell where goal(x, y) holds; None if there is none. A closed door counts as
    walkable (walking into it opens it), and so does a locked one while we carry a Key."""
    passable = WALKABLE + "+"
    if any(i.get("use") == "unlock" for i in view.inventory):
        passable += "*"
    start = (view.me["pos"]["x"], view.me["pos"]["y"])
    came = {start: None}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        if p != start and goal(*p):
            while came[p][0] != start:
                p = came[p][0]
            return came[p][1]
        for d, (dx, dy) in DIRS.items():
            q = (p[0] + dx, p[1] + dy)
            if q not in came and q not in taken and view.tile(*q) in passable:
                came[q] = (p, d)
                queue.append(q)
    return None


def gear_worth(item):
    """How much we like a piece of equipment: the sum of its bonus."""
    return sum(item.get("bonus", {}).values())


def pack_action(view, urgent):
    """Something worth doing with the pack this turn (only healing and curing if `urgent`), or
    None."""
    me, pack = view.me, view.inventory
    effects = me.get("effects", [])
    if "stun" in effects or "confusion" in effects:
        return None                                      # the pack is locked

    def first(use):
        """The first item in the pack for this use (each item says what it is for)."""
        return next((i for i in pack if i.get("use") == use), None)
    if "poison" in effects and first("cure_poison"):
        return {"type": "use", "item": first("cure_poison")["id"]}
    if me["hp"] * 2 < me["max_hp"] and first("heal"):
        return {"type": "use", "item": first("heal")["id"]}
    if urgent:
        return None
    for slot in ("weapon", "armour", "microchip"):
        worn = next((i for i in pack if i.get("slot") == slot and i.get("equipped")), None)
        spare = [i for i in pack if i.get("slot") == slot and not i.get("equipped")]
        best = max(spare, key=gear_worth, default=None)
        if best and gear_worth(best) > (gear_worth(worn) if worn else 0):
            return {"type": "equip", "item": best["id"]}
    return None


def line(a, b):
    """The cells a thrown thing flies from a to b, both included (the server's line, PROTOCOL.md
    throw and fire)."""
    (x, y), (tx, ty) = a, b
    dx, dy = abs(tx - x), -abs(ty - y)
    sx, sy = (tx > x) - (tx < x), (ty > y) - (ty < y)
    err, out = dx + dy, []
    while True:
        out.append((x, y))
        if (x, y) == (tx, ty):
            return out
        e2 = 2 * err
        if e2 >= dy:
            err, x = err + dy, x + sx
        if e2 <= dx:
            err, y = err + dx, y + sy


def throw_action(view, creatures):
    """Something thrown (its `use` says so) at the nearest monster in its range, three cells away
    or more (out of any blast), along a line no wall, door or creature blocks; or None."""
    me = view.me
    effects = me.get("effects", [])
    if "stun" in effects or "confusion" in effects:
        return None                                      # the pack is locked
    thrown = next((i for i in view.inventory if i.get("use") == "throw"), None)
    if thrown is None:
        return None
    here = (me["pos"]["x"], me["pos"]["y"])
    taken = {(e["pos"]["x"], e["pos"]["y"]) for e in creatures}
    r = thrown.get("range", 0)
    best = None
    for e in creatures:
        if e["kind"] != "monster":
            continue
        at = (e["pos"]["x"], e["pos"]["y"])
        dx, dy = at[0] - here[0], at[1] - here[1]
        if max(abs(dx), abs(dy)) < 3 or dx * dx + dy * dy > r * (r + 1):
            continue
        cells = line(here, at)[1:-1]
        if all(view.tile(*c) in WALKABLE and c not in taken for c in cells):
            if best is None or dx * dx + dy * dy < best[0]:
                best = (dx * dx + dy * dy, at)
    if best is None:
        return None
    return {"type": "throw", "item": thrown["id"], "at": list(best[1])}


def pick_action(view, refused):
    """Heal or cure if we must; else attack a monster next to us; else put on better gear; else
    throw something at a monster a few cells off; else take the stairs down if we stand on them;
    else rest if hurt with no monster in sight; else head for an item in sight, a known `>` or
    the nearest unexplored edge; else a random step; else wait."""
    me = view.me
    x, y = me["pos"]["x"], me["pos"]["y"]
    others = [e for e in view.entities.values() if e["id"] != me["id"]]
    creatures = [e for e in others if e["kind"] in ("player", "monster")]
    taken = {(e["pos"]["x"], e["pos"]["y"]) for e in creatures}   # items do not block
    act = pack_action(view, urgent=True)
    if act and describe(act) not in refused:
        return act
    for e in creatures:
        if e["kind"] == "monster":
            d = next((d for d, (dx, dy) in DIRS.items()
                      if (x + dx, y + dy) == (e["pos"]["x"], e["pos"]["y"])), None)
            if d and d not in refused:
                return {"type": "move", "dir": d}          # moving into a monster attacks it
    act = pack_action(view, urgent=False)
    if act and describe(act) not in refused:
        return act
    act = throw_action(view, creatures)
    if act and describe(act) not in refused:
        return act
    if view.tile(x, y) == ">" and "descend" not in refused:
        return {"type": "descend"}
    monsters_in_sight = any(e["kind"] == "monster" for e in creatures)
    if me["hp"] * 2 < me["max_hp"] and not monsters_in_sight and "rest" not in refused:
        return {"type": "rest"}                           # the server rests on by itself
    loot = {(e["pos"]["x"], e["pos"]["y"]) for e in others if e["kind"] == "item"}
    goals = []
    if loot and len(view.inventory) < PACK_SIZE:
        goals.append(lambda gx, gy: (gx, gy) in loot)     # walking onto an item picks it up
    if ">" in view.cells:
        goals.append(lambda gx, gy: view.tile(gx, gy) == ">")
    goals.append(lambda gx, gy: any(view.tile(gx + dx, gy + dy) == " " for dx, dy in DIRS.values()))
    for goal in goals:
        d = first_step(view, goal, taken)
        if d and d not in refused:
            return {"type": "move", "dir": d}
    options = [d for d, (dx, dy) in DIRS.items()
               if d not in refused and view.tile(x + dx, y + dy) in WALKABLE + "+"
               and (x + dx, y + dy) not in taken]
    if not options:
        return {"type": "wait"}
    return {"type": "move", "dir": random.choice(options)}


def describe(action):
    """What to remember about an action the server refused."""
    return f"{action['type']} {action['item']}" if "item" in action else action.get("dir", action["type"])


# ---------------------------------------------------------------------------------------------
# The conversation.

def run(url, dungeon, name, turns, check_every=20):
    ws = WebSocket(url)
    send = lambda msg: ws.send(json.dumps(msg))   # noqa: E731
    send({"type": "hello", "version": PROTOCOL_VERSION, "name": name, "dungeon": dungeon})
    view, seq = None, 0
    stale = False          # missed or bad update: ignore updates until the snapshot comes
    checking = False       # sent a resync to compare our copy with the server's
    done = False           # the last check is under way
    reborn = False         # sent new_character; waiting for the new welcome
    checks = failures = played = deaths = wins = 0
    next_check = check_every
    acted_at = None        # (depth, turn) when we sent our action; None = free to act
    refused, last = set(), None

    try:
        while True:
            msg = json.loads(ws.recv())
            kind = msg["type"]
            if kind == "welcome":               # after hello, and after new_character
                view, seq = View(msg["view"]), msg["seq"]
                acted_at, reborn, refused = None, False, set()
                print(f"joined {msg['dungeon']} as player {msg['player_id']} at {view.me['pos']}")
            elif kind == "snapshot":
                if checking and not stale:
                    checks += 1
                    if view.to_wire() != msg["view"]:
                        failures += 1
                        print(f"MISMATCH before snapshot seq {msg['seq']}")
                checking = stale = False
                view, seq = View(msg["view"]), msg["seq"]
            elif kind == "update":
                if stale:
                    continue                    # a snapshot is on its way
                try:
                    if view is None or msg["seq"] != seq + 1:
                        raise ValueError(f"expected seq {seq + 1}, got {msg['seq']}")
                    view.apply(msg["turn"], msg["diff"])
                    seq = msg["seq"]
                except ValueError as e:
                    print("resync:", e)
                    stale = True
                    send({"type": "resync"})
                    continue
                for ev in msg.get("events", []):
                    if ev["type"] == "message":
                        print(f"floor {view.depth} turn {msg['turn']}: {ev['text']}")
                    elif ev["type"] == "chat":
                        print(f"floor {view.depth} turn {msg['turn']}: <{ev['from']}> {ev['text']}")
            elif kind == "error":
                print(f"error {msg['code']}: {msg['message']}")
                if view is None or reborn:
                    return False                # hello or new_character refused
                if msg["code"] in ("rejected", "cannot_act", "no_such_item", "pack_full"):
                    refused.add(last)           # not queued: choose again
                    acted_at = None
            # "turn_status" needs no answer: it only says whom the floor is waiting for.

            if view is None or stale or checking or reborn:
                continue
            if done:
                break
            # Our turn is over when our floor's clock moved on, or we are on another floor
            # (the stairs bring a snapshot of the new floor, whose clock is its own).
            if acted_at is not None and (view.depth, view.turn) != acted_at:
                acted_at, refused = None, set()
                played += 1
            if acted_at is not None:
                continue
            if played >= next_check or played >= turns:
                done = played >= turns
                next_check = played + check_every
                checking = True
                send({"type": "resync"})
            elif view.me.get("resting"):
                pass                            # the server rests on for us; any action ends it
            elif not view.me["alive"] or view.me.get("victory"):
                if view.me["alive"]:
                    wins += 1
                    print(f"won! score {view.me['score']}")
                else:
                    deaths += 1
                    print(f"died: {view.me.get('cause')}; level {view.me['level']}, "
                          f"{view.me['kills']} kills, deepest floor {view.me['deepest']}, "
                          f"score {view.me['score']}")
                reborn = True
                send({"type": "new_character"})
            else:
                time.sleep(PACE)
                for _ in range(view.me["points"]):  # takes no turn; answered before the action
                    send({"type": "level_up", "stat": random.choice(["max_hp", "attack", "defence"])})
                action = pick_action(view, refused)
                last = describe(action)
                acted_at = (view.depth, view.turn)
                send(action)
    except ConnectionClosed as e:
        print(f"connection closed: {e}")
        return False
    finally:
        ws.close()
    me = view.me
    print(f"played {played} turns, {deaths} deaths, {wins} wins; now level {me['level']} on "
          f"floor {view.depth}, {me['kills']} kills, {len(view.inventory)} items, score "
          f"{me['score']}; {checks} checks, {failures} mismatches")
    return played >= turns and checks > 0 and failures == 0


def main(argv):
    if len(argv) != 5:
        print(f"usage: {argv[0]} ws://HOST:PORT DUNGEON NAME TURNS", file=sys.stderr)
        return 2
    url, dungeon, name = argv[1], argv[2], argv[3]
    try:
        turns = int(argv[4])
    except ValueError:
        print(f"TURNS must be a whole number, not {argv[4]!r}", file=sys.stderr)
        return 2
    sys.stdout.reconfigure(line_buffering=True)   # show each line as it comes, even in a pipe
    try:
        return 0 if run(url, dungeon, name, turns) else 1
    except (OSError, ConnectionClosed) as e:
        print(f"cannot play: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
