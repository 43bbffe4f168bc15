//! Plain HTTP GETs to a test server's game port (the pages, the API), over a fresh connection
//! each, with hyper's client.

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;

/// One GET of `path` from the server at `url` (`ws://HOST:PORT`), with extra request headers:
/// the answer's head and its body.
pub async fn get(url: &str, path: &str, headers: &[(&str, &str)]) -> (Response<()>, Vec<u8>) {
    let addr = url.trim_start_matches("ws://").to_owned();
    let tcp = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("the server accepts");
    let (mut send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
        .await
        .expect("an HTTP connection");
    tokio::spawn(conn);
    let mut req = Request::get(path).header("host", &addr);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let req = req.body(Empty::<Bytes>::new()).expect("a request");
    let res = crate::within(send.send_request(req))
        .await
        .expect("an answer");
    let (parts, body) = res.into_parts();
    let body = crate::within(body.collect())
        .await
        .expect("a body")
        .to_bytes()
        .to_vec();
    (Response::from_parts(parts, ()), body)
}

/// A GET's body as text, with its status.
pub async fn get_text(url: &str, path: &str) -> (u16, String) {
    let (head, body) = get(url, path, &[]).await;
    (
        head.status().as_u16(),
        String::from_utf8_lossy(&body).into_owned(),
    )
}

/// A header of an answer, or "".
pub fn header<'a>(r: &'a Response<()>, name: &str) -> &'a str {
    r.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}
