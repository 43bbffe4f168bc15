//! The WebSocket close codes the server uses: RFC 6455 §7.4's, and two of our own in the range
//! it leaves to applications. Server, clients and tests name them from here.

/// The session is over and nothing went wrong (a watcher with nobody left to watch).
pub const NORMAL: u16 = 1000;
/// The server is shutting down; try again later.
pub const GOING_AWAY: u16 = 1001;
/// The client broke a rule of the WebSocket protocol itself (reserved bits set, an unknown
/// opcode, an unmasked frame, a fragmented control frame, ...).
pub const PROTOCOL_ERROR: u16 = 1002;
/// A text message that is not UTF-8.
pub const INVALID_PAYLOAD: u16 = 1007;
/// The client broke a rule of the conversation (a handshake timeout, a flood, too many wrong
/// passwords).
pub const POLICY: u16 = 1008;
/// A frame larger than the server accepts.
pub const TOO_BIG: u16 = 1009;
/// The server failed (a dungeon stopped); not the client's fault.
pub const INTERNAL: u16 = 1011;
/// The server is full; try again later.
pub const TRY_LATER: u16 = 1013;
/// A newer connection took this character over. Reconnecting would take it back and forth.
pub const REPLACED: u16 = 4000;
/// The client speaks another protocol version (an error frame naming both came first). Not
/// 1002: libraries report that as a broken connection rather than a refusal.
pub const VERSION: u16 = 4001;

/// Whether a session closed with `code` should not be retried: the same hello would be refused
/// the same way.
pub fn is_final(code: u16) -> bool {
    matches!(code, REPLACED | VERSION)
}
