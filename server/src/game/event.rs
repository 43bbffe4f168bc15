//! What happens in the world. Executing an action yields events; `Dungeon::apply` is the only
//! code that changes the world's state, one event at a time (the floors' dice are the one
//! exception: rolling them is how the rules draw chance). Events are facts, never
//! sentences: the view layer turns the events each player could see into protocol events and
//! the log lines that tell them in that player's words.

use std::sync::Arc;

use delve_protocol::{Effect, Pos};

use super::EntityId;
use super::action::{Action, ActionError};
use super::item::Item;
use super::monster::{Ai, Monster};
use super::stats::Stat;

/// Who took part in an event, as they were at that moment (names and places are kept so the
/// event can be told after the fact, even of a monster that died in it). Names are shared with
/// the character or the content, not copied: a brawl makes events every turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    pub id: EntityId,
    pub name: Arc<str>,
    pub pos: Pos,
    pub player: bool,
}

/// Why a rest ended by itself (a rest the player ends by choosing something else needs no
/// reason).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestEnd {
    /// HP are full and no status effect is left.
    Rested,
    /// A monster came into view (the nearest one's name).
    Monster(Arc<str>),
    /// A friend came into view (its name).
    Friend(Arc<str>),
    /// The character was attacked.
    Attacked,
    /// Its player's connection dropped: nobody is there to rest.
    Left,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// An entity stepped from one cell to the next.
    Moved {
        id: EntityId,
        from: Pos,
        to: Pos,
    },
    /// A new character called `name` came into being, about to arrive at `pos` on floor 1.
    Created {
        id: EntityId,
        name: Arc<str>,
        pos: Pos,
    },
    /// A finished character whose player had gone was forgotten (to make room, or because its
    /// player started again as a new one).
    Forgotten {
        id: EntityId,
    },
    /// A connection took over (`true`) or dropped (`false`) a character.
    Connected {
        id: EntityId,
        connected: bool,
    },
    /// A character appeared on a floor by joining the dungeon.
    Arrived {
        id: EntityId,
        depth: u8,
        pos: Pos,
    },
    /// A character whose player has been away too long left its floor for now.
    Lifted {
        id: EntityId,
        pos: Pos,
    },
    /// A lifted character came back, at `pos`.
    Returned {
        id: EntityId,
        pos: Pos,
    },
    /// A character took the stairs from floor `from` to floor `to`.
    ChangedFloor {
        id: EntityId,
        from: u8,
        to: u8,
        from_pos: Pos,
        pos: Pos,
    },
    /// An attack: `damage` is `None` for a miss. `with` names what struck when it was not a
    /// blow: a thrown Dart, a Slingshot's shot, a Pipe Bomb's blast.
    Attacked {
        attacker: Actor,
        target: Actor,
        damage: Option<i32>,
        with: Option<Arc<str>>,
    },
    /// `id` threw or shot: what (`what`, named) flew from `from` and stopped at `to`. `key` is
    /// the content key of a thrown item (for its picture); `item` the thrown item itself, and
    /// whether it lies where it stopped (else it is used up).
    Flew {
        depth: u8,
        id: EntityId,
        from: Pos,
        to: Pos,
        what: Arc<str>,
        key: Option<Arc<str>>,
        item: Option<(EntityId, bool)>,
    },
    /// A blast of `radius` went off at `at` (a thrown `what`).
    Exploded {
        depth: u8,
        at: Pos,
        radius: i32,
        what: Arc<str>,
    },
    /// Monster `id` is dazed: it loses its next `turns` actions.
    Dazed {
        depth: u8,
        id: EntityId,
        turns: u8,
    },
    /// Monster `id` squeaked for help: the monsters within earshot come for `at`.
    Called {
        depth: u8,
        id: EntityId,
        at: Pos,
    },
    /// A wandering monster arrived on floor `depth` (out of every player's sight).
    Spawned {
        depth: u8,
        monster: Box<Monster>,
    },
    /// A character was carried from `from` to `to` on its floor (a Pocket Teleporter).
    Teleported {
        id: EntityId,
        from: Pos,
        to: Pos,
    },
    /// A character learned the whole map of floor `depth` (a Floor Plan).
    Revealed {
        id: EntityId,
        depth: u8,
    },
    /// Something died, at `killer`'s hand if anyone's.
    Died {
        victim: Actor,
        killer: Option<Actor>,
    },
    GainedXp {
        id: EntityId,
        amount: u32,
    },
    /// A level gained. Monsters spend their stat point at once on `stat`.
    LeveledUp {
        id: EntityId,
        level: u32,
        stat: Option<Stat>,
    },
    /// A player spent a stat point.
    SpentPoint {
        id: EntityId,
        stat: Stat,
    },
    /// HP regained: by natural healing, or by using the item named `by`.
    Healed {
        id: EntityId,
        amount: i32,
        by: Option<Arc<str>>,
    },
    /// A floor's turn ended: its clock advances, and so do the turn counts of the characters
    /// who were on it when the turn began and are still alive. `missed` are those the turn
    /// waited for that did not choose (it resolved when its timer ran out).
    TurnEnded {
        depth: u8,
        players: Vec<EntityId>,
        missed: Vec<EntityId>,
    },
    /// A door opened: walked into by `by`, unlocked with the Key `key` if it was locked (the
    /// Key is gone).
    DoorOpened {
        depth: u8,
        pos: Pos,
        by: EntityId,
        key: Option<EntityId>,
    },
    /// A character picked up the item lying at `pos`.
    PickedUp {
        id: EntityId,
        item: EntityId,
        pos: Pos,
        name: Arc<str>,
    },
    /// A character put an item down where it stands (taking it off first if worn).
    Dropped {
        id: EntityId,
        item: EntityId,
        pos: Pos,
        name: Arc<str>,
        /// Let fall by a character who died, rather than put down.
        fell: bool,
    },
    Equipped {
        id: EntityId,
        item: EntityId,
        name: Arc<str>,
    },
    Unequipped {
        id: EntityId,
        item: EntityId,
        name: Arc<str>,
    },
    /// An item in a pack was used up and is gone.
    UsedUp {
        id: EntityId,
        item: EntityId,
    },
    EffectStarted {
        id: EntityId,
        effect: Effect,
    },
    EffectEnded {
        id: EntityId,
        effect: Effect,
        /// Cured by an item rather than shaken off.
        cured: bool,
    },
    /// Poison took `amount` HP (it never takes the last one).
    PoisonHurt {
        id: EntityId,
        amount: i32,
    },
    /// The Mouse King fell: the game ends in victory for `winners`, every living character in
    /// the dungeon.
    Victory {
        king: Actor,
        winners: Vec<EntityId>,
    },
    /// A character lost its turn to an effect (`cause`: stunned).
    LostTurn {
        id: EntityId,
        cause: Effect,
    },
    /// A step was stopped by a wall (`by` is `None`) or by a character standing in the way.
    Blocked {
        id: EntityId,
        by: Option<Actor>,
    },
    /// A confused character stumbled about and went nowhere.
    Stumbled {
        id: EntityId,
    },
    /// An action chosen earlier could not be carried out when its turn came (the world had
    /// moved on), for the reason given.
    Refused {
        id: EntityId,
        why: ActionError,
    },
    /// A full pack left the item called `name` lying where it was.
    LeftBehind {
        id: EntityId,
        name: Arc<str>,
    },
    /// `id` chose `action` for the coming turn of floor `depth`, replacing any earlier choice.
    /// Nobody is told what: a choice shows when its turn resolves.
    Chose {
        id: EntityId,
        depth: u8,
        action: Action,
    },
    /// Character `id` stopped resting, for `why`; its rest is no longer chosen for it.
    RestEnded {
        id: EntityId,
        why: RestEnd,
    },
    /// Character `id`'s player let its floor's timer run out too many turns in a row: it is
    /// away, and nobody waits for it until it sends anything.
    Away {
        id: EntityId,
    },
    /// Character `id`'s player, away, sent something: its floor waits for it again.
    Back {
        id: EntityId,
    },
    /// Character `id` gave item `item` (called `name`) to friend `to`, taking it off first if
    /// it wore it.
    Gave {
        id: EntityId,
        to: EntityId,
        item: EntityId,
        name: Arc<str>,
    },
    /// Character `by` used an item called `what` on friend `on`: it healed `healed` HP and
    /// ended the effects `cured`.
    Helped {
        by: EntityId,
        on: EntityId,
        what: Arc<str>,
        healed: i32,
        cured: Vec<Effect>,
    },
    /// Character `id` marked cell `pos` of floor `depth` for its friends there, until that
    /// floor's turn `until`.
    Marked {
        id: EntityId,
        depth: u8,
        pos: Pos,
        until: u64,
    },
    /// Character `id`'s marked spot is gone (its time is up).
    Unmarked {
        id: EntityId,
    },
    /// Floor `depth`'s monsters grow for `n` characters on it (more than they were made for).
    Grown {
        depth: u8,
        n: u32,
    },
    /// A thing for the party (a Health Pack) was laid on floor `depth`, out of every player's
    /// sight, as the floor grew for more characters.
    Supplied {
        depth: u8,
        pos: Pos,
        item: Box<Item>,
    },
    /// Fallen character `id` can be brought back by a friend until the dungeon's turn `until`
    /// (every floor's turns added up: `Dungeon::clock`).
    Revivable {
        id: EntityId,
        until: u64,
    },
    /// Fallen character `id` can no longer be brought back: its game is over.
    BeyondHelp {
        id: EntityId,
    },
    /// Fallen character `id` was brought back by `by` with an item called `what`: it lives
    /// again at `pos`, with `hp` HP and `xp` experience.
    Revived {
        id: EntityId,
        by: EntityId,
        what: Arc<str>,
        pos: Pos,
        hp: i32,
        xp: u32,
    },
    /// Monster `id` on floor `depth` changed its plan (whom it hunts, the route it walks). Never
    /// told: nobody sees what a mouse intends, only where it goes.
    Planned {
        depth: u8,
        id: EntityId,
        plan: Ai,
    },
}
