//! Changed fields of a record: what an `update` carries for the player's own record, for
//! entities already in sight and for party members, instead of the whole record again.
//!
//! Most turns change one or two numbers of a record (`me.turns` every turn, a position, some
//! HP); sending the whole record each time was most of an update's bytes. A patch holds only
//! the fields whose values changed, each with its new value; a field left out is unchanged.
//! Fields that may be absent in the record itself (`cause`, `monster`, `item`) are sent as
//! `null` when they went away.
//!
//! The three patch types are made by one macro from the list of their record's fields. The list
//! must name every field of the record (the macro destructures the record without `..`), so a
//! field added to a record and forgotten here fails to compile instead of silently never
//! reaching clients.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize};

use crate::geom::Pos;
use crate::view::{Effect, EntityKind, EntityView, PartyMember, SelfView};

/// A patch field that is present on the wire, even as `null`, is `Some`: `Some(None)` for a
/// `null` in an optional field. (Serde's own `Option` reading would make `null` into `None`,
/// "unchanged", and a field that went away would never go.)
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

macro_rules! patch {
    (
        $(#[$meta:meta])*
        $patch:ident for $record:ident $(by $key:ident: $key_ty:ty)? {
            $($field:ident: $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        pub struct $patch {
            $(
                /// Which record this patch changes.
                pub $key: $key_ty,
            )?
            $(
                #[serde(
                    default,
                    skip_serializing_if = "Option::is_none",
                    deserialize_with = "present"
                )]
                pub $field: Option<$ty>,
            )*
        }

        impl $patch {
            /// The fields of `new` that differ from `old`, or `None` when none do.
            pub fn between(old: &$record, new: &$record) -> Option<Self> {
                let mut patch = Self {
                    $($key: new.$key,)?
                    ..Self::default()
                };
                let mut changed = false;
                $(
                    if old.$field != new.$field {
                        patch.$field = Some(new.$field.clone());
                        changed = true;
                    }
                )*
                changed.then_some(patch)
            }

            /// Never called: it compiles only while the list above names every field.
            #[allow(dead_code)]
            fn lists_every_field(record: &$record) {
                let $record { $($key: _,)? $($field: _,)* } = record;
            }

            /// Sets every field the patch holds.
            pub fn apply_to(&self, record: &mut $record) {
                $(
                    if let Some(value) = &self.$field {
                        record.$field = value.clone();
                    }
                )*
            }
        }
    };
}

patch! {
    /// The fields of the player's own record ([`SelfView`]) that changed.
    SelfPatch for SelfView {
        id: u32,
        name: Arc<str>,
        pos: Pos,
        depth: u8,
        hp: i32,
        max_hp: i32,
        level: u32,
        xp: u32,
        xp_level: u32,
        xp_next: u32,
        points: u32,
        attack_min: i32,
        attack_max: i32,
        defence: i32,
        save: i32,
        sight: i32,
        kills: u32,
        turns: u64,
        deepest: u8,
        alive: bool,
        cause: Option<String>,
        effects: Vec<Effect>,
        victory: bool,
        score: u32,
        resting: bool,
        away: bool,
        revive_turns: Option<u32>,
    }
}

patch! {
    /// The fields of an entity in sight before and after ([`EntityView`]) that changed.
    EntityPatch for EntityView by id: u32 {
        kind: EntityKind,
        name: Arc<str>,
        pos: Pos,
        hp: i32,
        max_hp: i32,
        level: u32,
        monster: Option<Arc<str>>,
        item: Option<Arc<str>>,
    }
}

patch! {
    /// The fields of a party member ([`PartyMember`]) that changed.
    PartyPatch for PartyMember by id: u32 {
        name: Arc<str>,
        level: u32,
        hp: i32,
        max_hp: i32,
        depth: u8,
        alive: bool,
        connected: bool,
        away: bool,
        pos: Option<Pos>,
        revive_turns: Option<u32>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> SelfView {
        SelfView {
            turns: 7,
            ..SelfView::sample(Pos::new(3, 4))
        }
    }

    #[test]
    fn a_patch_holds_only_what_changed_and_applies_to_the_new_record() {
        let old = me();
        let mut new = old.clone();
        new.turns = 8;
        new.pos = Pos::new(4, 4);
        let patch = SelfPatch::between(&old, &new).expect("two fields changed");
        let text = serde_json::to_string(&patch).unwrap();
        assert_eq!(text, r#"{"pos":{"x":4,"y":4},"turns":8}"#);
        let back: SelfPatch = serde_json::from_str(&text).unwrap();
        let mut applied = old.clone();
        back.apply_to(&mut applied);
        assert_eq!(applied, new);
        assert_eq!(SelfPatch::between(&new, &new), None);
    }

    #[test]
    fn every_field_of_the_record_is_patched() {
        // A record with every field changed: the patch must carry each one, or applying it
        // leaves an old value behind.
        let old = me();
        let new = SelfView {
            id: 2,
            name: "Bob".into(),
            pos: Pos::new(9, 9),
            depth: 2,
            hp: 3,
            max_hp: 30,
            level: 2,
            xp: 120,
            xp_level: 100,
            xp_next: 250,
            points: 1,
            attack_min: 2,
            attack_max: 5,
            defence: 5,
            save: 11,
            sight: 9,
            kills: 4,
            turns: 100,
            deepest: 2,
            alive: false,
            cause: Some("killed by a Micro Mouse on floor 2".into()),
            effects: vec![Effect::Poison],
            victory: true,
            score: 77,
            resting: true,
            away: true,
            revive_turns: Some(12),
        };
        let patch = SelfPatch::between(&old, &new).unwrap();
        let text = serde_json::to_string(&patch).unwrap();
        let back: SelfPatch = serde_json::from_str(&text).unwrap();
        let mut applied = old.clone();
        back.apply_to(&mut applied);
        assert_eq!(applied, new);
    }

    #[test]
    fn a_field_that_went_away_is_sent_as_null_and_clears() {
        let old = EntityView {
            id: 5,
            kind: EntityKind::Monster,
            name: "Micro Mouse".into(),
            pos: Pos::new(1, 1),
            hp: 4,
            max_hp: 4,
            level: 1,
            monster: Some("micro_mouse".into()),
            item: None,
        };
        let mut new = old.clone();
        new.monster = None;
        let patch = EntityPatch::between(&old, &new).unwrap();
        let text = serde_json::to_string(&patch).unwrap();
        assert_eq!(text, r#"{"id":5,"monster":null}"#);
        let back: EntityPatch = serde_json::from_str(&text).unwrap();
        assert_eq!(back.monster, Some(None), "null is a change, not an absence");
        let mut applied = old.clone();
        back.apply_to(&mut applied);
        assert_eq!(applied, new);
    }
}
