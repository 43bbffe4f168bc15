//! Any bytes a client can send as a text frame: decoding never panics, gives what the general
//! way (without the fast path for plain actions) gives, error messages included, and whatever
//! decodes encodes back to text that decodes to the same message.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A text frame is UTF-8 (the WebSocket layer refuses anything else with 1007).
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let decoded = delve_protocol::decode_client(text);
    assert_eq!(
        decoded,
        delve_protocol::codec::decode_client_the_general_way(text),
        "{text:?}: the fast path and the general way disagree"
    );
    if let Ok(msg) = decoded {
        let again = delve_protocol::encode(&msg);
        assert_eq!(
            delve_protocol::decode_client(&again).as_ref(),
            Ok(&msg),
            "{text:?} decoded, encoded as {again:?}, and did not decode the same"
        );
    }
});
