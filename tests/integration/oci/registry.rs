//! A real CNCF distribution registry on a loopback port, and a fault-injecting HTTP proxy to
//! put in front of it.

use std::io::{Read as _, Write as _};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A test user of the htpasswd registry, and its bcrypt hash (`htpasswd -Bbn -C 5 hookhost-test
/// correct-horse`; a test credential, not a secret).
pub const USER: &str = "hookhost-test";
pub const PASSWORD: &str = "correct-horse";
const HTPASSWD: &str =
    "hookhost-test:$2y$05$9.Qp3uMEnxztLy21yr4Wa.IiMXikQzLinCsPgf7C2Wx8DsE8Rf3By\n";

/// Finds a program on PATH (or at one of `fallbacks`), or fails the test saying what to install.
pub fn require_tool(names: &[&str], install: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in names {
        for dir in std::env::split_paths(&path).chain([PathBuf::from("/usr/bin")]) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return candidate;
            }
        }
    }
    panic!(
        "the OCI registry tests need `{}`, which is not installed: {install} \
         (.ci/run installs it; these tests never pass without it)",
        names.join("` or `")
    );
}

pub fn skopeo() -> PathBuf {
    require_tool(&["skopeo"], "apt-get install -y skopeo")
}

/// A free loopback port (the listener is closed before the port is used: a small race that a
/// test machine does not lose in practice).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running registry; killed when dropped.
pub struct Registry {
    child: Child,
    pub port: u16,
    dir: tempfile::TempDir,
}

impl Registry {
    /// Starts `docker-registry` with filesystem storage in a temp dir; `htpasswd` requires
    /// [`USER`] / [`PASSWORD`].
    pub fn start(htpasswd: bool) -> Registry {
        let binary = require_tool(
            &["docker-registry", "registry"],
            "apt-get install -y docker-registry (Debian's package of the CNCF distribution registry)",
        );
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let auth = if htpasswd {
            std::fs::write(dir.path().join("htpasswd"), HTPASSWD).unwrap();
            format!(
                "auth:\n  htpasswd:\n    realm: hookhost-test\n    path: {}\n",
                dir.path().join("htpasswd").display()
            )
        } else {
            String::new()
        };
        let config = format!(
            "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\n\
             storage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\n\
             http:\n  addr: 127.0.0.1:{port}\n  secret: hookhost-test-secret\n{auth}",
            dir.path().join("data").display()
        );
        let config_path = dir.path().join("config.yml");
        std::fs::write(&config_path, config).unwrap();
        let log = std::fs::File::create(dir.path().join("registry.log")).unwrap();
        let child = Command::new(&binary)
            .arg("serve")
            .arg(&config_path)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let mut registry = Registry { child, port, dir };
        registry.wait_until_ready();
        registry
    }

    fn wait_until_ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("the registry exited ({status}):\n{}", self.log());
            }
            let status = http_get(self.port, "/v2/")
                .ok()
                .and_then(|answer| answer.split(' ').nth(1).map(str::to_string));
            if matches!(status.as_deref(), Some("200" | "401")) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the registry did not answer within 20s:\n{}", self.log());
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("registry.log")).unwrap_or_default()
    }

    /// `oci://127.0.0.1:PORT/{path}`.
    pub fn reference(&self, path: &str) -> String {
        format!("oci://127.0.0.1:{}/{path}", self.port)
    }

    /// `127.0.0.1:PORT/{path}`, for skopeo's `docker://`.
    pub fn docker(&self, path: &str) -> String {
        format!("docker://127.0.0.1:{}/{path}", self.port)
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.0 GET; the whole answer as text.
fn http_get(port: u16, path: &str) -> std::io::Result<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(2)))?;
    write!(stream, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    Ok(String::from_utf8_lossy(&answer).into_owned())
}

/// What the proxy does to a matching response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Answer 500 instead.
    ServerError,
    /// Send the headers and half the body, then close the connection.
    CutBody,
    /// Flip one bit in the middle of the body.
    FlipByte,
}

/// An HTTP proxy in front of a registry that injects one fault into responses to GET requests
/// whose path contains a marker, and forwards everything else unchanged. One request per
/// connection (it answers `Connection: close`). Stops when dropped.
pub struct FaultProxy {
    pub port: u16,
    stop: Arc<AtomicBool>,
}

impl FaultProxy {
    pub fn start(upstream: u16, marker: &str, fault: Fault) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let marker = marker.to_string();
        let stopped = stop.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(client) = client else { continue };
                let marker = marker.clone();
                std::thread::spawn(move || {
                    let _ = forward(client, upstream, &marker, fault);
                });
            }
        });
        FaultProxy { port, stop }
    }

    pub fn reference(&self, path: &str) -> String {
        format!("oci://127.0.0.1:{}/{path}", self.port)
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Reads up to the end of the headers; returns (head, any bytes read past it).
fn read_head(stream: &mut TcpStream) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buffer.split_off(end + 4);
            return Ok((buffer, rest));
        }
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
}

fn content_length(head: &str) -> usize {
    head.lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0)
}

fn forward(
    mut client: TcpStream,
    upstream: u16,
    marker: &str,
    fault: Fault,
) -> std::io::Result<()> {
    client.set_read_timeout(Some(Duration::from_secs(10)))?;
    let (head, mut body) = read_head(&mut client)?;
    let head = String::from_utf8_lossy(&head).into_owned();
    while body.len() < content_length(&head) {
        let mut chunk = vec![0u8; 65536];
        let n = client.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let mut request_line = head.lines().next().unwrap_or_default().split(' ');
    let (method, path) = (
        request_line.next().unwrap_or_default().to_string(),
        request_line.next().unwrap_or_default().to_string(),
    );
    // One request per upstream connection too, so the response ends at EOF.
    let head_out: String = head
        .lines()
        .filter(|line| !line.to_ascii_lowercase().starts_with("connection:") && !line.is_empty())
        .map(|line| format!("{line}\r\n"))
        .collect::<String>()
        + "Connection: close\r\n\r\n";
    let mut server = TcpStream::connect(("127.0.0.1", upstream))?;
    server.write_all(head_out.as_bytes())?;
    server.write_all(&body)?;
    let mut response = Vec::new();
    server.read_to_end(&mut response)?;

    if method != "GET" || !path.contains(marker) {
        client.write_all(&response)?;
        return client.shutdown(Shutdown::Both);
    }
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(response.len(), |end| end + 4);
    let (head, body) = response.split_at(split);
    match fault {
        Fault::ServerError => {
            let body = b"storage backend unavailable";
            write!(
                client,
                "HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            client.write_all(body)?;
        }
        Fault::CutBody => {
            client.write_all(head)?;
            client.write_all(&body[..body.len() / 2])?;
        }
        Fault::FlipByte => {
            let mut body = body.to_vec();
            let middle = body.len() / 2;
            body[middle] ^= 1;
            client.write_all(head)?;
            client.write_all(&body)?;
        }
    }
    client.flush()?;
    client.shutdown(Shutdown::Both)
}

/// Files under `dir`, recursively (to show that nothing partial is left in a store).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}
