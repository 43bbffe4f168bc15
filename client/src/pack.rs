//! The pack, as the client reasons about it: what each inventory key does to the selected item,
//! and the stat comparison shown before equipping. Pure data, no window: the inventory screen
//! draws what these functions decide, and the tests below pin the arithmetic.

use delve_protocol::Action;
use delve_protocol::{
    Bonus, ClientMsg, Effect, INVENTORY_SLOTS, ItemUse, ItemView, SelfView, Slot,
};

/// The letter of pack slot `index` (`a` for the first item picked up), or `None` past the 26th.
pub fn letter(index: usize) -> Option<char> {
    (index < INVENTORY_SLOTS).then(|| (b'a' + index as u8) as char)
}

/// What an equipment slot is called on screen.
pub fn slot_name(slot: Slot) -> &'static str {
    match slot {
        Slot::Weapon => "weapon",
        Slot::Armour => "armour",
        Slot::Microchip => "microchip",
    }
}

/// The item worn in `slot`, if any.
pub fn worn_in(inventory: &[ItemView], slot: Slot) -> Option<&ItemView> {
    inventory
        .iter()
        .find(|i| i.equipped && i.slot == Some(slot))
}

/// What every worn item adds together.
pub fn worn_total(inventory: &[ItemView]) -> Bonus {
    inventory
        .iter()
        .filter(|i| i.equipped)
        .fold(Bonus::default(), |sum, i| sum.plus(i.bonus))
}

/// Why the pack cannot be handled now, if it cannot: stunned or confused characters cannot use
/// their inventory (the server refuses with the same words).
pub fn pack_locked(effects: &[Effect]) -> Option<&'static str> {
    if effects.contains(&Effect::Stun) {
        Some("You are too stunned to handle your pack.")
    } else if effects.contains(&Effect::Confusion) {
        Some("You are too confused to handle your pack.")
    } else {
        None
    }
}

/// The stats the comparison shows, in its order. Higher is better for every one of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatKind {
    MaxHp,
    AttackMin,
    AttackMax,
    Defence,
    Save,
    Sight,
}

impl StatKind {
    pub const ALL: [StatKind; 6] = [
        StatKind::MaxHp,
        StatKind::AttackMin,
        StatKind::AttackMax,
        StatKind::Defence,
        StatKind::Save,
        StatKind::Sight,
    ];

    pub fn label(self) -> &'static str {
        match self {
            StatKind::MaxHp => "Max HP",
            StatKind::AttackMin => "Min attack",
            StatKind::AttackMax => "Max attack",
            StatKind::Defence => "Defence",
            StatKind::Save => "Saving throw",
            StatKind::Sight => "Sight",
        }
    }

    /// The same stat in a bonus.
    pub fn of_bonus(self, b: &Bonus) -> i32 {
        match self {
            StatKind::MaxHp => b.max_hp,
            StatKind::AttackMin => b.attack_min,
            StatKind::AttackMax => b.attack_max,
            StatKind::Defence => b.defence,
            StatKind::Save => b.save,
            StatKind::Sight => b.sight,
        }
    }
}

/// A character's fighting numbers, clamped as the server clamps them (one type, in
/// `protocol`).
pub use delve_protocol::Stats;

impl StatKind {
    /// This stat in `s`.
    pub fn of_stats(self, s: &Stats) -> i32 {
        match self {
            StatKind::MaxHp => s.max_hp,
            StatKind::AttackMin => s.attack_min,
            StatKind::AttackMax => s.attack_max,
            StatKind::Defence => s.defence,
            StatKind::Save => s.save,
            StatKind::Sight => s.sight,
        }
    }
}

/// Better, worse or the same, for the colour of a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Better,
    Worse,
    Same,
}

/// One line of the comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompareRow {
    pub stat: StatKind,
    pub now: i32,
    /// With the new item worn.
    pub then: i32,
    /// The number now sits on its floor while a worn item pushes it down, so the stat without
    /// that item is unknown to the client and `then` is only an upper bound.
    pub uncertain: bool,
}

impl CompareRow {
    pub fn verdict(&self) -> Verdict {
        match self.then.cmp(&self.now) {
            std::cmp::Ordering::Greater => Verdict::Better,
            std::cmp::Ordering::Less => Verdict::Worse,
            std::cmp::Ordering::Equal => Verdict::Same,
        }
    }
}

/// What equipping an item would change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// The item equipping it would take off (the one in the same slot), by name.
    pub replaces: Option<String>,
    pub rows: Vec<CompareRow>,
}

impl Comparison {
    /// Whether any number is only an upper bound.
    pub fn uncertain(&self) -> bool {
        self.rows.iter().any(|r| r.uncertain)
    }
}

/// The stats now (from `me`) and with `item` worn, swapping out whatever is in its slot: the
/// numbers now, minus the bonus of the item in that slot, plus the new item's bonus, clamped like
/// the server clamps. `None` for an item that is not equipment.
///
/// The numbers now are already clamped. Where one sits on its floor while the worn items
/// together push that stat down, the unclamped value is hidden, so the result is an upper bound
/// and the row says so (`uncertain`).
pub fn compare(me: &SelfView, inventory: &[ItemView], item: &ItemView) -> Option<Comparison> {
    let slot = item.slot?;
    let old = worn_in(inventory, slot).filter(|o| o.id != item.id);
    let old_bonus = old.map_or(Bonus::default(), |o| o.bonus);
    let now = Stats::of(me);
    let then = now.swap(old_bonus, item.bonus).clamped();
    let worn = worn_total(inventory);
    let min_hidden = now.attack_min <= 1 && worn.attack_min < 0;
    let rows = StatKind::ALL
        .iter()
        .map(|&stat| {
            let uncertain = match stat {
                StatKind::MaxHp => now.max_hp <= 1 && worn.max_hp < 0,
                StatKind::AttackMin => min_hidden,
                // The maximum is held up by the minimum: hidden when it sits there and the worn
                // items lower it, or lower it more than the minimum.
                StatKind::AttackMax => {
                    now.attack_max <= now.attack_min
                        && (min_hidden || worn.attack_max < 0 || worn.attack_max < worn.attack_min)
                }
                StatKind::Defence => now.defence <= 0 && worn.defence < 0,
                StatKind::Save => now.save <= 0 && worn.save < 0,
                StatKind::Sight => now.sight <= 1 && worn.sight < 0,
            };
            CompareRow {
                stat,
                now: stat.of_stats(&now),
                then: stat.of_stats(&then),
                uncertain,
            }
        })
        .collect();
    Some(Comparison {
        replaces: old.map(|o| o.name.to_string()),
        rows,
    })
}

/// A bonus as words, one part per stat it changes: `[("+1", "min attack"), ("-5", "saving
/// throw")]`, in the comparison's order.
pub fn bonus_parts(b: &Bonus) -> Vec<(i32, &'static str)> {
    StatKind::ALL
        .iter()
        .filter_map(|&s| {
            let v = s.of_bonus(b);
            (v != 0).then_some((
                v,
                match s {
                    StatKind::MaxHp => "max HP",
                    StatKind::AttackMin => "min attack",
                    StatKind::AttackMax => "max attack",
                    StatKind::Defence => "defence",
                    StatKind::Save => "saving throw",
                    StatKind::Sight => "sight",
                },
            ))
        })
        .collect()
}

/// A bonus on one line: "+1 min attack, +3 max attack", or "no bonus".
pub fn bonus_text(b: &Bonus) -> String {
    let parts = bonus_parts(b);
    if parts.is_empty() {
        return "no bonus".into();
    }
    parts
        .iter()
        .map(|(v, name)| format!("{v:+} {name}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A key pressed on the inventory screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackKey {
    /// `u`: use the selected item.
    Use,
    /// `e` or `w`: equip the selected item (after the comparison), or take it off if worn.
    Wear,
    /// `d`: drop the selected item.
    Drop,
    /// `t`: throw the selected item (aiming first).
    Throw,
    /// `g`: give the selected item to a friend next to you (`crate::friends`).
    Give,
    /// `o`: use the selected item on a friend next to you (or the remains of a fallen one).
    UseOn,
    /// `1`-`9`: the friend chosen when several are next to you.
    Friend(usize),
    /// Enter: whatever suits the item (use it, equip it or take it off).
    Primary,
    /// `A`-`Z`: select that slot.
    Select(usize),
    /// `i` (or Esc): close the screen. (`I` selects slot i.)
    Close,
}

/// The inventory screen's meaning of a typed character. Lower-case letters are actions; the
/// slot letters are typed in capitals so they never clash with them.
pub fn pack_key(c: char) -> Option<PackKey> {
    Some(match c {
        'u' => PackKey::Use,
        'e' | 'w' => PackKey::Wear,
        'd' => PackKey::Drop,
        't' => PackKey::Throw,
        'g' => PackKey::Give,
        'o' => PackKey::UseOn,
        '1'..='9' => PackKey::Friend(usize::from(c as u8 - b'1')),
        'i' => PackKey::Close,
        'A'..='Z' => PackKey::Select(usize::from(c as u8 - b'A')),
        _ => return None,
    })
}

/// What the screen does about a key on an item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackOutcome {
    /// Send this intent (it takes the turn).
    Send(ClientMsg),
    /// Show the equip comparison first.
    Compare,
    /// Aim a throw of this item (the pack closes for the aiming).
    Aim(u32),
    /// Nothing to send: say why on the screen.
    Note(String),
}

/// What `key` does to `item`. Only what the client knows for certain is refused here (a key
/// cannot be drunk, a jacket cannot be used); the rest (full health, not poisoned, ...) is for
/// the server to judge.
pub fn pack_outcome(key: PackKey, item: &ItemView) -> Option<PackOutcome> {
    let id = item.id;
    let name = &item.name;
    Some(match key {
        PackKey::Use if item.usable => PackOutcome::Send(ClientMsg::Act(Action::Use { item: id })),
        PackKey::Use if item.use_ == ItemUse::Unlock => {
            PackOutcome::Note(format!("The {name} is used by walking into a locked door."))
        }
        PackKey::Use if item.slot.is_some() => {
            PackOutcome::Note(format!("The {name} is worn, not used: press e."))
        }
        PackKey::Use if item.use_ == ItemUse::Throw => {
            PackOutcome::Note(format!("The {name} is thrown: press t to aim it."))
        }
        PackKey::Use => PackOutcome::Note(format!("The {name} cannot be used.")),
        PackKey::Wear if item.slot.is_none() => {
            PackOutcome::Note(format!("The {name} is not something you can wear."))
        }
        PackKey::Wear if item.equipped => {
            PackOutcome::Send(ClientMsg::Act(Action::Unequip { item: id }))
        }
        PackKey::Wear => PackOutcome::Compare,
        PackKey::Drop => PackOutcome::Send(ClientMsg::Act(Action::Drop { item: id })),
        PackKey::Throw if item.use_ == ItemUse::Throw => PackOutcome::Aim(id),
        PackKey::Throw => PackOutcome::Note(format!("The {name} is not something to throw.")),
        PackKey::Primary if item.slot.is_some() => return pack_outcome(PackKey::Wear, item),
        PackKey::Primary if item.use_ == ItemUse::Throw => PackOutcome::Aim(id),
        PackKey::Primary => return pack_outcome(PackKey::Use, item),
        // For a friend: the screen asks `crate::friends`, which knows who is near.
        PackKey::Select(_)
        | PackKey::Close
        | PackKey::Give
        | PackKey::UseOn
        | PackKey::Friend(_) => return None,
    })
}

/// An item's name as a pack line shows it: with its count when it is a stack ("Health Pack
/// x3").
pub fn shown_name(item: &ItemView) -> String {
    if item.count > 1 {
        format!("{} x{}", item.name, item.count)
    } else {
        item.name.to_string()
    }
}

/// The item the quick-heal key uses: the first in the pack that heals (the server's words for
/// what it is for, never its content key). `None` when nothing heals.
pub fn quick_heal(inventory: &[ItemView]) -> Option<&ItemView> {
    inventory.iter().find(|i| i.use_ == ItemUse::Heal)
}

/// The actions the selected item offers, for the help line: (keys, what). Giving it and
/// using it on a friend are offered while a friend is `near` (next to you).
pub fn item_actions(item: &ItemView, near: bool) -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    if item.usable {
        out.push(("u/Enter", "use"));
    }
    if item.use_ == ItemUse::Throw {
        out.push(("t/Enter", "throw"));
    }
    if item.slot.is_some() {
        out.push(if item.equipped {
            ("e/Enter", "take off")
        } else {
            ("e/Enter", "equip")
        });
    }
    out.push(("d", "drop"));
    if near {
        out.push(("g", "give"));
        if item.usable {
            out.push(("o", "use on"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use delve_protocol::Pos;

    fn me() -> SelfView {
        SelfView::sample(Pos::new(1, 1))
    }

    fn item(id: u32, key: &str, slot: Option<Slot>, bonus: Bonus) -> ItemView {
        ItemView {
            id,
            key: key.into(),
            name: key.replace('_', " ").into(),
            description: "".into(),
            slot,
            equipped: false,
            usable: matches!(key, "health_pack" | "antivenom"),
            bonus,
            use_: match key {
                "health_pack" => ItemUse::Heal,
                "antivenom" => ItemUse::CurePoison,
                "key" => ItemUse::Unlock,
                _ => ItemUse::None,
            },
            count: 1,
            range: 0,
        }
    }

    fn crowbar(id: u32) -> ItemView {
        let b = Bonus {
            attack_min: 1,
            attack_max: 3,
            ..Bonus::default()
        };
        item(id, "crowbar", Some(Slot::Weapon), b)
    }

    fn baton(id: u32) -> ItemView {
        let b = Bonus {
            attack_min: 3,
            attack_max: 2,
            ..Bonus::default()
        };
        item(id, "stun_baton", Some(Slot::Weapon), b)
    }

    fn row(c: &Comparison, s: StatKind) -> CompareRow {
        *c.rows.iter().find(|r| r.stat == s).unwrap()
    }

    #[test]
    fn letters_run_a_to_z_and_stop_at_the_pack_size() {
        assert_eq!(letter(0), Some('a'));
        assert_eq!(letter(25), Some('z'));
        assert_eq!(letter(26), None);
        for (k, c) in ('A'..='Z').enumerate() {
            assert_eq!(pack_key(c), Some(PackKey::Select(k)), "{c}");
            assert_eq!(letter(k), Some(c.to_ascii_lowercase()));
        }
    }

    #[test]
    fn action_keys_never_clash_with_slot_selection() {
        for c in 'a'..='z' {
            assert!(
                !matches!(pack_key(c), Some(PackKey::Select(_))),
                "{c} is an action key, not a slot"
            );
        }
        assert_eq!(pack_key('u'), Some(PackKey::Use));
        assert_eq!(pack_key('e'), Some(PackKey::Wear));
        assert_eq!(pack_key('w'), Some(PackKey::Wear));
        assert_eq!(pack_key('d'), Some(PackKey::Drop));
        assert_eq!(pack_key('i'), Some(PackKey::Close));
        assert_eq!(pack_key('x'), None);
    }

    #[test]
    fn equipping_into_an_empty_slot_adds_the_bonus() {
        let inv = vec![crowbar(7)];
        let c = compare(&me(), &inv, &inv[0]).unwrap();
        assert_eq!(c.replaces, None);
        let min = row(&c, StatKind::AttackMin);
        assert_eq!((min.now, min.then, min.verdict()), (1, 2, Verdict::Better));
        let max = row(&c, StatKind::AttackMax);
        assert_eq!((max.now, max.then, max.verdict()), (4, 7, Verdict::Better));
        let def = row(&c, StatKind::Defence);
        assert_eq!((def.now, def.then, def.verdict()), (4, 4, Verdict::Same));
        assert!(!c.uncertain());
    }

    #[test]
    fn equipping_swaps_out_the_item_in_the_same_slot() {
        // Wearing the crowbar: the view's stats include its bonus (2-7).
        let mut worn = crowbar(7);
        worn.equipped = true;
        let inv = vec![worn, baton(8)];
        let mut m = me();
        m.attack_min = 2;
        m.attack_max = 7;
        let c = compare(&m, &inv, &inv[1]).unwrap();
        assert_eq!(c.replaces.as_deref(), Some("crowbar"));
        // 2-7 minus the crowbar's +1/+3 plus the baton's +3/+2 is 4-6.
        let min = row(&c, StatKind::AttackMin);
        assert_eq!((min.then, min.verdict()), (4, Verdict::Better));
        let max = row(&c, StatKind::AttackMax);
        assert_eq!((max.then, max.verdict()), (6, Verdict::Worse));
    }

    #[test]
    fn armour_in_another_slot_is_not_swapped_out() {
        let mut vest = item(
            3,
            "bulletproof_vest",
            Some(Slot::Armour),
            Bonus {
                defence: 4,
                save: -5,
                ..Bonus::default()
            },
        );
        vest.equipped = true;
        let inv = vec![vest, crowbar(7)];
        let mut m = me();
        m.defence = 8;
        m.save = 5;
        let c = compare(&m, &inv, &inv[1]).unwrap();
        assert_eq!(c.replaces, None);
        assert_eq!(row(&c, StatKind::Defence).then, 8);
        assert_eq!(row(&c, StatKind::Save).then, 5);
    }

    #[test]
    fn a_bad_chip_is_clamped_like_the_server_clamps() {
        let chip = item(
            9,
            "microchip",
            Some(Slot::Microchip),
            Bonus {
                max_hp: -30,
                attack_min: -2,
                attack_max: -6,
                defence: -7,
                save: -12,
                sight: -9,
                // (the server's chips never touch sight; the clamp still must hold)
            },
        );
        let inv = vec![chip];
        let c = compare(&me(), &inv, &inv[0]).unwrap();
        let then: Vec<i32> = c.rows.iter().map(|r| r.then).collect();
        // max HP >= 1, attack min >= 1, max >= min, defence >= 0, save >= 0, sight >= 1.
        assert_eq!(then, vec![1, 1, 1, 0, 0, 1]);
        for r in &c.rows {
            let want = if r.stat == StatKind::AttackMin {
                Verdict::Same // 1 already, and 1 is the floor
            } else {
                Verdict::Worse
            };
            assert_eq!(r.verdict(), want, "{:?}", r.stat);
        }
        assert!(!c.uncertain(), "nothing worn now, so every number is exact");
    }

    #[test]
    fn a_stat_held_at_its_floor_by_a_worn_chip_is_only_an_upper_bound() {
        // Own attack 1-4; a worn chip of -3 min attack makes -2, which the server shows as 1.
        let mut chip = item(
            9,
            "microchip",
            Some(Slot::Microchip),
            Bonus {
                attack_min: -3,
                defence: 1,
                ..Bonus::default()
            },
        );
        chip.equipped = true;
        let other = item(
            10,
            "microchip",
            Some(Slot::Microchip),
            Bonus {
                save: 2,
                ..Bonus::default()
            },
        );
        let inv = vec![chip, other];
        let mut m = me();
        m.attack_min = 1; // clamped from -2
        m.defence = 5;
        let c = compare(&m, &inv, &inv[1]).unwrap();
        assert_eq!(c.replaces.as_deref(), Some("microchip"));
        // The server would give 1 (own 1, no chip); naive arithmetic gives 1 + 3 = 4, which is
        // all the client can know: it is marked as an upper bound, not shown as a sure gain.
        let min = row(&c, StatKind::AttackMin);
        assert_eq!(min.then, 4);
        assert!(min.uncertain);
        // The stats the chip does not hold down stay exact.
        let def = row(&c, StatKind::Defence);
        assert_eq!((def.then, def.uncertain), (4, false));
        let save = row(&c, StatKind::Save);
        assert_eq!((save.then, save.uncertain), (12, false));
        assert!(!row(&c, StatKind::MaxHp).uncertain);
        assert!(!row(&c, StatKind::AttackMax).uncertain, "4 > 1: not held");
    }

    #[test]
    fn a_stat_on_its_floor_without_a_worn_malus_is_exact() {
        let mut m = me();
        m.defence = 0; // a real zero: nothing worn pushes it down
        let inv = vec![crowbar(7)];
        let c = compare(&m, &inv, &inv[0]).unwrap();
        assert!(!c.uncertain());
    }

    #[test]
    fn a_stack_shows_its_count_and_quick_heal_finds_what_heals_by_its_use() {
        let mut pack = item(1, "health_pack", None, Bonus::default());
        assert_eq!(shown_name(&pack), "health pack");
        pack.count = 3;
        assert_eq!(shown_name(&pack), "health pack x3");
        // Whatever the content calls it: what heals says so in its use.
        let mut salve = item(4, "green_salve", None, Bonus::default());
        salve.use_ = ItemUse::Heal;
        let inv = vec![crowbar(2), item(3, "key", None, Bonus::default()), salve];
        assert_eq!(quick_heal(&inv).map(|i| i.id), Some(4));
        assert_eq!(quick_heal(&inv[..2]), None);
    }

    #[test]
    fn only_equipment_has_a_comparison() {
        let pack = item(1, "health_pack", None, Bonus::default());
        assert_eq!(compare(&me(), std::slice::from_ref(&pack), &pack), None);
    }

    #[test]
    fn keys_do_what_suits_the_item() {
        let pack = item(1, "health_pack", None, Bonus::default());
        let key = item(2, "key", None, Bonus::default());
        let mut bar = crowbar(3);
        assert_eq!(
            pack_outcome(PackKey::Primary, &pack),
            Some(PackOutcome::Send(ClientMsg::Act(Action::Use { item: 1 })))
        );
        assert_eq!(
            pack_outcome(PackKey::Use, &pack),
            Some(PackOutcome::Send(ClientMsg::Act(Action::Use { item: 1 })))
        );
        assert!(matches!(
            pack_outcome(PackKey::Primary, &key),
            Some(PackOutcome::Note(n)) if n.contains("locked door")
        ));
        assert!(matches!(
            pack_outcome(PackKey::Wear, &pack),
            Some(PackOutcome::Note(_))
        ));
        assert_eq!(
            pack_outcome(PackKey::Primary, &bar),
            Some(PackOutcome::Compare)
        );
        assert_eq!(
            pack_outcome(PackKey::Wear, &bar),
            Some(PackOutcome::Compare)
        );
        assert!(matches!(
            pack_outcome(PackKey::Use, &bar),
            Some(PackOutcome::Note(_))
        ));
        bar.equipped = true;
        assert_eq!(
            pack_outcome(PackKey::Primary, &bar),
            Some(PackOutcome::Send(ClientMsg::Act(Action::Unequip {
                item: 3
            })))
        );
        assert_eq!(
            pack_outcome(PackKey::Drop, &bar),
            Some(PackOutcome::Send(ClientMsg::Act(Action::Drop { item: 3 })))
        );
        assert_eq!(pack_outcome(PackKey::Close, &bar), None);
    }

    #[test]
    fn stun_and_confusion_lock_the_pack_but_poison_does_not() {
        assert_eq!(pack_locked(&[]), None);
        assert_eq!(pack_locked(&[Effect::Poison]), None);
        assert!(pack_locked(&[Effect::Stun]).unwrap().contains("stunned"));
        assert!(
            pack_locked(&[Effect::Poison, Effect::Confusion])
                .unwrap()
                .contains("confused")
        );
    }

    #[test]
    fn worn_items_are_found_by_slot_and_summed() {
        let mut bar = crowbar(1);
        bar.equipped = true;
        let spare = baton(2);
        let mut jacket = item(
            3,
            "biker_jacket",
            Some(Slot::Armour),
            Bonus {
                defence: 2,
                max_hp: 5,
                ..Bonus::default()
            },
        );
        jacket.equipped = true;
        let inv = vec![bar, spare, jacket];
        assert_eq!(worn_in(&inv, Slot::Weapon).map(|i| i.id), Some(1));
        assert_eq!(worn_in(&inv, Slot::Microchip), None);
        let total = worn_total(&inv);
        assert_eq!(
            (
                total.attack_min,
                total.attack_max,
                total.defence,
                total.max_hp
            ),
            (1, 3, 2, 5)
        );
        assert_eq!(
            bonus_text(&inv[2].bonus),
            "+5 max HP, +2 defence".to_string()
        );
        assert_eq!(bonus_text(&Bonus::default()), "no bonus");
    }
}
