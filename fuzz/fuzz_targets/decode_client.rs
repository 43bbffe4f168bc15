//! Any bytes a client can send as a text frame: decoding never panics, and whatever decodes
//! encodes back to text that decodes to the same message.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // A text frame is UTF-8 (the WebSocket layer refuses anything else with 1007).
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(msg) = delve_protocol::decode_client(text) {
        let again = delve_protocol::encode(&msg);
        assert_eq!(
            delve_protocol::decode_client(&again).as_ref(),
            Ok(&msg),
            "{text:?} decoded, encoded as {again:?}, and did not decode the same"
        );
    }
});
