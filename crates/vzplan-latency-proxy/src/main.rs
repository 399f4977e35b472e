//! An HTTP proxy on 127.0.0.1 that adds a fixed latency to every request and logs it, in front of
//! a byte-range HTTP server or an S3 server (moto), for `scripts/bench_latency.py`:
//!
//! ```text
//! vzplan-latency-proxy [UPSTREAM] --delay-ms MS [--info FILE]
//!     [--local-root DIR [--bucket NAME [--list-local]] [--overlay FILE]]
//! ```
//!
//! Why it exists: the benchmark measures how a scan behaves when every request costs a round trip
//! to a distant store. A proxy and a store written in Python handle a few hundred requests a
//! second on two cores, so with them the benchmark measures the Python servers, not the scan.
//! This proxy sleeps asynchronously (concurrent requests overlap, as on a distant store) and
//! answers object reads from local files, so the store in front of the scan costs next to nothing
//! and the delay is what remains.
//!
//! - Every request first waits `--delay-ms`, then is answered.
//! - With `--local-root DIR`, a GET or HEAD of `/{bucket}/{key}` (of `/{key}` without `--bucket`)
//!   whose key names a regular file under DIR is answered from that file: a single
//!   `Range: bytes=…` gives 206 (416 when unsatisfiable), with Content-Length, Accept-Ranges,
//!   Last-Modified (the file's mtime), an ETag made of size and mtime, and Content-Type;
//!   `If-Match`, `If-None-Match` and `If-Range` naming that ETag are honoured. The directory must
//!   hold the bytes the upstream server holds under the same keys. With `--overlay FILE`, given
//!   byte ranges of given keys are served rewritten (src/overlay.rs): several keys can be links to
//!   one file and still differ.
//! - With `--list-local` (and `--bucket`), ListObjectsV2 of the bucket (`GET /{bucket}?list-type=2`,
//!   path-style), HeadBucket and GetBucketLocation are answered from a listing of DIR, walked at
//!   the start and again on `/__reset` (src/list.rs): no upstream server has to hold the objects.
//! - Everything else (listings and HEAD of a bucket without `--list-local`, PUTs, subresources,
//!   missing files, preconditions on dates or naming another ETag, such as the upstream's from a
//!   listing) is forwarded to UPSTREAM over pooled keep-alive connections, hop-by-hop headers
//!   dropped and the client's Host header kept (a SigV4 signature covers it; moto does not check
//!   signatures), and the answer is streamed back. Without `--local-root` everything is forwarded. UPSTREAM may be left out with
//!   `--local-root`: what is not answered locally then gets an S3 error (404 `NoSuchKey` for a
//!   GET or HEAD, else 501 `NotImplemented`).
//! - `GET /__log` returns `{"requests": [[start, end, method, path, range, status, bytes], …],
//!   "t0": …, "forwarded": N}`: times in seconds since the proxy started, `t0` that start on the
//!   system's monotonic clock (`CLOCK_MONOTONIC`, Python's `time.monotonic()`), so that a client
//!   can place the requests in its own timeline; `bytes` the response body bytes sent; `forwarded`
//!   how many of the requests were not answered from DIR (sent upstream, or refused without one);
//!   with `--list-local`, `listed` the number of objects in the listing.
//!   `GET /__reset` returns the same, empties the log and walks DIR again for `--list-local`.
//!   Neither is delayed or logged.
//!
//! The listening URL is printed and, with `--info FILE`, written to FILE as `{"url": …}`. Only
//! 127.0.0.1 (or another loopback name) is ever contacted: UPSTREAM must be one.

mod list;
mod local;
mod overlay;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use list::{BucketRequest, Listing};
use local::LocalRoot;
use overlay::Overlays;
use serde_json::json;
use std::convert::Infallible;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::net::TcpListener;

const USAGE: &str = "usage: vzplan-latency-proxy [UPSTREAM] --delay-ms MS [--info FILE] \
                     [--local-root DIR [--bucket NAME [--list-local]] [--overlay FILE]]";

/// Hop-by-hop headers: they describe one connection and are not passed on.
const HOP: [&str; 7] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
];

#[derive(Debug, PartialEq)]
struct Args {
    /// `http://host:port`, no trailing slash; None: nothing is forwarded.
    upstream: Option<String>,
    delay_ms: f64,
    info: Option<PathBuf>,
    local_root: Option<PathBuf>,
    bucket: Option<String>,
    overlay: Option<PathBuf>,
    list_local: bool,
}

fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let (mut upstream, mut delay, mut info, mut root, mut bucket) = (None, None, None, None, None);
    let (mut overlay, mut list_local) = (None, false);
    while let Some(arg) = it.next() {
        if arg == "-h" || arg == "--help" {
            return Err(String::new());
        }
        if arg == "--list-local" {
            list_local = true;
            continue;
        }
        let Some(flag) = arg.strip_prefix("--") else {
            if upstream.replace(arg).is_some() {
                return Err("one UPSTREAM only".into());
            }
            continue;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (flag, None),
        };
        let value = inline
            .or_else(|| it.next())
            .ok_or(format!("--{name} needs a value"))?;
        let slot = match name {
            "delay-ms" => &mut delay,
            "info" => &mut info,
            "local-root" => &mut root,
            "bucket" => &mut bucket,
            "overlay" => &mut overlay,
            _ => return Err(format!("unknown option --{name}")),
        };
        *slot = Some(value);
    }
    if upstream.is_none() && root.is_none() {
        return Err("UPSTREAM is required without --local-root".into());
    }
    let upstream = upstream.map(|u| check_upstream(&u)).transpose()?;
    let delay_ms = match delay {
        None => 0.0,
        Some(d) => d
            .parse::<f64>()
            .ok()
            .filter(|d| d.is_finite() && *d >= 0.0)
            .ok_or(format!("--delay-ms: not a number of milliseconds: {d}"))?,
    };
    if (bucket.is_some() || overlay.is_some()) && root.is_none() {
        return Err("--bucket and --overlay need --local-root".into());
    }
    if list_local && bucket.is_none() {
        return Err("--list-local needs --bucket".into());
    }
    Ok(Args {
        upstream,
        delay_ms,
        info: info.map(PathBuf::from),
        local_root: root.map(PathBuf::from),
        bucket,
        overlay: overlay.map(PathBuf::from),
        list_local,
    })
}

/// UPSTREAM without its trailing `/`, if it is a loopback http:// URL.
fn check_upstream(upstream: &str) -> Result<String, String> {
    let upstream = upstream.trim_end_matches('/').to_string();
    let host = upstream
        .strip_prefix("http://")
        .ok_or("UPSTREAM must be an http:// URL")?;
    let name = host.rsplit_once(':').map_or(host, |(h, _)| h);
    // No user info (`http://127.0.0.1:80@elsewhere`), no path: only the loopback host itself.
    if !["127.0.0.1", "localhost", "[::1]"].contains(&name) || host.contains(['/', '@']) {
        return Err(format!(
            "UPSTREAM must be http://127.0.0.1:PORT, not {upstream}"
        ));
    }
    Ok(upstream)
}

/// The proxy's start, on `Instant` (which is `CLOCK_MONOTONIC` on Linux) and as seconds of
/// `CLOCK_MONOTONIC`, read together.
struct Clock {
    start: Instant,
    t0: f64,
}

impl Clock {
    fn new() -> Self {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let start = Instant::now();
        // SAFETY: `ts` is a valid timespec to write to; CLOCK_MONOTONIC always exists on Linux.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        assert_eq!(rc, 0, "clock_gettime(CLOCK_MONOTONIC)");
        Clock {
            start,
            t0: ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9,
        }
    }

    /// Seconds since the start, to the microsecond (as the Python proxy rounds them).
    fn now(&self) -> f64 {
        (self.start.elapsed().as_secs_f64() * 1e6).round() / 1e6
    }
}

/// One line of the log, and whether the request went upstream.
struct Entry {
    row: serde_json::Value,
    forwarded: bool,
}

struct State {
    upstream: Option<String>,
    delay: Duration,
    local: Option<LocalRoot>,
    overlays: Overlays,
    /// `--list-local`: the bucket's listing, replaced on `/__reset`.
    listing: Option<Mutex<Arc<Listing>>>,
    client: Client<HttpConnector, Full<Bytes>>,
    clock: Clock,
    log: Mutex<Vec<Entry>>,
}

/// A request's log line, written when its response body has been sent (or dropped).
struct Pending {
    state: Arc<State>,
    start: f64,
    method: Method,
    path: String,
    range: String,
    status: u16,
    forwarded: bool,
}

enum Inner {
    Full(Full<Bytes>),
    Upstream(Incoming),
}

/// A response body that counts the bytes it yields and logs its request when it ends.
struct Logged {
    inner: Inner,
    sent: u64,
    pending: Option<Pending>,
}

impl Logged {
    fn finish(&mut self) {
        if let Some(p) = self.pending.take() {
            let end = p.state.clock.now();
            let row = json!([
                p.start,
                end,
                p.method.as_str(),
                p.path,
                p.range,
                p.status,
                self.sent
            ]);
            let entry = Entry {
                row,
                forwarded: p.forwarded,
            };
            p.state.log.lock().unwrap().push(entry);
        }
    }
}

impl Body for Logged {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = self.get_mut();
        let r = match &mut this.inner {
            Inner::Full(b) => Pin::new(b).poll_frame(cx).map_err(|e| match e {}),
            Inner::Upstream(b) => Pin::new(b).poll_frame(cx),
        };
        match &r {
            Poll::Ready(Some(Ok(f))) => {
                this.sent += f.data_ref().map_or(0, |d| d.len() as u64);
            }
            Poll::Ready(_) => this.finish(),
            Poll::Pending => {}
        }
        r
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            Inner::Full(b) => b.is_end_stream(),
            Inner::Upstream(b) => b.is_end_stream(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.inner {
            Inner::Full(b) => b.size_hint(),
            Inner::Upstream(b) => b.size_hint(),
        }
    }
}

impl Drop for Logged {
    fn drop(&mut self) {
        self.finish();
    }
}

fn full(status: StatusCode, content_type: &str, body: impl Into<Bytes>) -> Response<Inner> {
    let mut r = Response::new(Inner::Full(Full::new(body.into())));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(content_type).unwrap(),
    );
    r
}

/// `/__log` and `/__reset`: the log as JSON (emptied by the second).
fn control(state: &State, path: &str) -> Option<Response<Inner>> {
    if path != "/__log" && path != "/__reset" {
        return None;
    }
    let mut log = state.log.lock().unwrap();
    let mut doc = json!({
        "requests": log.iter().map(|e| &e.row).collect::<Vec<_>>(),
        "t0": state.clock.t0,
        "forwarded": log.iter().filter(|e| e.forwarded).count(),
    });
    if let Some(listing) = &state.listing {
        doc["listed"] = listing.lock().unwrap().len().into();
    }
    if path == "/__reset" {
        log.clear();
        drop(log);
        if let Err(e) = relist(state) {
            return Some(full(StatusCode::INTERNAL_SERVER_ERROR, "text/plain", e));
        }
    }
    Some(full(StatusCode::OK, "application/json", doc.to_string()))
}

/// The local directory walked again, for `--list-local` (files may have been added since).
fn relist(state: &State) -> Result<(), String> {
    let (Some(listing), Some(root)) = (&state.listing, &state.local) else {
        return Ok(());
    };
    let walked = Listing::walk(&root.dir, &state.overlays)
        .map_err(|e| format!("{}: {e}", root.dir.display()))?;
    *listing.lock().unwrap() = Arc::new(walked);
    Ok(())
}

/// The answer to a request of the bucket itself, from the listing (`--list-local`); None when it
/// is not one the listing answers.
fn answer_bucket(state: &State, req: &Request<Incoming>) -> Option<Response<Inner>> {
    let listing = state.listing.as_ref()?;
    let bucket = state.local.as_ref()?.bucket.as_deref()?;
    let uri = req.uri();
    let asked = list::bucket_request(req.method(), uri.path(), uri.query(), bucket)?;
    let xml = "application/xml";
    Some(match asked {
        Err(e) => full(
            StatusCode::BAD_REQUEST,
            xml,
            list::error_xml("InvalidArgument", &e),
        ),
        Ok(BucketRequest::Head) => {
            let mut r = full(StatusCode::OK, xml, Bytes::new());
            r.headers_mut().insert(
                HeaderName::from_static("x-amz-bucket-region"),
                HeaderValue::from_static("us-east-1"),
            );
            r
        }
        Ok(BucketRequest::Location) => full(StatusCode::OK, xml, list::location_xml()),
        Ok(BucketRequest::List(q)) => {
            // The page is built from a snapshot, outside the lock: a /__reset may replace it.
            let snapshot = listing.lock().unwrap().clone();
            match snapshot.page(bucket, &q) {
                Ok(page) => full(StatusCode::OK, xml, page),
                Err(e) => full(
                    StatusCode::BAD_REQUEST,
                    xml,
                    list::error_xml("InvalidArgument", &e),
                ),
            }
        }
    })
}

async fn handle(state: Arc<State>, req: Request<Incoming>) -> Result<Response<Logged>, Infallible> {
    let path = req
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    if let Some(r) = control(&state, &path) {
        return Ok(r.map(|inner| Logged {
            inner,
            sent: 0,
            pending: None,
        }));
    }
    let start = state.clock.now();
    let method = req.method().clone();
    let range = req.headers().get(header::RANGE);
    let range = range
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    if !state.delay.is_zero() {
        tokio::time::sleep(state.delay).await;
    }
    let mut resp = answer_bucket(&state, &req);
    if resp.is_none() && (method == Method::GET || method == Method::HEAD) {
        let file = state.local.as_ref().and_then(|root| {
            let file = root.candidate(req.uri().path(), req.uri().query(), req.headers())?;
            let key = file.strip_prefix(&root.dir).ok()?.to_str()?.to_string();
            Some((file, state.overlays.get(&key)))
        });
        if let Some((file, patches)) = file {
            let validators = local::Validators::of(req.headers());
            let head = method == Method::HEAD;
            resp = answer_locally(file, patches, head, &range, validators).await;
        }
    }
    let forwarded = resp.is_none();
    let resp = match resp {
        Some(r) => r,
        None => forward(&state, req).await,
    };
    let status = resp.status().as_u16();
    let pending = Pending {
        state: state.clone(),
        start,
        method,
        path,
        range,
        status,
        forwarded,
    };
    Ok(resp.map(|inner| Logged {
        inner,
        sent: 0,
        pending: Some(pending),
    }))
}

/// The local answer, or None when the request goes upstream after all.
async fn answer_locally(
    file: PathBuf,
    patches: Option<Arc<[overlay::Patch]>>,
    head: bool,
    range: &str,
    validators: local::Validators,
) -> Option<Response<Inner>> {
    let range = (!range.is_empty()).then(|| range.to_string());
    let read = tokio::task::spawn_blocking(move || {
        let patches = patches.as_deref().unwrap_or(&[]);
        local::answer(&file, patches, head, range.as_deref(), &validators)
    });
    let answer = match read.await {
        Ok(Ok(a)) => a?,
        Ok(Err(e)) => {
            return Some(full(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                e.to_string(),
            ))
        }
        Err(e) => {
            return Some(full(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                e.to_string(),
            ))
        }
    };
    let mut r = Response::new(Inner::Full(Full::new(answer.body)));
    *r.status_mut() = answer.status;
    for (name, value) in answer.headers {
        r.headers_mut()
            .insert(name, HeaderValue::from_str(&value).unwrap());
    }
    Some(r)
}

/// Hop-by-hop headers removed, with those the Connection header names.
fn strip_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|n| HeaderName::from_bytes(n.trim().as_bytes()).ok())
        .collect();
    for n in named {
        headers.remove(n);
    }
    for n in HOP {
        headers.remove(n);
    }
}

/// The request sent to UPSTREAM, its body read first (as the Python proxy does) so that a
/// request on a pooled connection the server had closed can be sent again once.
async fn forward(state: &State, req: Request<Incoming>) -> Response<Inner> {
    let Some(upstream) = &state.upstream else {
        return refuse(req.method());
    };
    let (mut parts, body) = req.into_parts();
    let body = match body.collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => return full(StatusCode::BAD_REQUEST, "text/plain", e.to_string()),
    };
    let pq = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let uri: hyper::Uri = match format!("{upstream}{pq}").parse() {
        Ok(u) => u,
        Err(e) => return full(StatusCode::BAD_REQUEST, "text/plain", e.to_string()),
    };
    strip_hop(&mut parts.headers);
    // The body is here already: the upstream server need not ask for it.
    parts.headers.remove(header::EXPECT);
    let mut last_error = String::new();
    for _ in 0..2 {
        let mut up = Request::new(Full::new(body.clone()));
        *up.method_mut() = parts.method.clone();
        *up.uri_mut() = uri.clone();
        *up.headers_mut() = parts.headers.clone();
        match state.client.request(up).await {
            Ok(resp) => {
                let (mut rp, rb) = resp.into_parts();
                strip_hop(&mut rp.headers);
                return Response::from_parts(rp, Inner::Upstream(rb));
            }
            Err(e) => last_error = format!("upstream {upstream}: {e:?}"),
        }
    }
    full(StatusCode::BAD_GATEWAY, "text/plain", last_error)
}

/// What is neither answered locally nor forwarded, without UPSTREAM: an object that is not there,
/// or a request only an S3 server answers.
fn refuse(method: &Method) -> Response<Inner> {
    let xml = "application/xml";
    if method == Method::GET || method == Method::HEAD {
        let body = list::error_xml("NoSuchKey", "The specified key does not exist.");
        full(StatusCode::NOT_FOUND, xml, body)
    } else {
        let body = list::error_xml("NotImplemented", "no upstream server behind this proxy");
        full(StatusCode::NOT_IMPLEMENTED, xml, body)
    }
}

fn write_info(path: &PathBuf, url: &str) -> std::io::Result<()> {
    let tmp = PathBuf::from(format!("{}.tmp", path.display()));
    std::fs::write(&tmp, json!({ "url": url }).to_string())?;
    std::fs::rename(&tmp, path)
}

/// The proxy's state: the overlays read, the directory listed for `--list-local`.
fn state_of(args: Args) -> Result<State, String> {
    if let Some(dir) = &args.local_root {
        if !dir.is_dir() {
            return Err(format!("--local-root {}: not a directory", dir.display()));
        }
    }
    let overlays = match &args.overlay {
        Some(f) => Overlays::load(f).map_err(|e| format!("--overlay {}: {e}", f.display()))?,
        None => Overlays::default(),
    };
    let listing = match (&args.local_root, args.list_local) {
        (Some(dir), true) => {
            let l = Listing::walk(dir, &overlays).map_err(|e| format!("{}: {e}", dir.display()))?;
            Some(Mutex::new(Arc::new(l)))
        }
        _ => None,
    };
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let client = Client::builder(TokioExecutor::new())
        .pool_timer(TokioTimer::new())
        .pool_idle_timeout(Duration::from_secs(60))
        .build(connector);
    Ok(State {
        upstream: args.upstream,
        delay: Duration::from_secs_f64(args.delay_ms / 1000.0),
        local: args.local_root.map(|dir| LocalRoot {
            dir,
            bucket: args.bucket,
        }),
        overlays,
        listing,
        client,
        clock: Clock::new(),
        log: Mutex::new(Vec::new()),
    })
}

#[tokio::main]
async fn main() {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            let code = if e.is_empty() { 0 } else { 2 };
            if !e.is_empty() {
                eprintln!("vzplan-latency-proxy: {e}");
            }
            eprintln!("{USAGE}");
            std::process::exit(code);
        }
    };
    let info = args.info.clone();
    let state = match state_of(args) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("vzplan-latency-proxy: {e}");
            std::process::exit(2);
        }
    };
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let url = format!("http://{}", listener.local_addr().unwrap());
    if let Some(info) = &info {
        if let Err(e) = write_info(info, &url) {
            eprintln!("vzplan-latency-proxy: --info {}: {e}", info.display());
            std::process::exit(1);
        }
    }
    println!("{url}");
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) => {
                // Out of file descriptors, or a connection reset before it was accepted.
                eprintln!("vzplan-latency-proxy: accept: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let state = state.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| handle(state.clone(), req));
            let conn = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service);
            // A client that drops its connection is no error of the proxy's.
            let _ = conn.await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Args, String> {
        parse_args(s.split_whitespace().map(String::from))
    }

    #[test]
    fn the_command_line_is_that_of_the_python_proxy() {
        let a = args("http://127.0.0.1:9000/ --delay-ms 20 --info /tmp/i.json").unwrap();
        assert_eq!(a.upstream.as_deref(), Some("http://127.0.0.1:9000"));
        assert!(!a.list_local && a.overlay.is_none());
        assert_eq!(a.delay_ms, 20.0);
        assert_eq!(a.info, Some(PathBuf::from("/tmp/i.json")));
        let a = args("http://localhost:1 --delay-ms=0.5 --local-root /d --bucket b").unwrap();
        assert_eq!((a.delay_ms, a.bucket.as_deref()), (0.5, Some("b")));
        assert_eq!(args("http://127.0.0.1:1").unwrap().delay_ms, 0.0);
        // Without UPSTREAM when the directory answers everything.
        let a = args("--local-root /d --bucket b --list-local --overlay /o.json").unwrap();
        assert_eq!(a.upstream, None);
        assert!(a.list_local);
        assert_eq!(a.overlay, Some(PathBuf::from("/o.json")));
        for bad in [
            "",
            "https://127.0.0.1:1",
            "http://example.com:80",
            "http://127.0.0.1:1/prefix",
            "http://127.0.0.1:80@example.com",
            "http://127.0.0.1:1 --delay-ms",
            "http://127.0.0.1:1 --delay-ms -3",
            "http://127.0.0.1:1 --bucket b",
            "http://127.0.0.1:1 --port 3",
            "http://127.0.0.1:1 http://127.0.0.1:2",
            "--delay-ms 3",
            "http://127.0.0.1:1 --list-local",
            "http://127.0.0.1:1 --local-root /d --list-local",
            "http://127.0.0.1:1 --overlay /o.json",
        ] {
            assert!(args(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hop_by_hop_headers_are_dropped() {
        let mut h = HeaderMap::new();
        for (k, v) in [
            ("connection", "close, x-private"),
            ("x-private", "1"),
            ("transfer-encoding", "chunked"),
            ("host", "127.0.0.1:5"),
            ("authorization", "AWS4-HMAC-SHA256 …"),
        ] {
            h.insert(
                HeaderName::from_static(k),
                HeaderValue::from_bytes(v.as_bytes()).unwrap(),
            );
        }
        strip_hop(&mut h);
        let mut left: Vec<_> = h.keys().map(|k| k.as_str()).collect();
        left.sort();
        assert_eq!(left, ["authorization", "host"]);
    }
}
