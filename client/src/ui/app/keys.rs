//! The keys of the game screens: what each command does on each screen, for a player, for
//! someone not driving a character, and in the pack.

use super::super::input::Resize;
use super::*;
use crate::friends::{self, Deed};
use crate::keymap::{Command, Named};
use crate::travel::Goal;
use crate::ui::widgets::Tap;
use delve_protocol::Action;

/// The commands an aim under way answers itself (send, next target, cancel); a button of any
/// other puts the aim away first.
const AIMING: [Command; 4] = [
    Command::Fire,
    Command::Confirm,
    Command::Fight,
    Command::Cancel,
];

impl App {
    pub(super) fn handle_input(&mut self, now: f64, chars: &[char]) {
        if let Some(r) = super::super::input::resize_pressed() {
            let said = resize(&mut self.appearance, r);
            self.note(&said);
        }
        if self.end_guard_holds(now) {
            // The moment after a death or a victory: nothing pressed now counts.
            self.input.reset();
            self.take_click();
            self.trip = None;
            return;
        }
        let click = self.take_click();
        if self.replay_input(chars, &click) {
            return;
        }
        // The high scores take every key while open, even while the connection is down.
        if let Screen::Scores(board) = &mut self.screen {
            self.input.reset();
            let len = self.model.scores.len();
            let closed = table::keys(board, chars, len, &self.input.injected);
            let clicked_shut = matches!(
                Self::tap_command(&click),
                Some(Command::Cancel | Command::Scores)
            );
            if let Some(Tap::ScrollTo(share)) = click.tap {
                table::scroll_to(board, share, len);
            }
            if closed || clicked_shut {
                self.screen = Screen::Game;
            }
            return;
        }
        // With the connection down nothing can be sent, but the menu, help and sound still
        // answer (and Esc closes whatever was open).
        if !matches!(self.connection, Connection::Joined) {
            let (mut commands, _) = self.input.poll(now, false, true, chars);
            commands.extend(Self::tap_command(&click));
            self.trip = None;
            self.hover_select();
            self.scroll_keys();
            if let Some(tap) = click.tap {
                self.screen_tap(tap);
            }
            for cmd in commands {
                if !self.common_command(cmd) && cmd == Command::Cancel {
                    self.screen = match self.screen {
                        Screen::Game => Screen::Menu { selected: 0 },
                        _ => Screen::Game,
                    };
                }
            }
            return;
        }
        let Some(view) = &self.model.view else { return };
        let me = view.me.clone();
        let turn = view.turn;
        // Which neighbouring cells are known walls.
        let wall = Dir::ALL.map(|d| view.map.get(me.pos.step(d)) == Tile::Wall);
        let here = view.map.get(me.pos);
        let heal = pack::quick_heal(&view.inventory).map(|i| i.id);
        let fight = crate::travel::fight_step(view);
        let party: Vec<(String, bool)> = view
            .party
            .iter()
            .map(|p| (p.name.to_string(), p.alive))
            .collect();
        // Not driving a living character: the dead, the winners, those following a friend,
        // watchers.
        let spectating = self.spectating();
        if !spectating {
            self.end_hidden = false;
        }
        // A new stat point opens the level-up dialog once (and ends a walk or a fight under
        // way: the player looks at the dialog now).
        if me.points > self.points_seen && !spectating && matches!(self.screen, Screen::Game) {
            self.screen = Screen::LevelUp { selected: 0 };
            self.trip = None;
        }
        self.points_seen = if spectating {
            self.points_seen
        } else {
            me.points
        };
        if me.points == 0 && matches!(self.screen, Screen::LevelUp { .. }) {
            self.screen = Screen::Game;
        }
        // The chat line takes every key while it is open.
        // The page's text field (a touch screen's keyboard): what the player sent, or gave up.
        #[cfg(target_arch = "wasm32")]
        if self.field_open && matches!(self.screen, Screen::Chat(_)) {
            match delve_web_js::field_next() {
                Some(delve_web_js::FieldEvent::Sent(text)) => {
                    let text = text.trim().to_string();
                    if !text.is_empty() {
                        self.net.send(ClientMsg::Chat { text });
                    }
                    self.close_chat();
                }
                Some(delve_web_js::FieldEvent::Cancelled) => self.close_chat(),
                None => {}
            }
            return;
        }
        if let Screen::Chat(line) = &mut self.screen {
            line.feed(chars);
            let tapped = Self::tap_command(&click);
            if self.input.named_pressed(Named::Escape) || tapped == Some(Command::Cancel) {
                self.close_chat();
            } else if self.input.named_pressed(Named::Enter)
                || self.input.named_pressed(Named::KpEnter)
                || tapped == Some(Command::Confirm)
            {
                let text = line.text.trim().to_string();
                if !text.is_empty() {
                    self.net.send(ClientMsg::Chat { text });
                }
                self.close_chat();
            }
            return;
        }
        // So does the inventory: its letters are its own.
        if matches!(self.screen, Screen::Inventory(_)) {
            self.input.reset();
            self.inventory_input(chars, spectating, click.tap, now);
            return;
        }
        // And aiming a throw or a shot. A button of another command puts the aim away and
        // does what it does.
        if self.aim.is_some()
            && let Some(Tap::Command(c)) = click.tap
            && !AIMING.contains(&c)
        {
            self.aim = None;
        }
        if self.aim.is_some() {
            self.aim_input(now, spectating, chars, click);
            return;
        }
        let modal = !matches!(self.screen, Screen::Game) || spectating;
        let can_repeat = self.awaiting.is_none() && !self.anims.busy(now);
        let (mut commands, any_key) = self.input.poll(now, can_repeat, modal, chars);
        // Any key or button stops a walk under way (the key still does what it does), and a
        // rest: one that does not act itself stops it with a wait. Playing by keys puts the
        // hover box away until the mouse moves.
        if any_key || click.tap.is_some() {
            self.trip = None;
            if me.resting && !modal && !commands.iter().any(|c| c.takes_a_turn()) {
                self.act(ClientMsg::Act(Action::Wait), turn);
            }
        }
        if any_key {
            self.hover_off = true;
        }
        self.hover_select();
        self.scroll_keys();
        match click.tap {
            Some(Tap::Command(c)) => commands.push(c),
            Some(tap) => self.screen_tap(tap),
            None => {}
        }
        if !modal {
            self.mouse(turn, click.map);
            // A right click on the map marks the cell for the friends on the floor.
            let right = std::mem::take(&mut self.right_click)
                || (self.script.is_none() && is_mouse_button_pressed(MouseButton::Right));
            if right && let Some(at) = self.cell_under_mouse() {
                self.mark(at);
            }
        }
        for cmd in commands {
            if self.common_command(cmd) {
                continue;
            }
            // Going to a friend again goes to the next one; anything else done starts over.
            if cmd.takes_a_turn() && cmd != Command::ToFriend {
                self.friend_last = None;
            }
            if spectating {
                self.spectator_command(cmd, &me.name, me.alive, &party);
                continue;
            }
            match (&self.screen, cmd) {
                (Screen::Character, Command::Character | Command::Cancel) => {
                    self.screen = Screen::Game
                }
                (Screen::Messages { .. }, Command::Messages | Command::Cancel) => {
                    self.screen = Screen::Game
                }
                (Screen::LevelUp { .. }, Command::Cancel) => self.screen = Screen::Game,
                (Screen::LevelUp { selected }, Command::Confirm) => self.spend(*selected),
                (Screen::LevelUp { .. }, Command::Choose(n)) => self.spend(usize::from(n) - 1),
                (Screen::Game, Command::Cancel) => self.screen = Screen::Menu { selected: 0 },
                (Screen::Game, Command::Character) => self.screen = Screen::Character,
                (Screen::Game, Command::Inventory) => self.open_inventory(),
                (Screen::Game, Command::Scores) => self.open_scores(),
                (Screen::Game, Command::PickUp) => self.act(ClientMsg::Act(Action::PickUp), turn),
                (Screen::Game, Command::Messages) => self.screen = Screen::Messages { scroll: 0 },
                (Screen::Game, Command::LevelUp) if me.points > 0 => {
                    self.screen = Screen::LevelUp { selected: 0 }
                }
                (Screen::Game, Command::LevelUp) => self.note(
                    "You have no stat points to spend: you get one each time you gain a level.",
                ),
                (Screen::Game, Command::Confirm | Command::Talk) => self.open_chat(),
                (Screen::Game, Command::Move(dir)) => {
                    // Walking into a wall you can see is a no-op, as in most roguelikes: don't
                    // spend a round trip to be told so.
                    let k = Dir::ALL.iter().position(|d| *d == dir).unwrap_or(0);
                    if !wall[k] {
                        self.act(ClientMsg::Act(Action::Move { dir }), turn);
                    }
                }
                (Screen::Game, Command::Wait) => self.act(ClientMsg::Act(Action::Wait), turn),
                (Screen::Game, Command::Rest) => self.act(ClientMsg::Act(Action::Rest), turn),
                (Screen::Game, Command::Fire) => self.start_aim(None),
                (Screen::Game, Command::Mark) => {
                    let at = (self.held_cell())
                        .or_else(|| self.cell_under_mouse())
                        .unwrap_or(me.pos);
                    self.mark(at);
                }
                (Screen::Game, Command::Fight) => match fight.clone() {
                    Ok(dir) => self.act(ClientMsg::Act(Action::Move { dir }), turn),
                    Err(why) if why.is_empty() => {}
                    Err(why) => self.note(&why),
                },
                (Screen::Game, Command::QuickHeal) => match heal {
                    Some(item) => self.act(ClientMsg::Act(Action::Use { item }), turn),
                    None => self.note("You have nothing that heals."),
                },
                (Screen::Game, Command::Descend | Command::Ascend) => {
                    let down = cmd == Command::Descend;
                    let on = if down {
                        Tile::StairsDown
                    } else {
                        Tile::StairsUp
                    };
                    if here == on {
                        let msg = if down {
                            ClientMsg::Act(Action::Descend)
                        } else {
                            ClientMsg::Act(Action::Ascend)
                        };
                        self.act(msg, turn);
                    } else {
                        // Away from the stairs: walk to the known ones, then take them.
                        self.start_trip(Goal::Stairs { down });
                    }
                }
                (Screen::Game, Command::Explore) => self.start_trip(Goal::Explore),
                (Screen::Game, Command::ToFriend) => self.travel_to_friend(),
                _ => {}
            }
        }
    }

    /// Help, the menu and sound: the same for everyone, connected or not. Returns whether the
    /// command was taken.
    fn common_command(&mut self, cmd: Command) -> bool {
        match (&self.screen, cmd) {
            (_, Command::Mute) => {
                let said = self.audio.toggle_mute();
                self.note(&said);
            }
            (Screen::Help, Command::Help | Command::Cancel | Command::Confirm) => {
                self.screen = Screen::Game;
            }
            (Screen::Menu { .. }, Command::Cancel | Command::Menu) => self.screen = Screen::Game,
            (Screen::Menu { selected }, Command::Confirm) => {
                let choice = MENU[*selected % MENU.len()];
                self.menu_choice(choice);
            }
            (Screen::Game | Screen::Character | Screen::Messages { .. }, Command::Help) => {
                self.screen = Screen::Help;
            }
            (Screen::Game, Command::Menu) => self.screen = Screen::Menu { selected: 0 },
            _ => return false,
        }
        true
    }

    /// Keys for those not driving a living character: follow another player, go back to one's
    /// own view, start again (the dead), chat, read the log.
    fn spectator_command(
        &mut self,
        cmd: Command,
        shown: &str,
        shown_alive: bool,
        party: &[(String, bool)],
    ) {
        let dead_player = !self.watcher_only();
        match (&self.screen, cmd) {
            (Screen::Messages { .. }, Command::Messages | Command::Cancel) => {
                self.screen = Screen::Game
            }
            (Screen::Character, Command::Character | Command::Cancel) => self.screen = Screen::Game,
            (Screen::Game, Command::Messages) => self.screen = Screen::Messages { scroll: 0 },
            (Screen::Game, Command::Character) if shown_alive => self.screen = Screen::Character,
            (Screen::Game, Command::Inventory) => self.open_inventory(),
            (Screen::Game, Command::Scores) => self.open_scores(),
            (Screen::Game, Command::Confirm | Command::Talk) => self.open_chat(),
            // Solo, a new game is a fresh dungeon; shared, a new character in this one.
            #[cfg(not(target_arch = "wasm32"))]
            (Screen::Game, Command::NewCharacter) if dead_player && self.solo_server.is_some() => {
                self.new_solo_game()
            }
            (Screen::Game, Command::NewCharacter) if dead_player => {
                self.net.send(ClientMsg::NewCharacter)
            }
            (Screen::Game, Command::Cancel) if dead_player && self.model.watching.is_some() => {
                self.net.send(ClientMsg::Watch { name: None });
            }
            // The summary of a finished game folds into a banner, to watch the floor, and back.
            (Screen::Game, Command::Cancel) if dead_player => self.end_hidden = !self.end_hidden,
            (Screen::Game, Command::Cancel) => self.screen = Screen::Menu { selected: 0 },
            (Screen::Game, Command::Follow) => {
                // The next living player after the one shown, round the party.
                let living: Vec<&String> = party
                    .iter()
                    .filter(|(_, alive)| *alive)
                    .map(|(n, _)| n)
                    .collect();
                let at = living.iter().position(|n| n.as_str() == shown);
                let next = match at {
                    Some(k) => living.get((k + 1) % living.len().max(1)),
                    None => living.first(),
                };
                if let Some(name) = next.filter(|n| n.as_str() != shown) {
                    self.net.send(ClientMsg::Watch {
                        name: Some((*name).clone()),
                    });
                }
            }
            _ => {}
        }
    }

    /// The inventory screen's keys: select, act on the selected item, confirm or cancel an
    /// equip, close. Nothing is sent while the pack is read-only or locked; the banner says why.
    fn inventory_input(&mut self, chars: &[char], spectating: bool, tap: Option<Tap>, now: f64) {
        // A click on the line already selected chooses it, as Enter does (so does a double
        // click on another line). A finger's tap only selects (the detail's buttons act), unless
        // it is the second of a double tap.
        let selected = match &self.screen {
            Screen::Inventory(st) => Some(st.selected),
            _ => None,
        };
        let double = match tap {
            Some(Tap::Row(k)) if self.fingers.touch => self.double_click(k, now),
            Some(Tap::Row(k)) => self.click_selected(k, selected, now),
            _ => false,
        };
        let Some(view) = &self.model.view else { return };
        let Screen::Inventory(st) = &mut self.screen else {
            return;
        };
        let inv = &view.inventory;
        let blocked = inventory::pack_blocked(view, spectating);
        let turn = view.turn;
        let tapped = match tap {
            Some(Tap::Command(c)) => Some(c),
            _ => None,
        };
        let enter = self.input.named_pressed(Named::Enter)
            || self.input.named_pressed(Named::KpEnter)
            || tapped == Some(Command::Confirm)
            || double;
        let esc = self.input.named_pressed(Named::Escape)
            || matches!(tapped, Some(Command::Cancel | Command::Inventory));
        st.selected = st.selected.min(inv.len().saturating_sub(1));
        // The pack changed under the comparison (a swap, a drop): close it.
        if st
            .compare
            .is_some_and(|id| inv.get(st.selected).is_none_or(|i| i.id != id))
        {
            st.compare = None;
        }
        let mut send = None;
        let mut aim = None;
        if let Some(id) = st.compare {
            if enter || chars.iter().any(|c| matches!(c, 'y' | 'Y')) {
                send = Some(ClientMsg::Act(Action::Equip { item: id }));
            } else if esc || chars.iter().any(|c| matches!(c, 'n' | 'N')) {
                st.compare = None;
            }
        } else {
            let mut keys: Vec<PackKey> = chars.iter().filter_map(|&c| pack::pack_key(c)).collect();
            if enter {
                keys.push(PackKey::Primary);
            }
            if esc {
                keys.push(PackKey::Close);
            }
            let len = inv.len();
            let was = st.selected;
            if len > 0 {
                if self.input.named_pressed(Named::Up) {
                    st.selected = (st.selected + len - 1) % len;
                    st.note = None;
                }
                if self.input.named_pressed(Named::Down) {
                    st.selected = (st.selected + 1) % len;
                    st.note = None;
                }
                if is_key_pressed(KeyCode::Home) || is_key_pressed(KeyCode::PageUp) {
                    st.selected = 0;
                }
                if is_key_pressed(KeyCode::End) || is_key_pressed(KeyCode::PageDown) {
                    st.selected = len - 1;
                }
            }
            match tap {
                Some(Tap::Row(k)) if k < len => {
                    st.selected = k;
                    st.note = None;
                }
                Some(Tap::Pack(key)) => keys.push(key),
                _ => {}
            }
            // Whom to give to is asked about the item it was asked for.
            if st.selected != was {
                st.pick = None;
            }
            for key in keys {
                match key {
                    PackKey::Close => {
                        self.screen = Screen::Game;
                        return;
                    }
                    PackKey::Select(k) if k < len => {
                        st.selected = k;
                        st.note = None;
                    }
                    PackKey::Select(k) => {
                        let letter = pack::letter(k).unwrap_or('?');
                        st.note = Some(format!("Nothing in slot {letter}."));
                    }
                    key => {
                        // An empty pack already says so, and how to fill it.
                        let Some(item) = inv.get(st.selected) else {
                            continue;
                        };
                        if let Some(why) = &blocked {
                            st.note = Some(why.clone());
                            continue;
                        }
                        let deed = match key {
                            PackKey::Give => Some((Deed::Give, None)),
                            PackKey::UseOn => Some((Deed::UseOn, None)),
                            PackKey::Friend(k) => st.pick.map(|d| (d, Some(k))),
                            _ => None,
                        };
                        st.pick = None;
                        if let Some((deed, chosen)) = deed {
                            let near = friends::near(view, deed);
                            match friends::outcome(deed, item, &near, chosen) {
                                Ok(Some(msg)) => send = Some(msg),
                                Ok(None) => {
                                    st.pick = Some(deed);
                                    st.note = None;
                                }
                                Err(why) => st.note = Some(why),
                            }
                            continue;
                        }
                        match pack::pack_outcome(key, item) {
                            Some(PackOutcome::Send(msg)) => send = Some(msg),
                            Some(PackOutcome::Aim(id)) => aim = Some(id),
                            Some(PackOutcome::Compare) => {
                                st.compare = Some(item.id);
                                st.note = None;
                            }
                            Some(PackOutcome::Note(n)) => st.note = Some(n),
                            None => {}
                        }
                    }
                }
            }
        }
        if let Some(msg) = send {
            // Each pack action is the turn: back to the map to see what comes of it.
            self.screen = Screen::Game;
            self.act(msg, turn);
        }
        if let Some(item) = aim {
            self.screen = Screen::Game;
            self.start_aim(Some(item));
        }
    }

    /// Starts aiming: item `item` of the pack thrown, or (`None`) what `f` aims.
    fn start_aim(&mut self, item: Option<u32>) {
        let Some(view) = &self.model.view else { return };
        let chosen = match item {
            Some(id) => crate::aim::item_missile(view, Some(id)),
            None => crate::aim::default_missile(view),
        };
        match chosen {
            Some((missile, range)) => {
                self.trip = None;
                self.aim = Some(crate::aim::Aim::new(view, missile, range));
            }
            None => self.note("You have nothing to shoot or throw."),
        }
    }

    /// The aiming overlay's keys, clicks and taps: move the aim, the next target, send,
    /// cancel. A mouse's click on the map sends it there (when it can go); a finger's tap only
    /// aims, and the bar's button (or Throw again) sends.
    fn aim_input(
        &mut self,
        now: f64,
        spectating: bool,
        chars: &[char],
        click: super::clicks::Click,
    ) {
        let (mut commands, _) = self.input.poll(now, false, false, chars);
        let (Some(view), Some(mut aim)) = (self.model.view.clone(), self.aim.take()) else {
            return;
        };
        if spectating || !matches!(self.screen, Screen::Game) {
            return;
        }
        match click.tap {
            Some(Tap::Command(c)) => commands.push(c),
            Some(tap @ Tap::Zoom(_)) => self.screen_tap(tap),
            _ => {}
        }
        let mut send = false;
        for cmd in commands {
            match cmd {
                Command::Move(dir) => aim.shift(dir),
                Command::Fight => aim.next(&view),
                Command::Fire | Command::Confirm => send = true,
                Command::Cancel => return,
                _ => {}
            }
        }
        if let Some(cell) = click.map.and_then(|p| self.cell_at(p)) {
            aim.at = cell;
            send = !self.fingers.touch && aim.problem(&view).is_none();
        }
        if send {
            match aim.problem(&view) {
                Some(why) => self.note(why),
                None => {
                    self.act(ClientMsg::Act(aim.action()), view.turn);
                    return;
                }
            }
        }
        self.aim = Some(aim);
    }

    /// Arrow keys and the mouse wheel move selections and scroll lists.
    pub(super) fn scroll_keys(&mut self) {
        let wheel = mouse_wheel().1;
        let (up, down) = (
            self.input.named_pressed(Named::Up),
            self.input.named_pressed(Named::Down),
        );
        let options = self.model.level_up.len().max(1);
        let game = matches!(self.screen, Screen::Game);
        match &mut self.screen {
            Screen::Menu { selected } => {
                if up {
                    *selected = (*selected + MENU.len() - 1) % MENU.len();
                }
                if down {
                    *selected = (*selected + 1) % MENU.len();
                }
                // Left and right set the volume on the sound line, the size on the size line.
                let (left, right) = (
                    self.input.named_pressed(Named::Left),
                    self.input.named_pressed(Named::Right),
                );
                if left != right {
                    match MENU[*selected % MENU.len()] {
                        MenuItem::Sound => self.audio.step(right),
                        MenuItem::Look => self.toggle_glyphs(),
                        MenuItem::Scale => {
                            let r = if right {
                                Resize::Larger
                            } else {
                                Resize::Smaller
                            };
                            resize(&mut self.appearance, r);
                        }
                        _ => {}
                    }
                }
            }
            Screen::LevelUp { selected } => {
                if up {
                    *selected = (*selected + options - 1) % options;
                }
                if down {
                    *selected = (*selected + 1) % options;
                }
            }
            Screen::Messages { scroll } => {
                if up || wheel > 0.0 {
                    *scroll += 3;
                }
                if (down || wheel < 0.0) && *scroll > 0 {
                    *scroll = scroll.saturating_sub(3);
                }
            }
            Screen::Game
            | Screen::Character
            | Screen::Chat(_)
            | Screen::Inventory(_)
            | Screen::Help
            | Screen::Scores(_) => {
                let layout = Layout::new();
                let at = Space::Ui.point(mouse_position().into());
                let over_log = layout.log.contains(at);
                if over_log && wheel > 0.0 {
                    self.log_scroll += 2;
                } else if over_log && wheel < 0.0 {
                    self.log_scroll = self.log_scroll.saturating_sub(2);
                } else if wheel != 0.0 && layout.map.contains(at) && game {
                    // The wheel over the map zooms it, as a pinch does.
                    let step = super::fingers::ZOOM_STEP;
                    self.zoom_by(if wheel > 0.0 { step } else { 1.0 / step });
                }
            }
        }
    }
}

/// What the menu offers, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MenuItem {
    Resume,
    Help,
    Sound,
    /// The interface's size.
    Scale,
    /// Tiles or glyphs on the map.
    Look,
    Scores,
    Quit,
}

pub(super) const MENU: [MenuItem; 7] = [
    MenuItem::Resume,
    MenuItem::Help,
    MenuItem::Sound,
    MenuItem::Scale,
    MenuItem::Look,
    MenuItem::Scores,
    MenuItem::Quit,
];

impl MenuItem {
    pub(super) fn label(self, sound: crate::sound::Settings, look: Appearance) -> String {
        match self {
            MenuItem::Resume => "Resume".into(),
            MenuItem::Help if crate::ui::layout::touch() => "Help".into(),
            MenuItem::Help => "Help and keys".into(),
            MenuItem::Sound if sound.muted => "Sound: off".into(),
            MenuItem::Sound => format!("Sound: {}%", sound.volume),
            MenuItem::Scale => format!("Interface size: {}%", look.scale),
            MenuItem::Look if look.glyphs => "Map: glyphs".into(),
            MenuItem::Look => "Map: tiles".into(),
            MenuItem::Scores => "High scores".into(),
            MenuItem::Quit => "Quit".into(),
        }
    }
}

impl App {
    pub(super) fn menu_choice(&mut self, item: MenuItem) {
        match item {
            MenuItem::Resume => self.screen = Screen::Game,
            MenuItem::Help => self.screen = Screen::Help,
            MenuItem::Sound => {
                self.audio.toggle_mute();
            }
            MenuItem::Scale => {
                let said = resize(&mut self.appearance, Resize::Reset);
                self.note(&said);
            }
            MenuItem::Look => self.toggle_glyphs(),
            MenuItem::Scores => self.open_scores(),
            // The character stays in the dungeon, as when the window is closed; the solo
            // server's journal already holds every turn.
            #[cfg(not(target_arch = "wasm32"))]
            MenuItem::Quit => {
                self.keep_recent_now(get_time());
                std::process::exit(0)
            }
            // A page cannot close its own tab.
            #[cfg(target_arch = "wasm32")]
            MenuItem::Quit => self.note("Close the browser tab to quit; your character waits."),
        }
    }

    /// Tiles to glyphs on the map, or back, kept for the next game.
    pub(super) fn toggle_glyphs(&mut self) {
        self.appearance.glyphs = !self.appearance.glyphs;
        let what = if self.appearance.glyphs {
            "The map is drawn in glyphs."
        } else {
            "The map is drawn in tiles."
        };
        match self.appearance.save() {
            Ok(()) => self.note(what),
            Err(e) => self.note(&format!("{what} (Not kept: {e}.)")),
        }
    }

    /// A line in the log from the client itself (not the server).
    pub(super) fn note(&mut self, text: &str) {
        let turn = self.model.view.as_ref().map_or(0, |v| v.turn);
        self.model
            .push_log(delve_protocol::MessageKind::Normal, text.to_string(), turn);
        self.log_scroll = 0;
    }
}
