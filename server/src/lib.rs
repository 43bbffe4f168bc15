//! The Delve server as a library: the engine (`game`), per-player views (`view`), the
//! WebSocket shell (`net`), the SQLite storage (`store`) and the balance simulation (`sim`). The `delve-server` binary and the client's `--solo` mode both start
//! it through [`net::Server`].

pub mod game;
pub mod net;
pub mod sim;
pub mod store;
pub mod view;
