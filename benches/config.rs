//! How long validating a hooks.toml takes on the shapes that were once quadratic (issue 16):
//! many problems, many lines, many hooks, a huge key, a large fuzzed file. Every shape must
//! stay linear in the file's size: `cargo bench --bench config`.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use hookhost::Config;

fn many_problems() -> String {
    // `hooks = [1, 1, ...]`: every element is "a hook must be a table", 30,000 of them.
    format!("hooks = [{}1]\n", "1,".repeat(29_999))
}

fn many_lines() -> String {
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&format!(
            "[[hooks]]\nevent = \"PreToolUse\"\nmatch_tool = \"Tool{i}\"\ncommand = \"check.sh {i}\"\n\n"
        ));
    }
    text
}

fn many_hooks_with_problems() -> String {
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&format!(
            "[[hooks]]\nevent = \"PreToolUSE\"\ncomand = \"check.sh {i}\"\ntimeout_ms = 0\n\n"
        ));
    }
    text
}

fn huge_key() -> String {
    format!(
        "[[hooks]]\nevent = \"Stop\"\ncommand = \"x\"\n{} = 1\n",
        "k".repeat(1 << 20)
    )
}

/// A valid file, mutated byte by byte with a fixed seed, to 2.7 MB.
fn fuzzed() -> String {
    let mut bytes = many_lines().into_bytes();
    while bytes.len() < 2_700_000 {
        bytes.extend_from_within(..bytes.len().min(2_700_000 - bytes.len()));
    }
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..bytes.len() / 50 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let at = (state % bytes.len() as u64) as usize;
        let alphabet = b"[]=\"\n{}#,.x1 ";
        bytes[at] = alphabet[(state >> 32) as usize % alphabet.len()];
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn main() {
    let mut criterion = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    let shapes = [
        ("30k_problems", many_problems()),
        ("10k_hooks_50k_lines", many_lines()),
        ("10k_hooks_30k_problems", many_hooks_with_problems()),
        ("1MB_unknown_key", huge_key()),
        ("2.7MB_fuzzed", fuzzed()),
    ];
    let mut group = criterion.benchmark_group("config_parse");
    for (name, text) in &shapes {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), text, |b, text| {
            b.iter(|| Config::parse(std::hint::black_box(text), "hooks.toml"))
        });
    }
    group.finish();
    criterion.final_summary();
}
