//! What OTLP export adds to a short-lived process (`hookhost agent-hook` is one per tool call):
//! telemetry started, one record exported, shut down with the exit bound; against a live
//! collector, a dead one (connection refused) and a silent one (accepts, never answers), over
//! HTTP and gRPC. The collector is the tests' loopback receiver. Run it in release:
//! `cargo run --release --no-default-features --features telemetry --example telemetry_exit_cost [runs]`.

use std::time::{Duration, Instant};

use hookhost::Config;
use hookhost::telemetry::Telemetry;

#[path = "../tests/common/otlp.rs"]
mod otlp;
use otlp::{Behaviour, Receiver};

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(50);
    let record = serde_json::json!({
        "id": "019abcde-f012-7345-8678-9abcdef01234", "time": "2026-05-01T10:00:00.500Z",
        "us": 900, "agent": "claude", "session": "s-1", "cwd": "/work", "event": "PreToolUse",
        "tool": "Bash", "decision": "allow", "decided_by": null, "reason": null,
        "input": {"command": "ls"},
        "hooks": [{"name": "guard", "layer": "project", "kind": "wasm", "source": "g.wasm",
                   "phase": "guard", "mode": "enforce", "verdict": "allow", "us": 800}]
    });
    let exit = Duration::from_millis(200);
    println!("exit bound {exit:?}, {runs} runs each; medians (p90)");
    println!(
        "{:<28} {:>12} {:>12} {:>14} {:>8}",
        "collector", "new", "shutdown", "whole", "lost"
    );
    for protocol in ["http/protobuf", "grpc"] {
        let grpc = protocol == "grpc";
        let live = if grpc {
            Receiver::grpc(Behaviour::Accept)
        } else {
            Receiver::http(Behaviour::Accept)
        };
        let silent = if grpc {
            Receiver::grpc(Behaviour::Hang)
        } else {
            Receiver::http(Behaviour::Hang)
        };
        let dead = format!("http://{}", otlp::closed_port());
        for (name, url) in [
            ("live", live.url()),
            ("dead", dead),
            ("silent", silent.url()),
        ] {
            let text = format!("[telemetry]\nendpoint = \"{url}\"\nprotocol = \"{protocol}\"\n");
            let spec = Config::parse(&text, "hooks.toml")
                .unwrap()
                .telemetry
                .unwrap();
            let (mut new, mut shut, mut whole, mut lost) = (vec![], vec![], vec![], 0);
            for _ in 0..runs {
                let started = Instant::now();
                let telemetry = Telemetry::new(Some(&spec), &|_| None).unwrap().unwrap();
                let made = started.elapsed();
                telemetry.export(std::slice::from_ref(&record));
                let flushing = Instant::now();
                let shutdown = telemetry.shutdown(exit);
                shut.push(flushing.elapsed());
                drop(telemetry);
                whole.push(started.elapsed());
                new.push(made);
                lost += shutdown.spans_lost;
            }
            let stat = |v: &mut Vec<Duration>| {
                v.sort();
                format!("{:.2?} ({:.2?})", v[v.len() / 2], v[v.len() * 9 / 10])
            };
            println!(
                "{:<28} {:>12} {:>12} {:>14} {:>8}",
                format!("{protocol} {name}"),
                stat(&mut new),
                stat(&mut shut),
                stat(&mut whole),
                lost
            );
        }
    }
}
